/* softmax.c — YRT_OP_SOFTMAX: Softmax over one axis; int8 rows through tables (onnxruntime's QLinearSoftmax chain), in one room: its check (the validator calls it
 * through the row), its prepare and run (the row in op_table.c points here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "softmax.h"
#include "kernel_kinds.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

typedef struct yrt_exec_softmax { /* k, x_scale, x_zp, lut: i8 -> i8 only (yolort_format.h) */
  size_t outer, len, inner;
  float k, x_scale;
  int32_t x_zp;
  const int8_t *lut; /* NULL, or the table the codes go through first */
} yrt_exec_softmax;

YRT_EXEC_STATE_FITS(yrt_exec_softmax);
static inline yrt_exec_softmax *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_softmax, e); }

yrt_status yrt_check_softmax(const yrt_node_check *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  const int i8 = x->dtype == YRT_I8 && y->dtype == YRT_I8;
  if (!i8 && (x->dtype != YRT_F32 || y->dtype != YRT_F32))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "softmax is f32 -> f32 or i8 -> i8");
  if (!yrt_same_dims(x, y)) return yrt_node_fail(v, YRT_ERR_SHAPE, "input and output shapes differ");
  if (v->n->p[0] < 0 || (uint32_t)v->n->p[0] >= x->rank) return yrt_node_fail(v, YRT_ERR_FORMAT, "axis %d for rank %u", (int)v->n->p[0], (unsigned)x->rank);
  if (!i8) return v->n->n_in > 1 ? yrt_node_fail(v, YRT_ERR_FORMAT, "a float softmax takes no table") : YRT_OK;
  const float k = v->n->f[0];
  if ((uint32_t)v->n->p[0] != x->rank - 1 || x->dims[x->rank - 1] > YRT_SOFTMAX_I8_MAX_LEN)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 softmax over axis %d of rank %u (the last one, at most %d long)",
               (int)v->n->p[0], (unsigned)x->rank, YRT_SOFTMAX_I8_MAX_LEN);
  if (!(k > 0.0f && k <= 1.0f)) return yrt_node_fail(v, YRT_ERR_FORMAT, "int8 softmax factor %g not in (0, 1]", (double)k);
  if (v->n->n_in > 1) { /* a table before it: 256 int8 constants, the codes' scale f[1], zero point p[1] */
    const yrt_tensor_rec *t = yrt_node_in(v, 1);
    if (t->kind != YRT_TENSOR_CONST || t->dtype != YRT_I8 || yrt_tensor_numel(t) != 256)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "softmax table is not a constant of 256 int8");
    if (!(isfinite(v->n->f[1]) && v->n->f[1] > 0.0f) || v->n->p[1] < -128 || v->n->p[1] > 127)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "softmax table codes' scale %g / zero point %d", (double)v->n->f[1], (int)v->n->p[1]);
  }
  return yrt_require_per_tensor(v);
}

/* Outer slices [lo, hi) of a softmax. */
static void softmax_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_session *s = ((const yrt_node_ctx *)ctx)->s;
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  const size_t slice = st_of(e)->len * st_of(e)->inner;
  yk_softmax_f32(&s->isa, (const float *)e->in[0] + lo * slice, (float *)e->out + lo * slice, hi - lo,
                 st_of(e)->len, st_of(e)->inner);
}

/* Rows [lo, hi) of an int8 softmax: the float chain dequantize, softmax, the QLinearSoftmax factor
 * as BINARY MUL computes it, quantize, bit for bit (yk_softmax_i8: fused rows on AVX-512). */
static void softmax_i8_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_session *s = ((const yrt_node_ctx *)ctx)->s;
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  const size_t len = st_of(e)->len;
  const yk_softmax_i8_params p = {st_of(e)->x_scale, st_of(e)->k, e->q[2].scale, st_of(e)->x_zp,
                                  e->q[2].zero_point, st_of(e)->lut};
  yk_softmax_i8(&s->isa, (const int8_t *)e->in[0] + lo * len, (int8_t *)e->out + lo * len, hi - lo, len, &p);
}

yrt_status yrt_run_softmax(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, e->esize == 1 ? softmax_i8_range : softmax_range, st_of(e)->outer,
          st_of(e)->len * st_of(e)->inner);
  return YRT_OK;
}

yrt_status yrt_prepare_softmax(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_tensor_rec *x = &s->model->tensors[e->node->in[0]];
  const uint32_t axis = (uint32_t)e->node->p[0];
  st_of(e)->outer = yrt_dims_product(x, 0, axis);
  st_of(e)->len = (size_t)x->dims[axis];
  st_of(e)->inner = yrt_dims_product(x, axis + 1, x->rank);
  st_of(e)->k = e->node->f[0];
  /* validated: with a table (in[1]) the looked-up codes' quantization is f[1] / p[1] */
  const int lut = e->node->n_in > 1;
  st_of(e)->lut = lut ? (const int8_t *)e->in[1] : NULL;
  st_of(e)->x_scale = lut ? e->node->f[1] : e->q[0].scale;
  st_of(e)->x_zp = lut ? e->node->p[1] : e->q[0].zero_point;
  return YRT_OK;
}
