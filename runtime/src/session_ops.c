/* session_ops.c — the light kinds not yet in a room of their own (runtime/src/ops/): binary,
 * unary, lut, concat, slice, quantize, dequantize, and the published-range machinery they share
 * with conv. Shapes and parameters worked out once from the validated records (prepare), then a
 * runner that only calls the yk_* kernel, over the thread pool where it pays. */
#include <stdlib.h>
#include <string.h>

#include "kernel_kinds.h"
#include "op_table.h"
#include "ops/op_run.h"
#include "session_internal.h"
#include "session_par.h"


/* Element ranges [lo, hi) of the flat element-wise kinds. */
static void unary_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_unary_f32(&t->s->isa, e->node->p[0], e->node->f[0], (const float *)e->in[0] + lo, (float *)e->out + lo,
               hi - lo);
}

static void lut_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_lut_i8(&t->s->isa, (const int8_t *)e->in[0] + lo, (int8_t *)e->out + lo, hi - lo, e->in[1]);
}

static void quantize_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_quantize_f32_i8(&t->s->isa, (const float *)e->in[0] + lo, (int8_t *)e->out + lo, hi - lo, e->q[2].scale,
                     e->q[2].zero_point);
}

static void dequantize_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_dequantize_i8_f32(&t->s->isa, (const int8_t *)e->in[0] + lo, (float *)e->out + lo, hi - lo, e->q[0].scale,
                       e->q[0].zero_point);
}

/* Rows [lo, hi) of the outer loop of a concat. */
static void concat_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_session *s = ((const yrt_node_ctx *)ctx)->s;
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  const yrt_exec_concat *c = &e->u.concat;
  const void *in[YRT_MAX_NODE_IO];
  size_t total = 0;
  for (int k = 0; k < c->n; k++) {
    in[k] = c->in_place[k] ? NULL : (const uint8_t *)e->in[k] + lo * c->inner[k] * e->esize;
    total += c->inner[k];
  }
  void *out = (uint8_t *)e->out + lo * total * e->esize;
  if (e->esize == 1)
    yk_concat_i8(&s->isa, (const int8_t *const *)in, c->qx, c->inner, c->n, hi - lo, out, e->q[2]);
  else
    yk_concat(in, c->inner, c->n, hi - lo, out, e->esize);
}

/* Rows [lo, hi) of axis 1 of a slice whose output has a leading dim of 1 (an NHWC Split). */
static void slice_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  int64_t starts[YK_MAX_RANK];
  memcpy(starts, e->u.slice.starts, sizeof starts);
  starts[1] += (int64_t)lo * e->u.slice.steps[1];
  yk_shape so = e->sh[2];
  so.d[1] = (int64_t)(hi - lo);
  size_t row = 1;
  for (int d = 2; d < so.rank; d++) row *= (size_t)so.d[d];
  yk_slice(e->in[0], &e->sh[0], (uint8_t *)e->out + lo * row * e->esize, &so, starts, e->u.slice.steps,
           e->esize);
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


/* ---- publishing an f32 output's range (a dynamically quantized consumer's input, session_conv.c) */

#define RANGE_BLOCK 4096 /* output values written, then measured while still in cache */

typedef struct measured_ctx {
  yrt_node_ctx t;
  yrt_range_fn fn;  /* writes units [lo, hi): output values [lo * unit_elems, hi * unit_elems) */
  size_t unit_elems, chunk;
  float *lohi;      /* [2 * YRT_RANGE_SLOTS] */
} measured_ctx;

static void measured_range(const void *ctx, size_t lo, size_t hi) {
  const measured_ctx *m = ctx;
  const float *y = m->t.e->out;
  const size_t per = m->unit_elems >= RANGE_BLOCK ? 1 : RANGE_BLOCK / m->unit_elems;
  float l = 0.0f, h = 0.0f;
  for (size_t b = lo; b < hi; b += per) {
    const size_t end = hi - b < per ? hi : b + per;
    float bl, bh;
    m->fn(&m->t, b, end);
    yk_minmax_f32(&m->t.s->isa, y + b * m->unit_elems, (end - b) * m->unit_elems, &bl, &bh);
    l = bl < l ? bl : l;
    h = bh > h ? bh : h;
  }
  m->lohi[2 * (lo / m->chunk)] = l; /* each range its own slot */
  m->lohi[2 * (lo / m->chunk) + 1] = h;
}

/* run_par for a kind whose fn writes unit_elems contiguous output values per unit; with
 * e->pub_range, the range of what it wrote is measured block by block and published. */
static void run_par_out(const yrt_session *s, const yrt_exec *e, yrt_range_fn fn, size_t n, size_t unit_elems) {
  if (!e->pub_range) {
    yrt_run_par(s, e, fn, n, unit_elems);
    return;
  }
  const size_t threads = yrt_par_threads(&s->par);
  const int one = threads < 2 || n < 2 || n * unit_elems < 2 * YRT_PAR_MIN_ELEMS;
  const size_t min_chunk = (YRT_PAR_MIN_ELEMS / 4 + unit_elems - 1) / unit_elems;
  size_t chunk = one ? n : yrt_par_chunk(n, 4 * threads, min_chunk, unit_elems == 1 ? 64 : 1);
  if (chunk < (n + YRT_RANGE_SLOTS - 1) / YRT_RANGE_SLOTS) chunk = (n + YRT_RANGE_SLOTS - 1) / YRT_RANGE_SLOTS;
  if (!chunk) chunk = 1;
  float lohi[2 * YRT_RANGE_SLOTS];
  const measured_ctx m = {{s, e}, fn, unit_elems, chunk, lohi};
  const size_t ranges = (n + chunk - 1) / chunk;
  yrt_par_ranges(ranges > 1 ? &s->par : NULL, n, chunk, measured_range, &m);
  yrt_exec *w = (yrt_exec *)e; /* the published range is state of this node's run */
  yrt_range_fold(lohi, ranges, &w->y_lo, &w->y_hi);
}

/* The same for a kind run in one piece: a pass over its output after it. */
static void measure_out(const yrt_session *s, const yrt_exec *e) {
  if (!e->pub_range) return;
  float lohi[2];
  yk_minmax_f32(&s->isa, e->out, e->numel, &lohi[0], &lohi[1]);
  yrt_exec *w = (yrt_exec *)e;
  yrt_range_fold(lohi, 1, &w->y_lo, &w->y_hi);
}

int yrt_publish_range(yrt_exec *p) {
  if (p->esize != 4 || !p->node) return 0;
  const int op = p->node->op;
  if (op == YRT_OP_CONV2D) return yrt_publish_range_conv(p);
  if ((op == YRT_OP_CONCAT && p->run == yrt_run_concat) || (op == YRT_OP_SLICE && p->run == yrt_run_slice) ||
      (op == YRT_OP_BINARY && p->run == yrt_run_binary) || (op == YRT_OP_UNARY && p->run == yrt_run_unary)) {
    p->pub_range = 1;
    return 1;
  }
  return 0;
}

yrt_status yrt_run_binary(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yk_shape *so = &e->sh[2];
  if (so->rank >= 3 && so->d[0] == 1 && so->d[1] > 1) {
    run_par_out(s, e, binary_range, (size_t)so->d[1], e->numel / (size_t)so->d[1]);
    return YRT_OK;
  }
  const yrt_node_ctx t = {s, e};
  binary_range(&t, 0, so->rank >= 2 ? (size_t)so->d[1] : 1);
  measure_out(s, e);
  return YRT_OK;
}

/* Pixels [lo, hi) of an int8 binary run by pixels: on views (same shapes [1, H, W, C], pixel
 * strides), or a fixed-point Add (dense: strides c). */
static void binary_pixels_range(const void *ctx, size_t lo, size_t hi) {
  yrt_binary_pixels(((const yrt_node_ctx *)ctx)->s, ((const yrt_node_ctx *)ctx)->e, lo, hi);
}

void yrt_binary_pixels(const yrt_session *s, const yrt_exec *e, size_t lo, size_t hi) {
  const size_t as = e->u.binview.as, bs = e->u.binview.bs, ys = e->u.binview.ys;
  const int8_t *a = (const int8_t *)e->in[0] + lo * as, *b = (const int8_t *)e->in[1] + lo * bs;
  int8_t *y = (int8_t *)e->out + lo * ys;
  if (e->u.binview.fixed)
    yk_add_i8_fixed_pixels(&s->isa, a, as, b, bs, y, ys, hi - lo, e->u.binview.c, &e->u.binview.fx);
  else
    yk_binary_i8_pixels(&s->isa, e->node->p[0], a, as, e->q[0], b, bs, e->q[1], y, ys, e->q[2], hi - lo,
                        e->u.binview.c);
}

static yrt_status run_binary_pixels(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, binary_pixels_range, e->numel / e->u.binview.c, e->u.binview.c);
  return YRT_OK;
}

yrt_status yrt_run_unary(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  run_par_out(s, e, unary_range, e->numel, 1);
  return YRT_OK;
}

/* A unary node of kind NONE / IDENTITY is a copy: done here, so no kind the kernel has no case
 * for ever reaches yk_unary_f32. */
static yrt_status run_copy(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  if (e->out != e->in[0] && e->numel) memmove(e->out, e->in[0], e->numel * e->esize);
  return YRT_OK;
}

yrt_status yrt_prepare_unary(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  const int32_t kind = e->node->p[0];
  if (kind == YRT_UNARY_NONE || kind == YRT_UNARY_IDENTITY) e->run = run_copy;
  return YRT_OK;
}

yrt_status yrt_run_lut(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, lut_range, e->numel, 1);
  return YRT_OK;
}

yrt_status yrt_run_concat(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_concat *c = &e->u.concat;
  size_t row = 0;
  for (int k = 0; k < c->n; k++) row += c->inner[k];
  run_par_out(s, e, concat_range, c->outer, row);
  return YRT_OK;
}

/* A node that is already done: an in-place slice, a concat whose inputs all are views. */
static yrt_status run_nothing(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)e, (void)err;
  return YRT_OK;
}

/* ---- DQ -> Sigmoid -> Mul: the float SiLU of a dequantized int8 tensor (QDQ exports with Q/DQ
 * only around convs leave it so, e.g. before a float Split or Add). Run at the Mul as one
 * int8 -> float table lookup (yk_lut_build_silu_f32: bit-identical to the three nodes), the DQ
 * and Sigmoid nodes left idle: one pass reading bytes instead of three float passes. */

static void silu_lut_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_lut_i8_f32(&t->s->isa, e->u.silu.x + lo, (float *)e->out + lo, hi - lo, e->u.silu.lut);
}

static yrt_status run_silu_lut(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, silu_lut_range, e->numel, 1);
  return YRT_OK;
}

/* Nodes reading tensor t, plus one if t is a graph output. */
static int uses_of(const yrt_model *m, uint32_t t) {
  int k = 0;
  for (uint32_t i = 0; i < m->n_nodes; i++)
    for (uint32_t j = 0; j < m->nodes[i].n_in; j++) k += m->nodes[i].in[j] == t;
  for (uint32_t o = 0; o < m->plan->n_outputs; o++) k += m->plan_outputs[o] == t;
  return k;
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
    e->u.binview.c = y->rank ? (size_t)y->dims[y->rank - 1] : 1;
    if (!e->u.binview.c) e->u.binview.c = 1;
    e->u.binview.as = yrt_pixel_stride(m, &m->tensors[n->in[0]]);
    e->u.binview.bs = yrt_pixel_stride(m, &m->tensors[n->in[1]]);
    e->u.binview.ys = yrt_pixel_stride(m, y);
    e->u.binview.fixed = fixed;
    if (fixed && yk_add_fixed_params(e->q[0], e->q[1], e->q[2], &e->u.binview.fx) != 0)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: node '%s': fixed-point add with scale ratios past int16",
                           yrt_model_string(m, n->name));
    e->run = run_binary_pixels;
    /* a residual Add right after the conv making one of its inputs: done in the conv's tasks */
    if (i >= 1 && e[-1].node->op == YRT_OP_CONV2D && !yrt_is_view(&m->tensors[e[-1].node->out[0]]) &&
        (n->in[0] == e[-1].node->out[0] || n->in[1] == e[-1].node->out[0]) && n->in[0] != n->in[1] &&
        uses_of(m, e[-1].node->out[0]) == 1 && yrt_conv_take_add(s, &e[-1], e))
      e->run = run_nothing;
    return YRT_OK;
  }
  if (n->p[0] != YRT_BIN_MUL || e->esize != 4 || i < 2) return YRT_OK;
  yrt_exec *sg = e - 1, *dq = e - 2; /* the three in a row: nothing else runs in between */
  if (sg->node->op != YRT_OP_UNARY || sg->node->p[0] != YRT_UNARY_SIGMOID || sg->run != yrt_run_unary ||
      dq->node->op != YRT_OP_DEQUANTIZE || dq->run != yrt_run_dequantize)
    return YRT_OK;
  const uint32_t a = dq->node->out[0], b = sg->node->out[0];
  if (sg->node->in[0] != a || !((n->in[0] == a && n->in[1] == b) || (n->in[0] == b && n->in[1] == a)))
    return YRT_OK;
  if (m->tensors[dq->node->in[0]].dtype != YRT_I8 || dq->numel != e->numel || sg->numel != e->numel ||
      uses_of(m, a) != 2 || uses_of(m, b) != 1)
    return YRT_OK;
  const uint8_t *x = dq->in[0], *y = e->out; /* the Mul reads x after the DQ's slot: not overwritten */
  if (x < y + 4 * e->numel && y < x + e->numel) return YRT_OK;
  float *lut = malloc(256 * sizeof(float));
  if (!lut)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing node '%s'", yrt_model_string(m, n->name));
  yk_lut_build_silu_f32(dq->q[0], lut);
  e->u.silu.x = dq->in[0];
  e->u.silu.lut = lut;
  e->run = run_silu_lut;
  dq->run = sg->run = run_nothing;
  return YRT_OK;
}

void yrt_release_binary(yrt_exec *e) {
  if (e->run == run_silu_lut) free(e->u.silu.lut);
  e->u.silu.lut = NULL;
}

yrt_status yrt_run_slice(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yk_shape *so = &e->sh[2];
  if (so->rank >= 3 && so->d[0] == 1 && so->d[1] > 1) {
    run_par_out(s, e, slice_range, (size_t)so->d[1], e->numel / (size_t)so->d[1]);
    return YRT_OK;
  }
  yk_slice(e->in[0], &e->sh[0], e->out, &e->sh[2], e->u.slice.starts, e->u.slice.steps, e->esize);
  measure_out(s, e);
  return YRT_OK;
}











yrt_status yrt_run_quantize(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, quantize_range, e->numel, 1);
  return YRT_OK;
}

yrt_status yrt_run_dequantize(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, dequantize_range, e->numel, 1);
  return YRT_OK;
}



/* ---- prepare: each kind's parameters from the validated records */

yrt_status yrt_prepare_concat(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *y = &m->tensors[n->out[0]];
  yrt_exec_concat *c = &e->u.concat;
  const uint32_t axis = (uint32_t)n->p[0];
  c->n = (int)n->n_in;
  c->outer = yrt_dims_product(y, 0, axis);
  int copies = 0;
  for (uint32_t k = 0; k < n->n_in; k++) {
    const yrt_tensor_rec *t = &m->tensors[n->in[k]];
    c->inner[k] = yrt_dims_product(t, axis, t->rank);
    c->qx[k] = yrt_qparams_of(t);
    c->in_place[k] = (uint8_t)yrt_concat_slot_in_place(m, n, k);
    copies += !c->in_place[k];
  }
  if (!copies) e->run = run_nothing;
  return YRT_OK;
}

yrt_status yrt_prepare_slice(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &m->tensors[n->in[0]];
  if (yrt_slice_is_in_place(m, n)) e->run = run_nothing;
  for (uint32_t d = 0; d < YK_MAX_RANK; d++) {
    e->u.slice.starts[d] = d < x->rank ? n->p[d] : 0;
    e->u.slice.steps[d] = d < x->rank ? n->p[6 + d] : 1;
  }
  if (yrt_is_view(x)) { /* slice the holder: same elements, its shape and strides */
    const yrt_tensor_rec *h = &m->tensors[x->view_holder - 1];
    yrt_shape_of(h, &e->sh[0]);
    e->in[0] = s->arena + h->offset;
    e->u.slice.starts[3] += x->view_channel;
  }
  return YRT_OK;
}






