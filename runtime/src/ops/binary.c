/* binary.c — YRT_OP_BINARY: element-wise Add / Sub / Mul / Div with broadcasting, f32 or int8
 * (the float chain, or the fixed-point Add), in one room: its check (the validator calls it
 * through the row), its prepare, run and release (the row in op_table.c points here). An int8
 * binary on views runs by pixels; a residual Add right after a node whose row can absorb it
 * (a conv) runs in that node's tasks; a Mul ending DQ -> Sigmoid -> Mul runs as one table. */
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "binary.h"
#include "kernel_kinds.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

/* A binary run by pixels (views, or the fixed-point Add), or the Mul of DQ -> Sigmoid -> Mul. */
typedef union yrt_exec_binary {
  struct { size_t as, bs, ys, c; int fixed; yk_add_fixed fx; } view; /* int8 by pixels of c (views:
                                       strides), fixed-point Add or the float chain */
  struct { const int8_t *x; float *lut; } silu; /* the table (owned) */
} yrt_exec_binary;

YRT_EXEC_STATE_FITS(yrt_exec_binary);
static inline yrt_exec_binary *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_binary, e); }

yrt_status yrt_check_binary(const yrt_node_check *v) {
  const yrt_tensor_rec *a = yrt_node_in(v, 0), *b = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  const int32_t kind = v->n->p[0];
  if (a->dtype != y->dtype || b->dtype != y->dtype || (y->dtype != YRT_F32 && y->dtype != YRT_I8))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "operands must be all f32 or all i8");
  if (!yrt_range_ok(kind, YRT_BIN_ADD, YRT_BIN_DIV)) return yrt_node_fail(v, YRT_ERR_FORMAT, "binary kind %d", (int)kind);
  if (y->dtype == YRT_I8 && kind != YRT_BIN_ADD && kind != YRT_BIN_MUL)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 binary supports add and mul only (kind %d)", (int)kind);
  if (a->rank != y->rank || b->rank != y->rank) return yrt_node_fail(v, YRT_ERR_SHAPE, "operands differ in rank");
  const int32_t arith = v->n->p[1];
  if (!yrt_range_ok(arith, YRT_BIN_FLOAT_CHAIN, YRT_BIN_I8_FIXED)) return yrt_node_fail(v, YRT_ERR_FORMAT, "binary arithmetic p[1] = %d", (int)arith);
  if (arith == YRT_BIN_I8_FIXED) {
    yk_add_fixed fx;
    if (y->dtype != YRT_I8 || kind != YRT_BIN_ADD)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "fixed-point arithmetic (p[1] = 1) is for int8 add only");
    for (uint32_t d = 0; d < y->rank; d++)
      if (a->dims[d] != y->dims[d] || b->dims[d] != y->dims[d])
        return yrt_node_fail(v, YRT_ERR_SHAPE, "fixed-point add: axis %u broadcasts (same shapes only)", (unsigned)d);
    if (a->n_scales > 1 || b->n_scales > 1 || y->n_scales > 1 ||
        yk_add_fixed_params((yk_qparams){a->scale, a->zero_point}, (yk_qparams){b->scale, b->zero_point},
                            (yk_qparams){y->scale, y->zero_point}, &fx) != 0)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "fixed-point add: scale ratios %g / %g past int16", (double)(a->scale / y->scale),
                 (double)(b->scale / y->scale));
  }
  for (uint32_t d = 0; d < y->rank; d++) {
    int32_t ad = a->dims[d], bd = b->dims[d], yd = y->dims[d];
    if ((ad != yd && ad != 1) || (bd != yd && bd != 1) || yd != (ad > bd ? ad : bd))
      return yrt_node_fail(v, YRT_ERR_SHAPE, "axis %u: %d (op) %d -> %d does not broadcast", (unsigned)d, (int)ad, (int)bd,
                 (int)yd);
  }
  return yrt_require_per_tensor(v);
}

/* Rows [lo, hi) of axis 1 of a binary node (output [1, R, ...]): an input with R rows is
 * offset, one broadcasting along axis 1 (dim 1) is read whole. */
static void binary_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_session *s = ((const yrt_node_ctx *)ctx)->s;
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  yk_shape sh[3] = {e->sh[0], e->sh[1], e->sh[2]};
  const void *in[2];
  void *out = NULL;
  for (int k = 0; k < 3; k++) {
    size_t row = 1;
    for (int d = 2; d < sh[k].rank; d++) row *= (size_t)sh[k].d[d];
    const size_t off = sh[k].d[1] == 1 ? 0 : lo * row * e->esize;
    if (sh[k].d[1] != 1 || k == 2) sh[k].d[1] = (int64_t)(hi - lo);
    if (k < 2) in[k] = (const uint8_t *)e->in[k] + off;
    else out = (uint8_t *)e->out + off;
  }
  if (e->esize == 1)
    yk_binary_i8(&s->isa, e->node->p[0], in[0], &sh[0], e->q[0], in[1], &sh[1], e->q[1], out, &sh[2],
                 e->q[2]);
  else
    yk_binary_f32(&s->isa, e->node->p[0], in[0], &sh[0], in[1], &sh[1], out, &sh[2]);
}

yrt_status yrt_run_binary(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yk_shape *so = &e->sh[2];
  if (so->rank >= 3 && so->d[0] == 1 && so->d[1] > 1) {
    yrt_run_par_out(s, e, binary_range, (size_t)so->d[1], e->numel / (size_t)so->d[1]);
    return YRT_OK;
  }
  const yrt_node_ctx t = {s, e};
  binary_range(&t, 0, so->rank >= 2 ? (size_t)so->d[1] : 1);
  yrt_measure_out(s, e);
  return YRT_OK;
}

int yrt_publish_range_binary(yrt_exec *e) { return yrt_publish_when_run_by(e, yrt_run_binary); }

/* Pixels [lo, hi) of an int8 binary run by pixels: on views (same shapes [1, H, W, C], pixel
 * strides), or a fixed-point Add (dense: strides c). Also what a node that absorbed this one
 * runs on its own output rows (absorb_next). */
static void binary_pixels(const yrt_session *s, const yrt_exec *e, size_t lo, size_t hi) {
  const size_t as = st_of(e)->view.as, bs = st_of(e)->view.bs, ys = st_of(e)->view.ys;
  const int8_t *a = (const int8_t *)e->in[0] + lo * as, *b = (const int8_t *)e->in[1] + lo * bs;
  int8_t *y = (int8_t *)e->out + lo * ys;
  if (st_of(e)->view.fixed)
    yk_add_i8_fixed_pixels(&s->isa, a, as, b, bs, y, ys, hi - lo, st_of(e)->view.c, &st_of(e)->view.fx);
  else
    yk_binary_i8_pixels(&s->isa, e->node->p[0], a, as, e->q[0], b, bs, e->q[1], y, ys, e->q[2], hi - lo,
                        st_of(e)->view.c);
}

static void binary_pixels_range(const void *ctx, size_t lo, size_t hi) {
  binary_pixels(((const yrt_node_ctx *)ctx)->s, ((const yrt_node_ctx *)ctx)->e, lo, hi);
}

static yrt_status run_binary_pixels(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, binary_pixels_range, e->numel / st_of(e)->view.c, st_of(e)->view.c);
  return YRT_OK;
}

/* ---- DQ -> Sigmoid -> Mul: the float SiLU of a dequantized int8 tensor (QDQ exports with Q/DQ
 * only around convs leave it so, e.g. before a float Split or Add). Run at the Mul as one
 * int8 -> float table lookup (yk_lut_build_silu_f32: bit-identical to the three nodes), the DQ
 * and Sigmoid nodes left idle: one pass reading bytes instead of three float passes. The two
 * before it are recognised by their rows' pointwise column. */

static void silu_lut_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_lut_i8_f32(&t->s->isa, st_of(e)->silu.x + lo, (float *)e->out + lo, hi - lo, st_of(e)->silu.lut);
}

static yrt_status run_silu_lut(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, silu_lut_range, e->numel, 1);
  return YRT_OK;
}

/* What prepared node p computes element by element (its row's pointwise), YRT_POINTWISE_NONE
 * when its row says nothing. */
static int pointwise_of(const yrt_session *s, const yrt_exec *p, int32_t *unary) {
  const yrt_op_def *d = yrt_op_lookup(s->model->ops, p->node->op);
  *unary = -1;
  return d && d->pointwise ? d->pointwise(p, unary) : YRT_POINTWISE_NONE;
}

static yrt_status prepare_silu(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  yrt_exec *sg = e - 1, *dq = e - 2; /* the three in a row: nothing else runs in between */
  int32_t u_sg, u_dq;
  if (pointwise_of(s, sg, &u_sg) != YRT_POINTWISE_UNARY || u_sg != YRT_UNARY_SIGMOID ||
      pointwise_of(s, dq, &u_dq) != YRT_POINTWISE_DEQUANTIZE)
    return YRT_OK;
  const uint32_t a = dq->node->out[0], b = sg->node->out[0];
  if (sg->node->in[0] != a || !((n->in[0] == a && n->in[1] == b) || (n->in[0] == b && n->in[1] == a)))
    return YRT_OK;
  if (m->tensors[dq->node->in[0]].dtype != YRT_I8 || dq->numel != e->numel || sg->numel != e->numel ||
      yrt_tensor_uses(m, a) != 2 || yrt_tensor_uses(m, b) != 1)
    return YRT_OK;
  const uint8_t *x = dq->in[0], *y = e->out; /* the Mul reads x after the DQ's slot: not overwritten */
  if (x < y + 4 * e->numel && y < x + e->numel) return YRT_OK;
  float *lut = yrt_alloc(s->alloc, 256 * sizeof(float));
  if (!lut)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing node '%s'", yrt_model_string(m, n->name));
  yk_lut_build_silu_f32(dq->q[0], lut);
  st_of(e)->silu.x = dq->in[0];
  st_of(e)->silu.lut = lut;
  e->run = run_silu_lut;
  dq->run = sg->run = yrt_run_nothing;
  return YRT_OK;
}

yrt_status yrt_prepare_binary(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const size_t i = (size_t)(e - s->exec);
  const int fixed = n->p[1] == YRT_BIN_I8_FIXED; /* validated: int8 ADD of one shape, parameters fit */
  if (fixed || (yrt_binary_takes_views(m, n) && (yrt_is_view(&m->tensors[n->in[0]]) ||
                                                 yrt_is_view(&m->tensors[n->in[1]]) ||
                                                 yrt_is_view(&m->tensors[n->out[0]])))) {
    const yrt_tensor_rec *y = &m->tensors[n->out[0]];
    st_of(e)->view.c = y->rank ? (size_t)y->dims[y->rank - 1] : 1;
    if (!st_of(e)->view.c) st_of(e)->view.c = 1;
    st_of(e)->view.as = yrt_pixel_stride(m, &m->tensors[n->in[0]]);
    st_of(e)->view.bs = yrt_pixel_stride(m, &m->tensors[n->in[1]]);
    st_of(e)->view.ys = yrt_pixel_stride(m, y);
    st_of(e)->view.fixed = fixed;
    if (fixed && yk_add_fixed_params(e->q[0], e->q[1], e->q[2], &st_of(e)->view.fx) != 0)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: node '%s': fixed-point add with scale ratios past int16",
                           yrt_model_string(m, n->name));
    e->run = run_binary_pixels;
    /* a residual Add right after the node making one of its inputs (a conv): done in its tasks */
    const yrt_op_def *pd = i >= 1 ? yrt_op_lookup(m->ops, e[-1].node->op) : NULL;
    const uint32_t py = i >= 1 ? e[-1].node->out[0] : YRT_NONE;
    if (pd && pd->absorb_next && !yrt_is_view(&m->tensors[py]) && (n->in[0] == py || n->in[1] == py) &&
        n->in[0] != n->in[1] && yrt_tensor_uses(m, py) == 1 && pd->absorb_next(s, &e[-1], e, binary_pixels))
      e->run = yrt_run_nothing;
    return YRT_OK;
  }
  if (n->p[0] != YRT_BIN_MUL || e->esize != 4 || i < 2) return YRT_OK;
  return prepare_silu(s, e, err);
}

void yrt_release_binary(yrt_exec *e) {
  if (e->run == run_silu_lut) yrt_free(st_of(e)->silu.lut);
  st_of(e)->silu.lut = NULL;
}

/* ---- views (the row's view_in, view_out) */

/* An int8 binary whose inputs and output have one shape [1, H, W, C]: its rows can be strided. */
int yrt_binary_takes_views(const yrt_model *m, const yrt_node_rec *n) {
  if (n->n_in != 2 || n->in[0] == YRT_NONE || n->in[1] == YRT_NONE) return 0;
  const yrt_tensor_rec *y = &m->tensors[n->out[0]];
  if (y->dtype != YRT_I8 || y->rank != 4 || y->dims[0] != 1) return 0;
  for (uint32_t k = 0; k < 2; k++) {
    const yrt_tensor_rec *x = &m->tensors[n->in[k]];
    if (x->dtype != YRT_I8 || x->rank != 4) return 0;
    for (int d = 0; d < 4; d++)
      if (x->dims[d] != y->dims[d]) return 0;
  }
  return 1;
}

int yrt_binary_view_in(const yrt_model *m, const yrt_node_rec *n, uint32_t k) {
  return k < 2 && yrt_binary_takes_views(m, n);
}
