/* xnn_layers.c — peer benchmark: every conv of a model as a lone XNNPACK operator.
 *
 *   xnn_layers MODEL.yrt|CONVS.txt [--threads 1,2] [--warmup 3] [--runs 20] [--dtype f32,qc8] [--json]
 *
 * The conv shapes come from the .yrt records (bench_convs.c) or from yolort-bench --dump-convs.
 * Weights and inputs are a fixed pseudo-random pattern (speed does not depend on the values).
 * Each layer runs alone, so this is the upper bound of "XNNPACK layer by layer" without any
 * graph overhead; yolort-bench --convs gives the same per-conv table for the runtime. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "bench_convs.h"
#include "bench_util.h"

#define MAX_T 4

typedef struct opts {
  const char *path;
  int threads[MAX_T], n_threads;
  int warmup, runs;
  int f32, qc8, json;
} opts;

static void usage(void) {
  fprintf(stderr, "usage: xnn_layers MODEL.yrt|CONVS.txt [--threads 1,2] [--warmup 3] [--runs 20] "
                  "[--dtype f32,qc8] [--json]\n");
}

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->threads[0] = 1;
  o->threads[1] = 2;
  o->n_threads = 2;
  o->warmup = 3;
  o->runs = 20;
  o->f32 = o->qc8 = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--json")) {
      o->json = 1;
    } else if (!strcmp(a, "--threads") && v) {
      o->n_threads = 0;
      char buf[64];
      snprintf(buf, sizeof buf, "%s", v);
      char *save = NULL;
      for (char *t = strtok_r(buf, ",", &save); t && o->n_threads < MAX_T; t = strtok_r(NULL, ",", &save)) {
        int n = atoi(t);
        if (n < 1 || n > 256) return -1;
        o->threads[o->n_threads++] = n;
      }
      if (!o->n_threads) return -1;
      i++;
    } else if (!strcmp(a, "--warmup") && v) {
      o->warmup = atoi(v);
      if (o->warmup < 0) return -1;
      i++;
    } else if (!strcmp(a, "--runs") && v) {
      o->runs = atoi(v);
      if (o->runs < 1) return -1;
      i++;
    } else if (!strcmp(a, "--dtype") && v) {
      o->f32 = strstr(v, "f32") != NULL;
      o->qc8 = strstr(v, "qc8") != NULL;
      if (!o->f32 && !o->qc8) return -1;
      i++;
    } else if (a[0] != '-' && !o->path) {
      o->path = a;
    } else {
      return -1;
    }
  }
  return o->path ? 0 : -1;
}

/* Buffers big enough for the largest layer, filled once. */
typedef struct bufs {
  size_t in_n, out_n, w_n, c_n;
  float *in_f, *out_f, *w_f, *b_f, *scale;
  int8_t *in_q, *out_q, *w_q;
  int32_t *b_q;
} bufs;

static int alloc_bufs(const bench_conv *c, int n, bufs *b) {
  memset(b, 0, sizeof *b);
  for (int i = 0; i < n; i++) {
    size_t in = (size_t)c[i].n * c[i].h * c[i].w * c[i].cin;
    size_t out = (size_t)c[i].n * c[i].ho * c[i].wo * c[i].cout;
    size_t w = (size_t)c[i].cout * c[i].kh * c[i].kw * (c[i].cin / c[i].groups);
    if (in > b->in_n) b->in_n = in;
    if (out > b->out_n) b->out_n = out;
    if (w > b->w_n) b->w_n = w;
    if ((size_t)c[i].cout > b->c_n) b->c_n = (size_t)c[i].cout;
  }
  size_t pad = XNN_EXTRA_BYTES;
  b->in_f = malloc(b->in_n * sizeof(float) + pad);
  b->out_f = malloc(b->out_n * sizeof(float) + pad);
  b->w_f = malloc(b->w_n * sizeof(float) + pad);
  b->b_f = malloc(b->c_n * sizeof(float) + pad);
  b->scale = malloc(b->c_n * sizeof(float) + pad);
  b->in_q = malloc(b->in_n + pad);
  b->out_q = malloc(b->out_n + pad);
  b->w_q = malloc(b->w_n + pad);
  b->b_q = malloc(b->c_n * sizeof(int32_t) + pad);
  if (!b->in_f || !b->out_f || !b->w_f || !b->b_f || !b->scale || !b->in_q || !b->out_q || !b->w_q || !b->b_q)
    return -1;
  uint32_t s = 12345;
  for (size_t i = 0; i < b->in_n; i++) {
    s = s * 1103515245u + 12345u;
    b->in_q[i] = (int8_t)(s >> 24);
    b->in_f[i] = (float)b->in_q[i] / 128.0f;
  }
  for (size_t i = 0; i < b->w_n; i++) {
    s = s * 1103515245u + 12345u;
    b->w_q[i] = (int8_t)(s >> 24);
    b->w_f[i] = (float)b->w_q[i] / 1024.0f;
  }
  for (size_t i = 0; i < b->c_n; i++) {
    b->b_f[i] = 0.01f * (float)(i % 7);
    b->b_q[i] = (int32_t)(i % 7) * 100;
    b->scale[i] = 0.01f;
  }
  return 0;
}

static void free_bufs(bufs *b) {
  free(b->in_f); free(b->out_f); free(b->w_f); free(b->b_f); free(b->scale);
  free(b->in_q); free(b->out_q); free(b->w_q); free(b->b_q);
}

/* Median ms of one layer, or -1 when XNNPACK refused it. */
static double time_layer(const bench_conv *c, int qc8, pthreadpool_t pool, const opts *o, bufs *b) {
  xnn_operator_t op = NULL;
  enum xnn_status st;
  size_t gin = (size_t)(c->cin / c->groups), gout = (size_t)(c->cout / c->groups);
  if (qc8) {
    st = xnn_create_convolution2d_nhwc_qc8(c->pt, c->pr, c->pb, c->pl, c->kh, c->kw, c->sh, c->sw,
                                           c->dh, c->dw, c->groups, gin, gout, c->cin, c->cout, 0,
                                           0.05f, b->scale, b->w_q, b->b_q, 0, 0.1f, -128, 127, 0, &op);
    if (st == xnn_status_success)
      st = xnn_setup_convolution2d_nhwc_qc8(op, c->n, c->h, c->w, b->in_q, b->out_q, pool);
  } else {
    st = xnn_create_convolution2d_nhwc_f32(c->pt, c->pr, c->pb, c->pl, c->kh, c->kw, c->sh, c->sw,
                                           c->dh, c->dw, c->groups, gin, gout, c->cin, c->cout,
                                           b->w_f, b->b_f, -INFINITY, INFINITY, 0, &op);
    if (st == xnn_status_success)
      st = xnn_setup_convolution2d_nhwc_f32(op, c->n, c->h, c->w, b->in_f, b->out_f, pool);
  }
  if (st != xnn_status_success) {
    if (op) xnn_delete_operator(op);
    return -1;
  }
  double *t = malloc((size_t)o->runs * sizeof *t);
  if (!t) {
    xnn_delete_operator(op);
    return -1;
  }
  for (int i = 0; i < o->warmup; i++) xnn_run_operator(op, pool);
  for (int i = 0; i < o->runs; i++) {
    double t0 = bench_now_ms();
    xnn_run_operator(op, pool);
    t[i] = bench_now_ms() - t0;
  }
  bench_stats s;
  bench_stats_compute(t, o->runs, &s);
  free(t);
  xnn_delete_operator(op);
  return s.median;
}

int main(int argc, char **argv) {
  opts o;
  if (parse(argc, argv, &o) != 0) {
    usage();
    return 2;
  }
  bench_conv *convs = NULL;
  int n = 0;
  char msg[512];
  if (bench_convs_load(o.path, &convs, &n, msg, sizeof msg) != 0) {
    fprintf(stderr, "xnn_layers: %s\n", msg);
    return 1;
  }
  if (n == 0) {
    fprintf(stderr, "xnn_layers: %s has no conv layers\n", o.path);
    free(convs);
    return 1;
  }
  if (xnn_initialize(NULL) != xnn_status_success) {
    fprintf(stderr, "xnn_layers: xnn_initialize failed (CPU not supported?)\n");
    free(convs);
    return 1;
  }
  bufs b;
  if (alloc_bufs(convs, n, &b) != 0) {
    fprintf(stderr, "xnn_layers: out of memory\n");
    free_bufs(&b);
    free(convs);
    return 1;
  }
  /* columns: (dtype, threads) */
  int n_col = 0, col_q[2 * MAX_T], col_t[2 * MAX_T];
  for (int q = 0; q < 2; q++) {
    if ((q == 0 && !o.f32) || (q == 1 && !o.qc8)) continue;
    for (int t = 0; t < o.n_threads; t++) {
      col_q[n_col] = q;
      col_t[n_col++] = o.threads[t];
    }
  }
  double *ms = calloc((size_t)n * n_col, sizeof *ms);
  double sum[2 * MAX_T] = {0}, macs = 0;
  if (!ms) {
    fprintf(stderr, "xnn_layers: out of memory\n");
    free_bufs(&b);
    free(convs);
    return 1;
  }
  for (int k = 0; k < n_col; k++) {
    pthreadpool_t pool = col_t[k] > 1 ? pthreadpool_create((size_t)col_t[k]) : NULL;
    for (int i = 0; i < n; i++) {
      ms[i * n_col + k] = time_layer(&convs[i], col_q[k], pool, &o, &b);
      if (ms[i * n_col + k] > 0) sum[k] += ms[i * n_col + k];
    }
    if (pool) pthreadpool_destroy(pool);
  }
  for (int i = 0; i < n; i++) macs += convs[i].macs;

  if (o.json) {
    printf("{\"tool\":\"xnn_layers\",\"source\":");
    printf("\"%s\"", o.path); /* paths with quotes are not expected here */
    printf(",\"runs\":%d,\"total_macs\":%.0f,\"columns\":[", o.runs, macs);
    for (int k = 0; k < n_col; k++)
      printf("%s{\"dtype\":\"%s\",\"threads\":%d,\"sum_ms\":%.4f,\"gmacs\":%.2f}", k ? "," : "",
             col_q[k] ? "qc8" : "f32", col_t[k], sum[k], sum[k] > 0 ? macs / (sum[k] * 1e-3) * 1e-9 : 0.0);
    printf("],\"layers\":[");
    for (int i = 0; i < n; i++) {
      const bench_conv *c = &convs[i];
      printf("%s{\"name\":\"%s\",\"h\":%d,\"w\":%d,\"cin\":%d,\"cout\":%d,\"k\":%d,\"stride\":%d,"
             "\"groups\":%d,\"macs\":%.0f,\"ms\":[",
             i ? "," : "", c->name, c->h, c->w, c->cin, c->cout, c->kh, c->sh, c->groups, c->macs);
      for (int k = 0; k < n_col; k++) printf("%s%.4f", k ? "," : "", ms[i * n_col + k]);
      printf("]}");
    }
    printf("]}\n");
  } else {
    printf("XNNPACK operator by operator: %s, %d convs, %.3f GMAC; median of %d runs (ms | GMAC/s)\n",
           o.path, n, macs * 1e-9, o.runs);
    printf("%-44s %-24s %8s", "conv", "HxWxCin->Cout k/s/g", "MMAC");
    for (int k = 0; k < n_col; k++) printf("   %3s/%dt ms  GMAC/s", col_q[k] ? "qc8" : "f32", col_t[k]);
    printf("\n");
    for (int i = 0; i < n; i++) {
      const bench_conv *c = &convs[i];
      char shape[64];
      snprintf(shape, sizeof shape, "%dx%dx%d->%d %dx%d/%d/%d", c->h, c->w, c->cin, c->cout, c->kh,
               c->kw, c->sh, c->groups);
      printf("%-44.44s %-24s %8.2f", c->name, shape, c->macs * 1e-6);
      for (int k = 0; k < n_col; k++) {
        double t = ms[i * n_col + k];
        if (t > 0) printf("   %10.3f %7.1f", t, c->macs / (t * 1e-3) * 1e-9);
        else printf("   %10s %7s", "refused", "-");
      }
      printf("\n");
    }
    printf("%-44s %-24s %8.2f", "TOTAL (sum of layers)", "", macs * 1e-6);
    for (int k = 0; k < n_col; k++)
      printf("   %10.3f %7.1f", sum[k], sum[k] > 0 ? macs / (sum[k] * 1e-3) * 1e-9 : 0.0);
    printf("\n");
  }
  free(ms);
  free_bufs(&b);
  free(convs);
  xnn_deinitialize();
  return 0;
}
