/* conv.c — YRT_OP_CONV2D in one room with its paths: here its check (the validator calls it
 * through the row), the choice of path (prepare), release, profile name and the row columns
 * publish_range and dynq; the paths in conv_float.c (f32: XNNPACK or the reference),
 * conv_int8.c (our kernels, XNNPACK qc8, the reference; int8 to float; absorb_next) and
 * conv_dynamic.c (f32 input quantized on each run), conv_int16.c (int16 input), sharing
 * conv_paths.h. */
#include <stdint.h>
#include <stdlib.h>

#include "mem.h"
#include "conv_paths.h"
#include "kernel_kinds.h"
#include "op_check.h"

yrt_status yrt_check_conv(const yrt_node_check *v) {
  const yrt_node_rec *n = v->n;
  const int32_t *p = n->p;
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *w = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  const yrt_tensor_rec *b = (n->n_in > 2 && n->in[2] != YRT_NONE) ? yrt_node_in(v, 2) : NULL;
  if (x->rank != 4 || w->rank != 4 || y->rank != 4)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "x, w, y must be rank 4 (got %u, %u, %u)", (unsigned)x->rank,
               (unsigned)w->rank, (unsigned)y->rank);
  if (w->kind != YRT_TENSOR_CONST || (b && b->kind != YRT_TENSOR_CONST))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weights and bias must be constants");
  /* int8 arithmetic (i8 x and w, i32 bias), output int8 or, groups 1 only, float (the float
   * head's last convs: (float)acc * s_x * s_w[c]) */
  const int is_i8 = x->dtype == YRT_I8;
  if (x->dtype == YRT_I16) {
    const yrt_status st = yrt_conv_check_i16(v);
    if (st != YRT_OK) return st;
  } else if (n->n_in > YRT_CONV_IN_WOFFSET && !(y->dtype == YRT_F32 && x->dtype == YRT_F32 && w->dtype == YRT_I8))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weight offsets (input 3) only on a dynamically quantized conv");
  if (is_i8) {
    if (w->dtype != YRT_I8 || (b && b->dtype != YRT_I32) || (y->dtype != YRT_I8 && y->dtype != YRT_F32))
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 conv needs i8 x/w, i32 bias and an i8 or f32 output");
    if (y->dtype == YRT_F32 && p[YRT_CONV_P_GROUPS] != 1)
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "an int8 conv with float output must have groups 1");
    if (w->zero_point != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 weights must be symmetric (zp %d)", (int)w->zero_point);
    if (w->n_scales > 1 && w->q_axis != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weight scales must be on axis 0");
  } else if (y->dtype == YRT_F32 && x->dtype == YRT_F32 && w->dtype == YRT_I8) {
    /* dynamic quantization: x quantized on every run with its measured range, int8 weights,
     * f32 bias and output (groups 1: our conv kernel's float-output mode; grouped: the
     * reference, conv_dynamic.c) */
    if (b && b->dtype != YRT_F32)
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "a dynamically quantized conv needs an f32 bias");
    if (w->zero_point != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 weights must be symmetric (zp %d)", (int)w->zero_point);
    if (w->n_scales > 1 && w->q_axis != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weight scales must be on axis 0");
    const int64_t groups = p[YRT_CONV_P_GROUPS] > 0 ? p[YRT_CONV_P_GROUPS] : 1; /* checked below */
    /* in double: kh, kw and the channels are not bounded yet here (a hostile record overflowed int64) */
    const double window = (double)p[YRT_CONV_P_KH] * (double)p[YRT_CONV_P_KW] * (double)(x->dims[3] / groups);
    if (window * 255.0 * 128.0 > (double)(INT32_MAX / 2))
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 window of %.0f products can overflow int32", window);
    if (n->n_in > YRT_CONV_IN_WOFFSET) {
      const yrt_tensor_rec *o = yrt_node_in(v, YRT_CONV_IN_WOFFSET);
      if (o->kind != YRT_TENSOR_CONST || o->dtype != YRT_I32 || o->rank != 1 || o->dims[0] != y->dims[3])
        return yrt_node_fail(v, YRT_ERR_FORMAT, "weight offsets (input 3) must be an i32 constant [%d]", (int)y->dims[3]);
      const int32_t *od = (const int32_t *)yrt_tensor_const_data(v->m, o);
      for (int32_t c = 0; c < o->dims[0]; c++)
        if (od[c] > YRT_CONV_WOFFSET_MAX || od[c] < -YRT_CONV_WOFFSET_MAX)
          return yrt_node_fail(v, YRT_ERR_FORMAT, "weight offset[%d] = %d is outside +-%d", (int)c, (int)od[c],
                               YRT_CONV_WOFFSET_MAX);
    }
  } else if (x->dtype == YRT_I16) {
    /* checked above (conv_int16.c); the window and shape checks below apply */
  } else if (y->dtype == YRT_F32) {
    if (x->dtype != YRT_F32 || w->dtype != YRT_F32 || (b && b->dtype != YRT_F32))
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "float conv needs f32 x/w/bias/y");
  } else {
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "output dtype %u", (unsigned)y->dtype);
  }
  for (int k = YRT_CONV_P_KH; k <= YRT_CONV_P_KW; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_KERNEL)) return yrt_node_fail(v, YRT_ERR_FORMAT, "kernel size p[%d] = %d", k, (int)p[k]);
  for (int k = YRT_CONV_P_SH; k <= YRT_CONV_P_SW; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_STRIDE)) return yrt_node_fail(v, YRT_ERR_FORMAT, "stride p[%d] = %d", k, (int)p[k]);
  for (int k = YRT_CONV_P_PAD_T; k <= YRT_CONV_P_PAD_R; k++)
    if (!yrt_range_ok(p[k], 0, YRT_MAX_PAD)) return yrt_node_fail(v, YRT_ERR_FORMAT, "padding p[%d] = %d", k, (int)p[k]);
  for (int k = YRT_CONV_P_DH; k <= YRT_CONV_P_DW; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_KERNEL)) return yrt_node_fail(v, YRT_ERR_FORMAT, "dilation p[%d] = %d", k, (int)p[k]);
  const int64_t g = p[YRT_CONV_P_GROUPS];
  const int64_t cin = x->dims[3], cout = y->dims[3];
  if (g < 1 || cin % g != 0 || cout % g != 0)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "groups %lld do not divide Cin %lld and Cout %lld", (long long)g,
               (long long)cin, (long long)cout);
  if (x->dims[0] != y->dims[0]) return yrt_node_fail(v, YRT_ERR_SHAPE, "batch %d -> %d", (int)x->dims[0], (int)y->dims[0]);
  if (w->dims[0] != cout || w->dims[1] != p[YRT_CONV_P_KH] || w->dims[2] != p[YRT_CONV_P_KW] || w->dims[3] != cin / g)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "weight dims [%d,%d,%d,%d] disagree with Cout %lld, kernel %dx%d, Cin/g %lld",
               (int)w->dims[0], (int)w->dims[1], (int)w->dims[2], (int)w->dims[3], (long long)cout,
               (int)p[YRT_CONV_P_KH], (int)p[YRT_CONV_P_KW], (long long)(cin / g));
  if (b && (b->rank != 1 || b->dims[0] != cout))
    return yrt_node_fail(v, YRT_ERR_SHAPE, "bias must be [%lld]", (long long)cout);
  if (is_i8) {
    /* Kernels accumulate bias + sum((x - zp) * w) in int32: a hostile bias overflowed the scalar
     * ones (fuzz finding). |x - zp| <= 255, |w| <= 128. */
    const int64_t span = (int64_t)p[YRT_CONV_P_KH] * p[YRT_CONV_P_KW] * (cin / g) * 255 * 128;
    if (span > INT32_MAX)
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 window of %lld products can overflow int32",
                 (long long)(span / (255 * 128)));
    const int32_t *bd = b ? (const int32_t *)yrt_tensor_const_data(v->m, b) : NULL;
    for (int64_t c = 0; bd && c < cout; c++)
      if (bd[c] > INT32_MAX - span || bd[c] < INT32_MIN + span)
        return yrt_node_fail(v, YRT_ERR_FORMAT, "bias[%lld] = %d can overflow the int32 accumulator", (long long)c,
                   (int)bd[c]);
  }
  if (!yrt_window_ok(x->dims[1], p[YRT_CONV_P_KH], p[YRT_CONV_P_SH], p[YRT_CONV_P_PAD_T], p[YRT_CONV_P_PAD_B],
                 p[YRT_CONV_P_DH], y->dims[1]) ||
      !yrt_window_ok(x->dims[2], p[YRT_CONV_P_KW], p[YRT_CONV_P_SW], p[YRT_CONV_P_PAD_L], p[YRT_CONV_P_PAD_R],
                 p[YRT_CONV_P_DW], y->dims[2]))
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output %dx%d does not follow from input %dx%d and the window",
               (int)y->dims[1], (int)y->dims[2], (int)x->dims[1], (int)x->dims[2]);
  const int32_t act = p[YRT_CONV_P_ACT];
  if (!yrt_range_ok(act, YRT_UNARY_NONE, YRT_UNARY_COUNT_ - 1)) return yrt_node_fail(v, YRT_ERR_FORMAT, "activation %d", (int)act);
  if (y->dtype == YRT_I8 && act != YRT_UNARY_NONE && act != YRT_UNARY_RELU && act != YRT_UNARY_IDENTITY)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 conv fuses only relu (act %d; use a LUT)", (int)act);
  const int32_t lut = p[YRT_CONV_P_LUT];
  if (lut != -1) {
    if (y->dtype != YRT_I8) return yrt_node_fail(v, YRT_ERR_FORMAT, "LUT on a float-output conv");
    if (lut < 0 || (uint32_t)lut >= v->m->n_tensors) return yrt_node_fail(v, YRT_ERR_FORMAT, "LUT tensor index %d", (int)lut);
    const yrt_tensor_rec *t = &v->m->tensors[lut];
    if (t->kind != YRT_TENSOR_CONST || t->dtype != YRT_I8 || yrt_tensor_numel(t) != 256)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "LUT tensor %d is not a constant of 256 int8", (int)lut);
  }
  return yrt_require_per_tensor(v);
}

static void fill_geom(const yrt_model *m, const yrt_node_rec *n, yrt_conv_geom *g) {
  const yrt_tensor_rec *x = &m->tensors[n->in[0]], *y = &m->tensors[n->out[0]];
  const int32_t *p = n->p;
  g->n = x->dims[0];
  g->h = x->dims[1];
  g->w = x->dims[2];
  g->cin = x->dims[3];
  g->oh = y->dims[1];
  g->ow = y->dims[2];
  g->cout = y->dims[3];
  g->kh = p[YRT_CONV_P_KH];
  g->kw = p[YRT_CONV_P_KW];
  g->sh = p[YRT_CONV_P_SH];
  g->sw = p[YRT_CONV_P_SW];
  g->pad_t = p[YRT_CONV_P_PAD_T];
  g->pad_l = p[YRT_CONV_P_PAD_L];
  g->dh = p[YRT_CONV_P_DH];
  g->dw = p[YRT_CONV_P_DW];
  g->groups = p[YRT_CONV_P_GROUPS];
  /* views (int8, groups 1 only: model_validate_views.c) */
  g->xs = (int)yrt_pixel_stride(m, x);
  g->ys = (int)yrt_pixel_stride(m, y);
}

yrt_status yrt_prepare_conv(yrt_session *s, yrt_exec *e, yrt_error *err) {
  yrt_exec_conv *c = yrt_conv_state(e);
  fill_geom(s->model, e->node, &c->g);
  c->out_numel = e->numel;
  if (s->model->tensors[e->node->in[0]].dtype == YRT_F32 && s->model->tensors[e->node->in[1]].dtype == YRT_I8) {
    e->run = yrt_conv_run_dyn;
    return yrt_conv_prepare_dyn(s, e, err);
  }
  if (s->model->tensors[e->node->in[0]].dtype == YRT_I8 && s->model->tensors[e->node->out[0]].dtype == YRT_F32) {
    e->run = yrt_conv_run_i8f32;
    return yrt_conv_prepare_i8f32(s, e, err);
  }
  if (s->model->tensors[e->node->in[0]].dtype == YRT_I16) {
    e->run = yrt_conv_run_i16;
    return yrt_conv_prepare_i16(s, e, err);
  }
  if (s->model->tensors[e->node->out[0]].dtype == YRT_I8) {
    e->run = yrt_conv_run_i8;
    return yrt_conv_prepare_i8(s, e, err);
  }
  e->run = yrt_run_conv_f32;
  return yrt_conv_prepare_f32(s, e);
}

void yrt_release_conv(yrt_exec *e) {
  yrt_exec_conv *c = yrt_conv_state(e);
  yrt_xnn_conv_free(c->op);
  yrt_free(c->requant);
  yrt_free(c->kscale);
  yrt_free(c->zero_bias);
  if (c->own == 1 && !c->packed_shared) yrt_free(c->qc.packed);
  if (c->own == 3) yrt_free(c->c16); /* its packed weights are in the same block */
  yrt_free(c->dw_w);
  yrt_free(c->wsum);
  yrt_conv_dyn_release(c);
  c->wsum = NULL;
  c->dw_w = NULL;
  c->own = 0;
  c->op = NULL;
  c->requant = c->kscale = NULL;
  c->zero_bias = NULL;
}

/* An int8 conv with float output (the head's last convs) is its own kind in profiles. */
const char *yrt_kind_conv(const yrt_model *m, const yrt_node_rec *n) {
  const int i8f32 = m->tensors[n->out[0]].dtype == YRT_F32 && m->tensors[n->in[0]].dtype == YRT_I8;
  if (m->tensors[n->in[0]].dtype == YRT_I16) return "conv2d.i16";
  return i8f32 ? "conv2d.i8f32" : NULL;
}

/* A float-output conv with an activation pass writing its whole output measures it there. */
int yrt_publish_range_conv(yrt_exec *p) {
  const yrt_exec_conv *c = yrt_conv_state(p);
  if (p->run != yrt_run_conv_f32 && p->run != yrt_conv_run_dyn) return 0;
  if (c->act == YRT_UNARY_NONE || c->out_numel != p->numel || (c->g.ys && c->g.ys != c->g.cout)) return 0;
  p->pub_range = 1;
  return 1;
}

/* A dynamically quantized conv quantizes its f32 input into the session's int8 buffer. */
size_t yrt_conv_dynq_bytes(const yrt_model *m, const yrt_node_rec *n) {
  const yrt_tensor_rec *x = &m->tensors[n->in[0]];
  return x->dtype == YRT_F32 && m->tensors[n->in[1]].dtype == YRT_I8 ? yrt_tensor_numel(x) : 0;
}

/* ---- views (the row's view_in, view_out): an int8-output conv of groups 1 reads its input and
 * writes its output with pixel strides (yk_qconv, XNNPACK and the reference alike). */
static int conv_takes_views(const yrt_model *m, const yrt_node_rec *n) {
  /* not an int16-input conv: yk_conv16 reads and writes dense tensors */
  return m->tensors[n->out[0]].dtype == YRT_I8 && m->tensors[n->in[0]].dtype != YRT_I16 &&
         n->p[YRT_CONV_P_GROUPS] == 1;
}

int yrt_conv_view_in(const yrt_model *m, const yrt_node_rec *n, uint32_t k) {
  return k == 0 && conv_takes_views(m, n);
}

/* ... but not a view of the holder it reads (its tasks would write what others still read). */
int yrt_conv_view_out(const yrt_model *m, const yrt_node_rec *n) {
  return conv_takes_views(m, n) && yrt_view_root(m, n->in[0]) != yrt_view_root(m, n->out[0]);
}
