/* auto_mixed.c — see auto_mixed.h. */
#include "auto_mixed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "file_list.h"
#include "ir.h"
#include "node_cost.h"
#include "onnx_ops.h"
#include "onnx_reader.h"
#include "onnx_write.h"
#include "output_error.h"

#define NOMEM(err) yrt_set_error(err, YRT_ERR_NOMEM, "auto-mixed: out of memory")
/* candidates measured with the chosen set per step (the best by their own benefit per ms) */
#define AUTO_MIXED_ROUND 4

static char *xdup(const char *s) {
  const size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static void free_names(char **v) {
  for (int i = 0; v && v[i]; i++) free(v[i]);
  free(v);
}

yrt_status auto_mixed_subset(const Onnx__ModelProto *m, const calib_result *r, const calib_options *o,
                             calib_result *out, yrt_error *err) {
  memset(out, 0, sizeof *out);
  char **names = NULL;
  int n = 0;
  yrt_status st = calib_select_tensors(m, o->exclude, &names, &n, &out->tie, &out->silu_out,
                                       !o->no_concat_ties, err);
  out->silu_range = r->silu_range;
  out->images = r->images;
  if (!st && !(out->t = calloc((size_t)n + 1, sizeof(calib_tensor)))) st = NOMEM(err);
  if (!st && r->factor && !(out->factor = malloc(sizeof(float) * ((size_t)n + 1)))) st = NOMEM(err);
  for (int i = 0; !st && i < n; i++) {
    int at = -1;
    for (int k = 0; k < r->n && at < 0; k++)
      if (!strcmp(r->t[k].name, names[i])) at = k;
    if (at < 0) {
      st = yrt_set_error(err, YRT_ERR_INVALID_ARG, "auto-mixed: tensor '%s' was not observed in calibration",
                         names[i]);
      break;
    }
    out->t[i] = r->t[at];
    out->t[i].name = names[i];
    if (out->factor) out->factor[i] = r->factor[at]; /* --range-search's, by name */
    names[i] = NULL;
    out->n = i + 1;
  }
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  if (st) calib_result_free(out);
  return st;
}

/* o->exclude followed by extra (both NULL-terminated, may be NULL); the strings are not copied. */
static const char **join(const char *const *a, const char *const *b) {
  int na = 0, nb = 0;
  while (a && a[na]) na++;
  while (b && b[nb]) nb++;
  const char **v = calloc((size_t)(na + nb) + 1, sizeof(char *));
  for (int i = 0; v && i < na; i++) v[i] = a[i];
  for (int i = 0; v && i < nb; i++) v[na + i] = b[i];
  return v;
}

/* The QDQ model with `excl` in float, from the shared calibration. */
static yrt_status build_qdq(const uint8_t *folded, size_t size, const calib_result *r, const calib_options *o,
                            const auto_mixed_options *ao, const char *const *excl, Onnx__ModelProto **out,
                            yrt_error *err) {
  Onnx__ModelProto *m = NULL;
  calib_options o2 = *o;
  o2.exclude = excl;
  calib_result r2;
  memset(&r2, 0, sizeof r2);
  yrt_status st = onnx_model_load_memory(folded, size, &m, err);
  if (!st) st = auto_mixed_subset(m, r, &o2, &r2, err);
  if (!st) {
    calib_choose(&r2, ao->method, ao->percentile);
    st = calib_write_qdq(m, &r2, &o2, err);
  }
  calib_result_free(&r2);
  if (st) {
    onnx_model_free(m);
    m = NULL;
  }
  *out = m;
  return st;
}

static int is_silu_pair(const ir_graph *g, int y, int *sig, int *mul) {
  int cons[4];
  if (y < 0 || g->tensors[y].is_output || ir_consumers(g, y, cons, 4) != 2) return 0;
  for (int k = 0; k < 2; k++) {
    const ir_node *s = &g->nodes[cons[k]], *m = &g->nodes[cons[1 - k]];
    if (!ir_node_is_op(s, ONNX_OP_SIGMOID) || !ir_node_is_op(m, ONNX_OP_MUL) || s->n_out < 1) continue;
    if (s->in[0] != y || m->n_in != 2) continue;
    if (!((m->in[0] == y && m->in[1] == s->out[0]) || (m->in[1] == y && m->in[0] == s->out[0]))) continue;
    *sig = cons[k];
    *mul = cons[1 - k];
    return 1;
  }
  return 0;
}

static int observed(const calib_result *r, const char *t) {
  for (int k = 0; k < r->n; k++)
    if (!strcmp(r->t[k].name, t)) return 1;
  return 0;
}

/* Candidates: each int8 conv (not fp32 after the exclusions, its input quantized), with its SiLU. */
static yrt_status candidates(const uint8_t *folded, size_t size, const calib_result *r, const calib_options *o,
                             mixed_candidate **out, int *n_out, yrt_error *err) {
  Onnx__ModelProto *m = NULL;
  ir_graph *g = NULL;
  *out = NULL;
  *n_out = 0;
  yrt_status st = onnx_model_load_memory(folded, size, &m, err);
  if (!st) st = onnx_model_to_ir(m, &g, err);
  onnx_model_free(m);
  if (!st) st = yrt_convert_prepare_float(g, err);
  if (!st) st = ir_mark_fp32_region(g, o->exclude, err);
  mixed_candidate *c = NULL;
  if (!st && !(c = calloc((size_t)g->n_nodes + 1, sizeof *c))) st = NOMEM(err);
  int n = 0;
  for (int i = 0; !st && i < g->n_nodes; i++) {
    const ir_node *nd = &g->nodes[i];
    if (nd->dead || nd->fp32 || !ir_node_is_op(nd, ONNX_OP_CONV) || !nd->name || !nd->name[0] || nd->n_in < 1 ||
        nd->in[0] < 0 || nd->n_out < 1 || !observed(r, g->tensors[nd->in[0]].name))
      continue;
    int sig = -1, mul = -1;
    const int silu = is_silu_pair(g, nd->out[0], &sig, &mul) && g->nodes[sig].name[0] && g->nodes[mul].name[0];
    mixed_candidate *k = &c[n++];
    k->group = calloc(4, sizeof(char *));
    k->node = xdup(nd->name);
    if (!k->group || !k->node || !(k->group[0] = xdup(nd->name))) st = NOMEM(err);
    if (!st && silu && (!(k->group[1] = xdup(g->nodes[sig].name)) || !(k->group[2] = xdup(g->nodes[mul].name))))
      st = NOMEM(err);
  }
  ir_graph_free(g);
  *out = c;
  *n_out = n;
  return st;
}

/* The chosen groups' node names in the order chosen, then `extra`'s (-1: none). */
static const char **chosen_names_plus(const mixed_candidate *c, int n, int extra) {
  int total = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; (c[i].chosen || i == extra) && c[i].group[j]; j++) total++;
  const char **v = calloc((size_t)total + 1, sizeof(char *));
  int k = 0;
  for (int r = 1; v && r <= n; r++)
    for (int i = 0; i < n; i++)
      if (c[i].chosen && c[i].rank == r)
        for (int j = 0; c[i].group[j]; j++) v[k++] = c[i].group[j];
  for (int j = 0; v && extra >= 0 && c[extra].group[j]; j++) v[k++] = c[extra].group[j];
  return v;
}

static const char **chosen_names(const mixed_candidate *c, int n) { return chosen_names_plus(c, n, -1); }

/* mixed_select's marginal: the error of the chosen set plus candidate i, measured. */
typedef struct marginal_ctx {
  const uint8_t *folded;
  size_t size;
  const calib_result *r;
  const calib_options *o;
  const auto_mixed_options *ao;
  const output_ref *ref;
  double noise0;   /* all-int8 error */
  double current;  /* the chosen set's error */
  int n_chosen;    /* chosen when `current` was set */
  double *err_of;  /* [n]: the error of set + i, last measured */
  int tried;
  yrt_status status;
  yrt_error *err;
} marginal_ctx;

static int marginal(void *vctx, const mixed_candidate *c, int n, int i, double *removed) {
  marginal_ctx *x = vctx;
  int chosen = 0, last = -1;
  for (int k = 0; k < n; k++)
    if (c[k].chosen) {
      chosen++;
      if (last < 0 || c[k].rank > c[last].rank) last = k;
    }
  if (chosen != x->n_chosen && last >= 0) { /* a candidate was added since: the set's error is its */
    x->current = x->err_of[last];
    x->n_chosen = chosen;
  }
  const char **names = chosen_names_plus(c, n, i);
  const char **excl = names ? join(x->o->exclude, names) : NULL;
  Onnx__ModelProto *q = NULL;
  double e = 0;
  yrt_status st = (!names || !excl) ? NOMEM(x->err) : YRT_OK;
  if (!st) st = build_qdq(x->folded, x->size, x->r, x->o, x->ao, excl, &q, x->err);
  if (!st) st = output_ref_error(x->ref, q, excl, &e, x->err);
  onnx_model_free(q);
  free(names);
  free((void *)excl);
  if (st) {
    x->status = st;
    return 1;
  }
  x->tried++;
  x->err_of[i] = e;
  *removed = x->noise0 > 0 ? (x->current - e) / x->noise0 : 0;
  if (!x->o->quiet)
    fprintf(stderr, "auto-mixed: %d chosen + %-48s error %.2f dB (%+.1f%%)\n", chosen, c[i].node, output_ref_db(e),
            100.0 * *removed);
  return 0;
}

/* Error and cost of the chosen set together. */
static yrt_status measure_set(const uint8_t *folded, size_t size, const calib_result *r, const calib_options *o,
                              const auto_mixed_options *ao, const output_ref *ref, node_cost *nc,
                              const mixed_candidate *c, int n, double *db, double *cost, yrt_error *err) {
  const char **names = chosen_names(c, n);
  const char **excl = names ? join(o->exclude, names) : NULL;
  if (!names || !excl) {
    free(names);
    return NOMEM(err);
  }
  Onnx__ModelProto *q = NULL;
  double e = 0;
  yrt_status st = build_qdq(folded, size, r, o, ao, excl, &q, err);
  if (!st) st = output_ref_error(ref, q, excl, &e, err);
  if (!st) *db = output_ref_db(e);
  if (!st && names[0]) st = node_cost_measure(nc, q, excl, names, cost, NULL, err);
  else if (!st) *cost = 0;
  onnx_model_free(q);
  free(names);
  free((void *)excl);
  return st;
}

yrt_status auto_mixed_run(const uint8_t *folded, size_t folded_size, const calib_result *r,
                          const calib_options *o, const auto_mixed_options *ao, auto_mixed_result *res,
                          yrt_error *err) {
  memset(res, 0, sizeof *res);
  output_ref ref;
  memset(&ref, 0, sizeof ref);
  node_cost nc;
  memset(&nc, 0, sizeof nc);
  int nc_open = 0;
  Onnx__ModelProto *fm = NULL, *q0 = NULL;
  double noise0 = 0;
  yrt_status st = candidates(folded, folded_size, r, o, &res->c, &res->n, err);
  if (!st && res->n == 0)
    st = yrt_set_error(err, YRT_ERR_INVALID_ARG, "auto-mixed: no int8 convolution to choose from");
  /* the float reference and the all-int8 model */
  if (!st) st = onnx_model_load_memory(folded, folded_size, &fm, err);
  if (!st) st = output_ref_open(&ref, fm, ao->images, ao->max_images, o->threads, err);
  onnx_model_free(fm);
  if (!st && ref.tensor && !(res->tensor = xdup(ref.tensor))) st = NOMEM(err);
  if (!st) st = build_qdq(folded, folded_size, r, o, ao, o->exclude, &q0, err);
  if (!st) st = output_ref_error(&ref, q0, o->exclude, &noise0, err);
  if (!st) {
    res->s.int8_db = output_ref_db(noise0);
    if (!o->quiet)
      fprintf(stderr, "auto-mixed: all-int8 output error %.2f dB below the signal on %d images; %d candidate layers\n",
              res->s.int8_db, ref.images, res->n);
  }
  /* benefit of each candidate alone */
  const double t0 = progress_clock();
  for (int i = 0; !st && i < res->n; i++) {
    mixed_candidate *c = &res->c[i];
    const char **excl = join(o->exclude, (const char *const *)c->group);
    Onnx__ModelProto *q = NULL;
    double e = 0;
    if (!excl) st = NOMEM(err);
    if (!st) st = build_qdq(folded, folded_size, r, o, ao, excl, &q, err);
    if (!st) st = output_ref_error(&ref, q, excl, &e, err);
    if (!st) {
      c->benefit = noise0 > 0 ? (noise0 - e) / noise0 : 0;
      c->gain_db = output_ref_db(e) - res->s.int8_db;
    }
    onnx_model_free(q);
    free((void *)excl);
    if (!o->quiet) progress_bar(i + 1, res->n, "auto-mixed: error", t0);
  }
  /* cost of the most beneficial */
  if (!st) {
    st = node_cost_open(&nc, q0, o->exclude, ao->runs, ao->threads, err);
    nc_open = !st;
  }
  int *order = NULL;
  if (!st && !(order = malloc(sizeof(int) * (size_t)res->n))) st = NOMEM(err);
  int to_time = 0;
  if (!st) {
    for (int i = 0; i < res->n; i++) order[i] = i;
    for (int i = 1; i < res->n; i++) /* by benefit, descending; stable */
      for (int j = i; j > 0 && res->c[order[j]].benefit > res->c[order[j - 1]].benefit; j--) {
        const int t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    for (int i = 0; i < res->n && res->c[order[i]].benefit > 0; i++) to_time++;
    if (ao->timed > 0 && to_time > ao->timed) to_time = ao->timed;
  }
  const double t1 = progress_clock();
  for (int k = 0; !st && k < to_time; k++) {
    mixed_candidate *c = &res->c[order[k]];
    const char **excl = join(o->exclude, (const char *const *)c->group);
    Onnx__ModelProto *q = NULL;
    if (!excl) st = NOMEM(err);
    if (!st) st = build_qdq(folded, folded_size, r, o, ao, excl, &q, err);
    if (!st) st = node_cost_measure(&nc, q, excl, (const char *const *)c->group, &c->cost_ms, NULL, err);
    c->measured = !st;
    onnx_model_free(q);
    free((void *)excl);
    if (!o->quiet) progress_bar(k + 1, to_time, "auto-mixed: latency", t1);
  }
  free(order);
  /* choose, then check the set together */
  if (!st) {
    res->s.int8_ms = nc.base_ms;
    res->s.budget_ms = ao->budget_ms >= 0 ? ao->budget_ms : ao->budget_pct / 100.0 * nc.base_ms;
    res->s.budget_pct = nc.base_ms > 0 ? 100.0 * res->s.budget_ms / nc.base_ms : 0;
    marginal_ctx mc = {folded, folded_size, r, o, ao, &ref, noise0, noise0, 0, NULL, 0, YRT_OK, err};
    if (!(mc.err_of = calloc((size_t)res->n, sizeof(double)))) st = NOMEM(err);
    if (!st && mixed_select(res->c, res->n, res->s.budget_ms, AUTO_MIXED_ROUND, marginal, &mc, &res->s.predicted_ms) < 0)
      st = mc.status;
    res->s.tried = mc.tried;
    free(mc.err_of);
  }
  if (!st) {
    st = measure_set(folded, folded_size, r, o, ao, &ref, &nc, res->c, res->n, &res->s.mixed_db,
                     &res->s.measured_ms, err);
    while (!st && res->s.measured_ms > res->s.budget_ms && mixed_unchoose_last(res->c, res->n) >= 0) {
      if (!o->quiet)
        fprintf(stderr, "auto-mixed: the chosen set costs %.3f ms together (budget %.3f): dropping the last\n",
                res->s.measured_ms, res->s.budget_ms);
      res->s.predicted_ms = 0;
      for (int i = 0; i < res->n; i++)
        if (res->c[i].chosen) res->s.predicted_ms += res->c[i].cost_ms > 0 ? res->c[i].cost_ms : 0;
      st = measure_set(folded, folded_size, r, o, ao, &ref, &nc, res->c, res->n, &res->s.mixed_db,
                       &res->s.measured_ms, err);
    }
  }
  if (!st) {
    const char **names = chosen_names(res->c, res->n);
    int k = 0;
    while (names && names[k]) k++;
    res->keep = names ? calloc((size_t)k + 1, sizeof(char *)) : NULL;
    if (!res->keep) st = NOMEM(err);
    for (int i = 0; !st && i < k; i++)
      if (!(res->keep[i] = xdup(names[i]))) st = NOMEM(err);
    free(names);
  }
  res->s.tensor = res->tensor;
  res->s.images = ref.images;
  res->s.runs = ao->runs;
  res->s.threads = ao->threads;
  res->s.candidates = res->n;
  res->s.timed = to_time;
  if (nc_open) node_cost_close(&nc);
  onnx_model_free(q0);
  output_ref_close(&ref);
  if (st) auto_mixed_result_free(res);
  return st;
}

void auto_mixed_result_free(auto_mixed_result *res) {
  for (int i = 0; res->c && i < res->n; i++) {
    free(res->c[i].node);
    free_names(res->c[i].group);
  }
  free(res->c);
  free(res->tensor);
  free_names(res->keep);
  memset(res, 0, sizeof *res);
}
