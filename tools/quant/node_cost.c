/* node_cost.c — see node_cost.h. */
#include "node_cost.h"

#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "ir.h"
#include "onnx_write.h"

static yrt_status session_open(node_cost_session *s, const Onnx__ModelProto *q, const char *const *keep,
                               int runs, int threads, yrt_error *err) {
  memset(s, 0, sizeof *s);
  uint8_t *bytes = NULL;
  size_t size = 0;
  ir_graph *g = NULL;
  void *yrt = NULL;
  size_t ysize = 0;
  yrt_status st = onnx_model_pack(q, &bytes, &size, err);
  if (!st) st = onnx_read_memory(bytes, size, &g, err);
  free(bytes);
  yrt_convert_options co = {.keep_fp32 = keep, .source = "auto-mixed"};
  if (!st) st = yrt_convert_graph(g, &co, &yrt, &ysize, NULL, err);
  ir_graph_free(g);
  if (!st) st = yrt_model_load_memory(yrt, ysize, 1, &s->model, err);
  free(yrt);
  yrt_session_options so;
  yrt_session_options_init(&so);
  so.num_threads = threads;
  if (!st) st = yrt_session_create(s->model, &so, &s->session, err);
  if (!st) {
    yrt_session_set_profiling(s->session, 1);
    s->n = yrt_session_node_times(s->session, NULL, 0);
    s->ns = calloc((size_t)runs * (size_t)(s->n > 0 ? s->n : 1), sizeof(uint64_t));
    if (!s->ns) st = yrt_set_error(err, YRT_ERR_NOMEM, "auto-mixed: out of memory");
  }
  /* a fixed input: float and int8 kernels take the same time whatever the pixels */
  float *in = !st ? yrt_session_input_nhwc(s->session, 0) : NULL;
  const size_t cnt = !st ? yrt_session_input_count(s->session, 0) : 0;
  for (size_t i = 0; in && i < cnt; i++) in[i] = (float)((i * 37) % 251) / 250.0f;
  if (!st) st = yrt_session_run(s->session, err); /* warm-up: caches, lazy pages */
  if (st) {
    yrt_session_free(s->session);
    yrt_model_free(s->model);
    free(s->ns);
    memset(s, 0, sizeof *s);
  }
  return st;
}

static void session_close(node_cost_session *s) {
  yrt_session_free(s->session);
  yrt_model_free(s->model);
  free(s->ns);
  memset(s, 0, sizeof *s);
}

static yrt_status session_run(node_cost_session *s, int r, yrt_error *err) {
  yrt_status st = yrt_session_run(s->session, err);
  if (!st) yrt_session_node_times(s->session, s->ns + (size_t)r * (size_t)s->n, s->n);
  return st;
}

/* Node i's time (ns) over the runs, or the summed times' with i = -1: the fastest run. Other
 * processes only ever add time (a descheduled thread, a cache flushed by a neighbour), so the
 * minimum is what the model costs; with medians, yolo11n at 2 threads under a load of 10 on 2
 * cores measured 64.6 ms for a set of two layers whose own costs were 0.2 and 2.1 ms. */
static double run_ns(const node_cost_session *s, int runs, int i) {
  double best = -1;
  for (int r = 0; r < runs; r++) {
    const uint64_t *row = s->ns + (size_t)r * (size_t)s->n;
    uint64_t v = 0;
    if (i >= 0) v = row[i];
    else
      for (int k = 0; k < s->n; k++) v += row[k];
    if (best < 0 || (double)v < best) best = (double)v;
  }
  return best < 0 ? 0 : best;
}

yrt_status node_cost_open(node_cost *c, const Onnx__ModelProto *q, const char *const *keep_fp32, int runs,
                          int threads, yrt_error *err) {
  memset(c, 0, sizeof *c);
  if (runs < 1) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "auto-mixed: profiled runs must be >= 1");
  c->runs = runs;
  c->threads = threads;
  yrt_status st = session_open(&c->base, q, keep_fp32, runs, threads, err);
  for (int r = 0; !st && r < runs; r++) st = session_run(&c->base, r, err);
  if (!st) c->base_ms = run_ns(&c->base, runs, -1) * 1e-6;
  if (st) node_cost_close(c);
  return st;
}

static int listed(const char *const *names, const char *s) {
  for (int i = 0; names && names[i]; i++)
    if (!strcmp(names[i], s)) return 1;
  return 0;
}

static int same_node(const yrt_session *a, int i, const yrt_session *b, int j) {
  const char *na = yrt_session_node_name(a, i), *nb = yrt_session_node_name(b, j);
  const char *ka = yrt_session_node_kind(a, i), *kb = yrt_session_node_kind(b, j);
  return na && nb && ka && kb && !strcmp(na, nb) && !strcmp(ka, kb);
}

yrt_status node_cost_measure(node_cost *c, const Onnx__ModelProto *q2, const char *const *keep_fp32,
                             const char *const *changed, double *cost_ms, double *total_ms, yrt_error *err) {
  node_cost_session s;
  yrt_status st = session_open(&s, q2, keep_fp32, c->runs, c->threads, err);
  if (st) return st;
  /* alternate: the machine's speed drifts, both models see the same drift */
  for (int r = 0; !st && r < c->runs; r++) {
    st = session_run(&c->base, r, err);
    if (!st) st = session_run(&s, r, err);
  }
  char *mb = calloc((size_t)(c->base.n > 0 ? c->base.n : 1), 1), *ms = calloc((size_t)(s.n > 0 ? s.n : 1), 1);
  if (!st && (!mb || !ms)) st = yrt_set_error(err, YRT_ERR_NOMEM, "auto-mixed: out of memory");
  if (!st) {
    /* pair the nodes both run alike (same name and kind, not made float), in order */
    for (int j = 0; j < s.n; j++) {
      const char *nm = yrt_session_node_name(s.session, j);
      if (nm && listed(changed, nm)) continue;
      for (int i = 0; i < c->base.n; i++)
        if (!mb[i] && same_node(c->base.session, i, s.session, j)) {
          mb[i] = ms[j] = 1;
          break;
        }
    }
    double d = 0;
    for (int j = 0; j < s.n; j++)
      if (!ms[j]) d += run_ns(&s, c->runs, j);
    for (int i = 0; i < c->base.n; i++)
      if (!mb[i]) d -= run_ns(&c->base, c->runs, i);
    *cost_ms = d * 1e-6;
    if (total_ms) *total_ms = run_ns(&s, c->runs, -1) * 1e-6;
  }
  free(mb);
  free(ms);
  session_close(&s);
  return st;
}

void node_cost_close(node_cost *c) {
  session_close(&c->base);
  memset(c, 0, sizeof *c);
}
