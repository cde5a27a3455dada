/* sqnr.c — see sqnr.h. */
#include "sqnr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_ops.h"

#include "file_list.h"
#include "observer.h"

static char *xdup(const char *s) {
  size_t n = strlen(s ? s : "") + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s ? s : "", n);
  return d;
}

void sqnr_free_names(char **names) {
  for (int i = 0; names && names[i]; i++) free(names[i]);
  free(names);
}

void sqnr_report_print(const sqnr_report *r, FILE *f) {
  fprintf(f, "per-layer SQNR, int8 vs float, %d images (drop = worst input SQNR - own)\n", r->images);
  fprintf(f, "  %-48s %-8s %8s %8s\n", "tensor", "op", "SQNR dB", "drop");
  int flagged = 0;
  for (int k = 0; k < r->n; k++) {
    const int bad = r->l[k].db < 15.0;
    flagged += bad;
    fprintf(f, "  %-48.48s %-8s %8.2f %8.2f%s\n", r->l[k].tensor, r->l[k].op, r->l[k].db, r->l[k].drop,
            bad ? "  << under 15 dB" : "");
  }
  fprintf(f, "output0 SQNR %.2f dB; %d layer(s) under 15 dB\n", r->out_db, flagged);
}

void sqnr_report_free(sqnr_report *r) {
  for (int i = 0; r->l && i < r->n; i++) {
    free(r->l[i].tensor);
    free(r->l[i].node);
    free(r->l[i].op);
  }
  free(r->l);
  memset(r, 0, sizeof *r);
}

static double to_db(double s, double n) {
  if (n <= 0) return 100.0;
  if (s <= 0) return -100.0;
  double d = 10.0 * log10(s / n);
  return d > 100.0 ? 100.0 : d;
}

static int is_qdq(const Onnx__NodeProto *n) {
  const onnx_op op = onnx_op_id(n->op_type);
  return op == ONNX_OP_QUANTIZE_LINEAR || op == ONNX_OP_DEQUANTIZE_LINEAR;
}

/* All non-Q/DQ node names: converting with these kept in float gives the float reference.
 * Constant nodes are left out: the converter folds them away, and an exclusion naming no live
 * node is an error (a Focus "contract" Reshape's shape Constant made --report fail). */
static char **all_nodes(const Onnx__ModelProto *m) {
  const Onnx__GraphProto *g = m->graph;
  char **v = calloc(g->n_node + 1, sizeof(char *));
  if (!v) return NULL;
  int k = 0;
  for (size_t i = 0; i < g->n_node; i++) {
    if (is_qdq(g->node[i]) || onnx_op_id(g->node[i]->op_type) == ONNX_OP_CONSTANT || !g->node[i]->name ||
        !g->node[i]->name[0])
      continue;
    if (!(v[k++] = xdup(g->node[i]->name))) {
      sqnr_free_names(v);
      return NULL;
    }
  }
  return v;
}

static int is_initializer(const Onnx__GraphProto *g, const char *name) {
  for (size_t i = 0; i < g->n_initializer; i++)
    if (!strcmp(g->initializer[i]->name, name)) return 1;
  return 0;
}

static const Onnx__NodeProto *producer(const Onnx__GraphProto *g, const char *t) {
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t j = 0; j < g->node[i]->n_output; j++)
      if (!strcmp(g->node[i]->output[j], t)) return g->node[i];
  return NULL;
}

typedef struct pair {
  observer q, f;
  int opened;
} pair;

/* Run both observers over the images, accumulating per tensor (k) and output0 (acc[n]). */
static yrt_status run_pair(pair *p, int n, const sqnr_options *o, double *sig, double *noise,
                           int *images, yrt_error *err) {
  file_list files = {NULL, 0};
  yrt_status st = file_list_images(o->images, &files, err);
  int total = files.n;
  if (o->max_images > 0 && o->max_images < total) total = o->max_images;
  const double t0 = progress_clock();
  for (int i = 0; !st && i < total; i++) {
    st = observer_run_image(&p->q, files.paths[i], err);
    if (!st) st = observer_run_image(&p->f, files.paths[i], err);
    for (int k = -1; !st && k < n; k++) {
      yrt_tensor_view a, b;
      st = observer_get(&p->q, k, &a, err);
      if (!st) st = observer_get(&p->f, k, &b, err);
      if (!st && a.count != b.count)
        st = yrt_set_error(err, YRT_ERR_SHAPE, "sqnr: tensor %d has %zu vs %zu elements", k, a.count,
                           b.count);
      const int slot = k < 0 ? n : k;
      for (size_t e = 0; !st && e < a.count; e++) {
        const double d = (double)a.data[e] - b.data[e];
        sig[slot] += (double)b.data[e] * b.data[e];
        noise[slot] += d * d;
      }
    }
    if (images) *images = i + 1;
    if (!o->quiet) progress_bar(i + 1, total, "sqnr", t0);
  }
  file_list_free(&files);
  return st;
}

static yrt_status open_pair(pair *p, const Onnx__ModelProto *m, char *const *names, int n,
                            const char *const *keep, const sqnr_options *o, yrt_error *err) {
  memset(p, 0, sizeof *p);
  char **all = all_nodes(m);
  if (!all) return yrt_set_error(err, YRT_ERR_NOMEM, "sqnr: out of memory");
  yrt_status st = observer_open(&p->q, m, names, n, keep, o->threads, err);
  if (!st) st = observer_open(&p->f, m, names, n, (const char *const *)all, o->threads, err);
  sqnr_free_names(all);
  if (st) {
    observer_close(&p->q);
    observer_close(&p->f);
  }
  return st;
}

static void close_pair(pair *p) {
  observer_close(&p->q);
  observer_close(&p->f);
}

yrt_status sqnr_measure(const Onnx__ModelProto *m, const sqnr_options *o, sqnr_report *r,
                        yrt_error *err) {
  memset(r, 0, sizeof *r);
  const Onnx__GraphProto *g = m->graph;
  int cap = 0;
  for (size_t i = 0; i < g->n_node; i++) cap += onnx_op_id(g->node[i]->op_type) == ONNX_OP_QUANTIZE_LINEAR;
  if (cap == 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "sqnr: the model has no QuantizeLinear: quantize it first (yolort-quantize)");
  r->l = calloc((size_t)cap, sizeof(sqnr_layer));
  char **names = calloc((size_t)cap + 1, sizeof(char *));
  yrt_status st = (!r->l || !names) ? yrt_set_error(err, YRT_ERR_NOMEM, "sqnr: out of memory") : YRT_OK;
  for (size_t i = 0; !st && i < g->n_node; i++) {
    const Onnx__NodeProto *q = g->node[i];
    if (onnx_op_id(q->op_type) != ONNX_OP_QUANTIZE_LINEAR || !q->n_input || is_initializer(g, q->input[0])) continue;
    const Onnx__NodeProto *pr = producer(g, q->input[0]);
    sqnr_layer *l = &r->l[r->n];
    l->tensor = xdup(q->input[0]);
    l->node = xdup(pr ? pr->name : "");
    l->op = xdup(pr ? pr->op_type : "input");
    names[r->n] = l->tensor;
    r->n++;
    if (!l->tensor || !l->node || !l->op) st = yrt_set_error(err, YRT_ERR_NOMEM, "sqnr: out of memory");
  }
  double *sig = NULL, *noise = NULL;
  if (!st) {
    sig = calloc((size_t)r->n + 1, sizeof(double));
    noise = calloc((size_t)r->n + 1, sizeof(double));
    if (!sig || !noise) st = yrt_set_error(err, YRT_ERR_NOMEM, "sqnr: out of memory");
  }
  pair p;
  int opened = 0;
  if (!st) {
    st = open_pair(&p, m, names, r->n, NULL, o, err);
    opened = !st;
  }
  if (!st) st = run_pair(&p, r->n, o, sig, noise, &r->images, err);
  if (opened) close_pair(&p);
  for (int k = 0; !st && k < r->n; k++) {
    r->l[k].signal = sig[k];
    r->l[k].noise = noise[k];
    r->l[k].db = to_db(sig[k], noise[k]);
  }
  if (!st) r->out_db = to_db(sig[r->n], noise[r->n]);
  /* drop = worst observed input SQNR of the producer minus own */
  for (int k = 0; !st && k < r->n; k++) {
    const Onnx__NodeProto *pr = producer(g, r->l[k].tensor);
    double in_db = 100.0;
    for (size_t j = 0; pr && j < pr->n_input; j++) {
      const char *in = pr->input[j];
      const Onnx__NodeProto *dq = producer(g, in);
      if (dq && onnx_op_id(dq->op_type) == ONNX_OP_DEQUANTIZE_LINEAR) {
        const Onnx__NodeProto *qq = producer(g, dq->input[0]);
        if (qq && onnx_op_id(qq->op_type) == ONNX_OP_QUANTIZE_LINEAR) in = qq->input[0];
      }
      for (int t = 0; t < r->n; t++)
        if (!strcmp(r->l[t].tensor, in) && r->l[t].db < in_db) in_db = r->l[t].db;
    }
    r->l[k].drop = in_db - r->l[k].db;
  }
  free(sig);
  free(noise);
  free(names);
  if (st) sqnr_report_free(r);
  return st;
}

yrt_status sqnr_output(const Onnx__ModelProto *m, const char *const *keep, const sqnr_options *o,
                       double *db, yrt_error *err) {
  pair p;
  yrt_status st = open_pair(&p, m, NULL, 0, keep, o, err);
  if (st) return st;
  double sig = 0, noise = 0;
  sqnr_options q = *o;
  q.quiet = 1;
  st = run_pair(&p, 0, &q, &sig, &noise, NULL, err);
  close_pair(&p);
  if (!st) *db = to_db(sig, noise);
  return st;
}

/* Node names of the group producing tensor t: the producer, and when it is the Mul of a SiLU,
 * the Sigmoid and the Conv before it (through their Q/DQ pairs). */
static int group_of(const Onnx__GraphProto *g, const char *t, const char **out, int cap) {
  int n = 0;
  const Onnx__NodeProto *pr = producer(g, t);
  if (!pr || !pr->name[0]) return 0;
  out[n++] = pr->name;
  if (onnx_op_id(pr->op_type) == ONNX_OP_MUL) {
    for (size_t j = 0; j < pr->n_input && n < cap; j++) {
      const Onnx__NodeProto *a = producer(g, pr->input[j]);
      while (a && is_qdq(a)) a = producer(g, a->input[0]);
      if (a && (onnx_op_id(a->op_type) == ONNX_OP_SIGMOID || onnx_op_id(a->op_type) == ONNX_OP_CONV)) {
        int dup = 0;
        for (int k = 0; k < n; k++) dup |= !strcmp(out[k], a->name);
        if (!dup && n < cap) out[n++] = a->name;
      }
    }
  }
  return n;
}

yrt_status sqnr_auto_mixed(const Onnx__ModelProto *m, const sqnr_report *r, double budget_db,
                           int max_groups, const sqnr_options *o, char ***keep, double *final_db,
                           yrt_error *err) {
  const Onnx__GraphProto *g = m->graph;
  int *order = malloc(sizeof(int) * (size_t)(r->n ? r->n : 1));
  char **k = calloc((size_t)(4 * (max_groups > 0 ? max_groups : 1) + 1), sizeof(char *));
  if (!order || !k) {
    free(order);
    free(k);
    return yrt_set_error(err, YRT_ERR_NOMEM, "sqnr: out of memory");
  }
  for (int i = 0; i < r->n; i++) order[i] = i;
  for (int i = 1; i < r->n; i++) /* insertion sort by drop, descending */
    for (int j = i; j > 0 && r->l[order[j]].drop > r->l[order[j - 1]].drop; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  int nk = 0, groups = 0;
  double db = r->out_db;
  yrt_status st = YRT_OK;
  for (int i = 0; i < r->n && groups < max_groups && db < budget_db && !st; i++) {
    const sqnr_layer *l = &r->l[order[i]];
    if (strcmp(l->op, "Mul") && strcmp(l->op, "Conv")) continue;
    const char *grp[4];
    int ng = group_of(g, l->tensor, grp, 4);
    for (int j = 0; j < ng && !st; j++)
      if (!(k[nk++] = xdup(grp[j]))) st = yrt_set_error(err, YRT_ERR_NOMEM, "sqnr: out of memory");
    groups++;
    if (!st) st = sqnr_output(m, (const char *const *)k, o, &db, err);
    if (!st && !o->quiet)
      fprintf(stderr, "auto-mixed: + %-40s output0 SQNR %.2f dB\n", l->node, db);
  }
  free(order);
  if (st) {
    sqnr_free_names(k);
    return st;
  }
  *keep = k;
  *final_db = db;
  return YRT_OK;
}
