/* conv_transpose.c — YRT_OP_CONV_TRANSPOSE, the float transposed convolution (a segment model's
 * prototype upsample), in one room: its check, state, prepare, run and release (the row in
 * op_table.c points here). The weights are repacked once at session creation; a run gathers
 * output rows threaded over the pool (kernels/include/yk_conv_transpose.h). */
#include <math.h>
#include <stdlib.h>

#include "mem.h"
#include "conv_transpose.h"
#include "op_check.h"
#include "op_run.h"
#include "yk_conv_transpose.h"

typedef struct yrt_exec_convt {
  yk_convt_params p;
  float *packed; /* [kh][kw][ci][co / group] (owned) */
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

/* Every size bounded and the output extent exactly what the geometry gives, so the kernel's
 * loops stay inside x, the weights and y. */
yrt_status yrt_check_conv_transpose(const yrt_node_check *v) {
  const int32_t *p = v->n->p;
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *w = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  if (x->dtype != YRT_F32 || y->dtype != YRT_F32 || w->dtype != YRT_F32)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "input, weights and output must be f32 (int8 runs as a float node)");
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
  if (v->n->n_in > 2 && v->n->in[2] != YRT_NONE) {
    const yrt_tensor_rec *b = yrt_node_in(v, 2);
    if (b->kind != YRT_TENSOR_CONST || b->dtype != YRT_F32 || yrt_tensor_numel(b) != (size_t)y->dims[3])
      return yrt_node_fail(v, YRT_ERR_SHAPE, "bias must be a constant f32 [%d]", (int)y->dims[3]);
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
  yk_conv_transpose_f32_rows(&t->s->isa, &c->p, e->in[0], c->packed, e->node->n_in > 2 ? e->in[2] : NULL, e->out, (int)lo, (int)hi);
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
  c->packed = yrt_alloc(s->alloc, yk_conv_transpose_packed_floats(&c->p) * sizeof *c->packed);
  if (!c->packed) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for conv_transpose weights");
  yk_conv_transpose_pack(&c->p, e->in[1], c->packed);
  return YRT_OK;
}

void yrt_release_conv_transpose(yrt_exec *e) {
  if (*slot(e)) yrt_free((*slot(e))->packed);
  yrt_free(*slot(e));
  *slot(e) = NULL;
}
