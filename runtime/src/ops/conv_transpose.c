/* conv_transpose.c — YRT_OP_CONV_TRANSPOSE, the transposed convolution (a segment model's
 * prototype upsample), float or int8, in one room: its check, state, prepare, run and release
 * (the row in op_table.c points here). The weights are repacked once at session creation; a run
 * gathers output rows threaded over the pool (kernels/include/yk_conv_transpose.h). int8: x and
 * y per-tensor, weights symmetric (per-tensor, or per output channel on the weights' axis 1 with
 * group 1), an i32 bias at s_x s_w[o]; requantized as the int8 conv. */
#include <math.h>
#include <stdlib.h>

#include "mem.h"
#include "model_internal.h"
#include "conv_transpose.h"
#include "op_check.h"
#include "op_run.h"
#include "yk_conv_transpose.h"

typedef struct yrt_exec_convt {
  yk_convt_params p;
  float *packed;    /* f32: [kh][kw][ci][co / group] (owned) */
  int16_t *packed8; /* i8: channel pairs (yk_conv_transpose_s8_pack, owned) */
  float *scale;     /* i8: [co] s_x s_w[o] / s_y (owned) */
  yk_convt_q8 q;
} yrt_exec_convt;
YRT_EXEC_STATE_FITS(yrt_exec_convt *);
/* The node's state: a pointer to its yrt_exec_convt (owned). */
static inline yrt_exec_convt **slot(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_convt *, e); }

static void convt_params(const yrt_node_rec *n, const yrt_tensor_rec *x, const yrt_tensor_rec *y, yk_convt_params *k) {
  const int32_t *p = n->p;
  k->h = (int)x->dims[1], k->w = (int)x->dims[2], k->ci = (int)x->dims[3];
  k->oh = (int)y->dims[1], k->ow = (int)y->dims[2], k->co = (int)y->dims[3];
  k->kh = p[YRT_CONVT_P_KH], k->kw = p[YRT_CONVT_P_KW], k->sh = p[YRT_CONVT_P_SH], k->sw = p[YRT_CONVT_P_SW];
  k->pt = p[YRT_CONVT_P_PAD_T], k->pl = p[YRT_CONVT_P_PAD_L], k->dh = p[YRT_CONVT_P_DH], k->dw = p[YRT_CONVT_P_DW];
  k->group = p[YRT_CONVT_P_GROUP];
}

static int scale_ok(float s) { return s > 0.0f && s < 1e30f; }

/* int8: per-tensor x and y (zero points int8 values), symmetric weights per-tensor or per output
 * channel (axis 1 of [Ci, Co, kh, kw], group 1), finite positive scales, and sums that stay in
 * int32 (|x - zp| <= 255, |w| <= 128, plus the bias). The geometry was checked before. */
static yrt_status check_i8(const yrt_node_check *v, const yrt_tensor_rec *x, const yrt_tensor_rec *w,
                           const yrt_tensor_rec *y, const yrt_tensor_rec *b) {
  const int32_t *p = v->n->p;
  if (!yrt_per_tensor(x) || !yrt_per_tensor(y)) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 input and output must be per-tensor");
  if (!yrt_range_ok(x->zero_point, -128, 127) || !yrt_range_ok(y->zero_point, -128, 127) || !scale_ok(x->scale) ||
      !scale_ok(y->scale))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "int8 input / output quantization (scales %g, %g, zero points %d, %d)",
                         (double)x->scale, (double)y->scale, (int)x->zero_point, (int)y->zero_point);
  if (w->zero_point != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 weights must be symmetric (zp %d)", (int)w->zero_point);
  if (w->n_scales > 1 && (w->q_axis != 1 || p[YRT_CONVT_P_GROUP] != 1 || w->n_scales != (uint32_t)y->dims[3]))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weight scales: per tensor, or %d on axis 1 with group 1 (got %u on axis %u)",
                         (int)y->dims[3], (unsigned)w->n_scales, (unsigned)w->q_axis);
  const float *ws = yrt_tensor_scales(v->m, w);
  for (uint32_t k = 0; k < (ws ? w->n_scales : 1); k++)
    if (!scale_ok(ws ? ws[k] : w->scale)) return yrt_node_fail(v, YRT_ERR_FORMAT, "weight scale %u is not finite positive", (unsigned)k);
  const int64_t span = (int64_t)p[YRT_CONVT_P_KH] * p[YRT_CONVT_P_KW] * (x->dims[3] / p[YRT_CONVT_P_GROUP]) * 255 * 128;
  if (span > INT32_MAX)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 window of %lld products can overflow int32", (long long)(span / (255 * 128)));
  const int32_t *bd = b ? (const int32_t *)yrt_tensor_const_data(v->m, b) : NULL;
  for (int32_t c = 0; bd && c < y->dims[3]; c++)
    if (bd[c] > INT32_MAX - span || bd[c] < INT32_MIN + span)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "bias[%d] = %d can overflow the int32 accumulator", (int)c, (int)bd[c]);
  return YRT_OK;
}

/* Every size bounded and the output extent exactly what the geometry gives, so the kernel's
 * loops stay inside x, the weights and y. */
yrt_status yrt_check_conv_transpose(const yrt_node_check *v) {
  const int32_t *p = v->n->p;
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *w = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  const int i8 = x->dtype == YRT_I8;
  if (!(x->dtype == YRT_F32 && y->dtype == YRT_F32 && w->dtype == YRT_F32) &&
      !(i8 && y->dtype == YRT_I8 && w->dtype == YRT_I8))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "input, weights and output must be all f32 or all i8");
  if (x->rank != 4 || y->rank != 4 || x->layout != YRT_LAYOUT_NHWC || y->layout != YRT_LAYOUT_NHWC || x->dims[0] != 1 ||
      y->dims[0] != 1)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "input and output must be NHWC [1,H,W,C]");
  if (x->view_holder || y->view_holder) return yrt_node_fail(v, YRT_ERR_FORMAT, "input or output is a tensor view");
  for (int k = YRT_CONVT_P_KH; k <= YRT_CONVT_P_SW; k++)
    if (!yrt_range_ok(p[k], 1, k < YRT_CONVT_P_SH ? YRT_MAX_KERNEL : YRT_MAX_STRIDE))
      return yrt_node_fail(v, YRT_ERR_FORMAT, "kernel / stride p[%d] = %d", k, (int)p[k]);
  for (int k = YRT_CONVT_P_PAD_T; k <= YRT_CONVT_P_PAD_R; k++)
    if (!yrt_range_ok(p[k], 0, YRT_MAX_PAD)) return yrt_node_fail(v, YRT_ERR_FORMAT, "pad p[%d] = %d", k, (int)p[k]);
  for (int k = YRT_CONVT_P_DH; k <= YRT_CONVT_P_DW; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_KERNEL)) return yrt_node_fail(v, YRT_ERR_FORMAT, "dilation p[%d] = %d", k, (int)p[k]);
  const int32_t g = p[YRT_CONVT_P_GROUP];
  if (!yrt_range_ok(g, 1, (int32_t)x->dims[3]) || x->dims[3] % g || y->dims[3] % g)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "group %d for %d -> %d channels", (int)g, (int)x->dims[3], (int)y->dims[3]);
  const int32_t oph = p[YRT_CONVT_P_OUT_PAD_H], opw = p[YRT_CONVT_P_OUT_PAD_W];
  if (!yrt_range_ok(oph, 0, (p[YRT_CONVT_P_SH] > p[YRT_CONVT_P_DH] ? p[YRT_CONVT_P_SH] : p[YRT_CONVT_P_DH]) - 1) ||
      !yrt_range_ok(opw, 0, (p[YRT_CONVT_P_SW] > p[YRT_CONVT_P_DW] ? p[YRT_CONVT_P_SW] : p[YRT_CONVT_P_DW]) - 1))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "output padding %d x %d (below the stride or dilation)", (int)oph, (int)opw);
  const int64_t oh = (x->dims[1] - 1) * p[YRT_CONVT_P_SH] - p[YRT_CONVT_P_PAD_T] - p[YRT_CONVT_P_PAD_B] +
                     (int64_t)(p[YRT_CONVT_P_KH] - 1) * p[YRT_CONVT_P_DH] + 1 + oph;
  const int64_t ow = (x->dims[2] - 1) * p[YRT_CONVT_P_SW] - p[YRT_CONVT_P_PAD_L] - p[YRT_CONVT_P_PAD_R] +
                     (int64_t)(p[YRT_CONVT_P_KW] - 1) * p[YRT_CONVT_P_DW] + 1 + opw;
  if (y->dims[1] != oh || y->dims[2] != ow)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output %dx%d, the geometry gives %lldx%lld", (int)y->dims[1],
                         (int)y->dims[2], (long long)oh, (long long)ow);
  if (w->kind != YRT_TENSOR_CONST || w->rank != 4 || w->dims[0] != x->dims[3] || w->dims[1] != y->dims[3] / g ||
      w->dims[2] != p[YRT_CONVT_P_KH] || w->dims[3] != p[YRT_CONVT_P_KW])
    return yrt_node_fail(v, YRT_ERR_SHAPE, "weights must be a constant [%d, %d, %d, %d]", (int)x->dims[3],
                         (int)(y->dims[3] / g), (int)p[YRT_CONVT_P_KH], (int)p[YRT_CONVT_P_KW]);
  const yrt_tensor_rec *b = v->n->n_in > 2 && v->n->in[2] != YRT_NONE ? yrt_node_in(v, 2) : NULL;
  if (b && (b->kind != YRT_TENSOR_CONST || b->dtype != (i8 ? YRT_I32 : YRT_F32) || yrt_tensor_numel(b) != (size_t)y->dims[3]))
    return yrt_node_fail(v, YRT_ERR_SHAPE, "bias must be a constant %s [%d]", i8 ? "i32" : "f32", (int)y->dims[3]);
  if (i8) {
    const yrt_status st = check_i8(v, x, w, y, b);
    if (st != YRT_OK) return st;
  }
  yk_convt_params k;
  convt_params(v->n, x, y, &k);
  if (!yk_conv_transpose_valid(&k)) return yrt_node_fail(v, YRT_ERR_FORMAT, "geometry the kernel does not compute");
  return YRT_OK;
}

static void convt_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  const yrt_exec_convt *c = *slot(e);
  if (c->packed8)
    yk_conv_transpose_s8_rows(&t->s->isa, &c->p, &c->q, e->in[0], c->packed8, e->out, (int)lo, (int)hi);
  else
    yk_conv_transpose_f32_rows(&t->s->isa, &c->p, e->in[0], c->packed, e->node->n_in > 2 ? e->in[2] : NULL, e->out,
                               (int)lo, (int)hi);
}

yrt_status yrt_run_conv_transpose(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_convt *c = *slot(e);
  yrt_run_par(s, e, convt_range, (size_t)c->p.oh, (size_t)c->p.ow * (size_t)c->p.co);
  return YRT_OK;
}

yrt_status yrt_prepare_conv_transpose(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  yrt_exec_convt *c = yrt_zalloc(s->alloc, 1, sizeof *c);
  if (!c) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for conv_transpose node");
  *slot(e) = c;
  convt_params(n, &m->tensors[n->in[0]], &m->tensors[n->out[0]], &c->p);
  const yrt_tensor_rec *x = &m->tensors[n->in[0]], *w = &m->tensors[n->in[1]], *y = &m->tensors[n->out[0]];
  if (x->dtype == YRT_I8) {
    c->packed8 = yrt_alloc(s->alloc, yk_conv_transpose_s8_packed_elems(&c->p) * sizeof *c->packed8);
    c->scale = yrt_alloc(s->alloc, (size_t)c->p.co * sizeof *c->scale);
    if (!c->packed8 || !c->scale) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for int8 conv_transpose weights");
    const float *ws = yrt_tensor_scales(m, w);
    for (int o = 0; o < c->p.co; o++) c->scale[o] = x->scale * (ws ? ws[o] : w->scale) / y->scale; /* as the int8 conv */
    c->q = (yk_convt_q8){x->zero_point, y->zero_point, n->n_in > 2 ? e->in[2] : NULL, c->scale};
    yk_conv_transpose_s8_pack(&c->p, e->in[1], c->packed8);
    return YRT_OK;
  }
  c->packed = yrt_alloc(s->alloc, yk_conv_transpose_packed_floats(&c->p) * sizeof *c->packed);
  if (!c->packed) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for conv_transpose weights");
  yk_conv_transpose_pack(&c->p, e->in[1], c->packed);
  return YRT_OK;
}

void yrt_release_conv_transpose(yrt_exec *e) {
  if (*slot(e)) {
    yrt_free((*slot(e))->packed);
    yrt_free((*slot(e))->packed8);
    yrt_free((*slot(e))->scale);
  }
  yrt_free(*slot(e));
  *slot(e) = NULL;
}
