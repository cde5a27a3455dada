/* op_run.c — the run helpers every kind shares (op_run.h). */
#include "op_run.h"

#include "op_def.h"

void yrt_run_par(const yrt_session *s, const yrt_exec *e, yrt_range_fn fn, size_t n, size_t unit_elems) {
  const yrt_node_ctx t = {s, e};
  const size_t threads = yrt_par_threads(&s->par);
  if (threads < 2 || n < 2 || n * unit_elems < 2 * YRT_PAR_MIN_ELEMS) {
    fn(&t, 0, n);
    return;
  }
  const size_t min_chunk = (YRT_PAR_MIN_ELEMS / 4 + unit_elems - 1) / unit_elems;
  const size_t chunk = yrt_par_chunk(n, 4 * threads, min_chunk, unit_elems == 1 ? 64 : 1);
  yrt_par_ranges(&s->par, n, chunk, fn, &t);
}

/* Product of dims [from, to) of t. */
size_t yrt_dims_product(const yrt_tensor_rec *t, uint32_t from, uint32_t to) {
  size_t p = 1;
  for (uint32_t d = from; d < to && d < t->rank; d++) p *= (size_t)t->dims[d];
  return p;
}

/* ---- publishing an f32 output's range (a dynamically quantized consumer's input, ops/conv_dynamic.c) */

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

void yrt_run_par_out(const yrt_session *s, const yrt_exec *e, yrt_range_fn fn, size_t n, size_t unit_elems) {
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

void yrt_measure_out(const yrt_session *s, const yrt_exec *e) {
  if (!e->pub_range) return;
  float lohi[2];
  yk_minmax_f32(&s->isa, e->out, e->numel, &lohi[0], &lohi[1]);
  yrt_exec *w = (yrt_exec *)e;
  yrt_range_fold(lohi, 1, &w->y_lo, &w->y_hi);
}

int yrt_publish_range(const yrt_session *s, yrt_exec *p) {
  if (p->esize != 4 || !p->node) return 0;
  const yrt_op_def *d = yrt_op_lookup(s->model->ops, p->node->op);
  return d && d->publish_range ? d->publish_range(p) : 0;
}

int yrt_publish_when_run_by(yrt_exec *e, yrt_exec_fn run) {
  if (e->run != run) return 0;
  e->pub_range = 1;
  return 1;
}

yrt_status yrt_run_nothing(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)e, (void)err;
  return YRT_OK;
}

int yrt_tensor_uses(const yrt_model *m, uint32_t t) {
  int k = 0;
  for (uint32_t i = 0; i < m->n_nodes; i++)
    for (uint32_t j = 0; j < m->nodes[i].n_in; j++) k += m->nodes[i].in[j] == t;
  for (uint32_t o = 0; o < m->plan->n_outputs; o++) k += m->plan_outputs[o] == t;
  return k;
}
