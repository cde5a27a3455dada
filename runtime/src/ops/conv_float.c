/* conv_float.c — YRT_OP_CONV2D's float path (ops/conv.c dispatches here): an XNNPACK f32
 * operator (xnn_backend.h) created once on the arena pointers, else the scalar reference; relu
 * through the output clamp, another activation as a pass over the pool that can also measure
 * the output's range (publish_range). The activation pass is shared with the int8-to-float
 * path (conv_int8.c), which runs it piece by piece. */
#include <math.h>
#include <stdint.h>

#include "conv_paths.h"
#include "kernel_kinds.h"

void yrt_conv_act_range(const void *ctx, size_t lo, size_t hi) {
  const act_ctx *t = ctx;
  if (!t->lohi) {
    yk_unary_f32(&t->s->isa, t->act, 0.0f, t->y + lo, t->y + lo, hi - lo);
    return;
  }
  float l = 0.0f, h = 0.0f;
  for (size_t b = lo; b < hi; b += ACT_BLOCK) {
    const size_t n = hi - b < ACT_BLOCK ? hi - b : ACT_BLOCK;
    float bl, bh;
    yk_unary_f32(&t->s->isa, t->act, 0.0f, t->y + b, t->y + b, n);
    yk_minmax_f32(&t->s->isa, t->y + b, n, &bl, &bh);
    l = bl < l ? bl : l;
    h = bh > h ? bh : h;
  }
  t->lohi[2 * (lo / t->chunk)] = l;
  t->lohi[2 * (lo / t->chunk) + 1] = h;
}

/* The activation pass of a float conv over the pool: SiLU after a large float conv (the
 * --float-stem layers: 1.6M values after the first conv at 640) costs as much as the conv on
 * one thread. Chunks of whole 64-value blocks; SIMD and scalar tails compute alike. With
 * e->pub_range, the same pass measures the output's range for a dynamically quantized
 * consumer (which then skips its own pass over this tensor). */
void yrt_conv_act_pass(const yrt_session *s, yrt_exec *e, float *y, size_t n) {
  const yrt_exec_conv *c = yrt_conv_state(e);
  const size_t threads = yrt_par_threads(&s->par);
  const size_t tasks = threads < 2 || n < 2 * YRT_PAR_MIN_ELEMS ? 1 : 4 * threads;
  float lohi[2 * YRT_RANGE_SLOTS];
  act_ctx t = {s, c->act, y, 0, e->pub_range ? lohi : NULL};
  t.chunk = yrt_par_chunk(n, tasks, (n + YRT_RANGE_SLOTS - 1) / YRT_RANGE_SLOTS, 64);
  if (!t.chunk) t.chunk = 1;
  const size_t ranges = (n + t.chunk - 1) / t.chunk;
  yrt_par_ranges(ranges > 1 ? &s->par : NULL, n, t.chunk, yrt_conv_act_range, &t);
  if (e->pub_range) yrt_range_fold(lohi, ranges, &e->y_lo, &e->y_hi);
}

yrt_status yrt_run_conv_f32(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  const yrt_exec_conv *c = yrt_conv_state(e);
  if (c->op) {
    const int xs = yrt_xnn_conv_run(c->op, s->pool);
    if (xs != 0) return yrt_set_error(err, YRT_ERR_BACKEND, "yrt: xnn_run_operator (conv f32) failed: %d", xs);
  } else {
    yrt_conv_ref_f32(&c->g, e->in[0], e->in[1], e->in[2], c->f_min, c->f_max, e->out);
  }
  if (c->act != YRT_UNARY_NONE) yrt_conv_act_pass(s, (yrt_exec *)e, e->out, c->out_numel); /* its range: run state */
  return YRT_OK;
}

/* The conv's geometry as XNNPACK takes it. */
yrt_xnn_conv_desc yrt_conv_xnn_desc(const yrt_node_rec *n, const yrt_conv_geom *g, size_t x_stride, size_t y_stride) {
  yrt_xnn_conv_desc d = {
      (uint32_t)n->p[YRT_CONV_P_PAD_T], (uint32_t)n->p[YRT_CONV_P_PAD_R], (uint32_t)n->p[YRT_CONV_P_PAD_B],
      (uint32_t)n->p[YRT_CONV_P_PAD_L], (uint32_t)g->kh, (uint32_t)g->kw, (uint32_t)g->sh, (uint32_t)g->sw,
      (uint32_t)g->dh, (uint32_t)g->dw, (uint32_t)g->groups, (size_t)(g->cin / g->groups),
      (size_t)(g->cout / g->groups), x_stride, y_stride, (size_t)g->n, (size_t)g->h, (size_t)g->w};
  return d;
}

yrt_status yrt_conv_prepare_f32(yrt_session *s, yrt_exec *e) {
  yrt_exec_conv *c = yrt_conv_state(e);
  const yrt_node_rec *n = e->node;
  const int act = n->p[YRT_CONV_P_ACT];
  c->f_min = -INFINITY;
  c->f_max = INFINITY;
  c->act = YRT_UNARY_NONE;
  if (act == YRT_UNARY_RELU) c->f_min = 0.0f;
  else if (act != YRT_UNARY_NONE && act != YRT_UNARY_IDENTITY) c->act = act;
  const yrt_conv_geom *g = &c->g;
  const yrt_xnn_conv_desc d = yrt_conv_xnn_desc(n, g, (size_t)g->cin, (size_t)g->cout);
  /* a session with a caller allocator takes no XNNPACK operator (its memory is XNNPACK's) */
  c->op = s->alloc ? NULL : yrt_xnn_conv_f32(&d, e->in[1], e->in[2], c->f_min, c->f_max, e->in[0], e->out, yrt_session_xnn_pool(s));
  if (c->op) return YRT_OK;
  c->op = NULL; /* the reference handles any validated shape */
  return YRT_OK;
}
