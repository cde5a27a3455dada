/* bench_run.h — one measured configuration (model size x threads x batch) of yolort-bench. */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include "bench_convs.h"
#include "bench_opts.h"
#include "bench_util.h"
#include "yolort_image.h"

typedef struct bench_kind_time {
  char kind[48];
  int nodes;
  double ms; /* mean per run */
} bench_kind_time;

typedef struct bench_node_time {
  char name[96];
  char kind[48];
  double ms; /* mean per run */
} bench_node_time;

typedef struct bench_result {
  int size_w, size_h, threads, batch, warmup, runs;
  int has_e2e;           /* pre/post measured (--image) */
  int frame;             /* --frame: pre = yrt_session_set_frame alone, infer = yrt_session_detect, no post */
  double session_ms;     /* yrt_session_create */
  bench_stats total;     /* per iteration = per batch of `batch` images */
  bench_stats pre, infer, post; /* per batch; pre/post only with has_e2e */
  int n_dets;            /* detections of the last image (with has_e2e) */
  int classify;          /* a classifier (task "classify"): post = its top-5 classes, top1 = the
                            last image's best class (yrt_session_classify) */
  int top1;
  bench_mem mem;         /* after this configuration */
  /* --profile */
  int n_kinds;
  bench_kind_time *kinds;
  double profile_ms;     /* sum of node times, mean per run */
  int n_nodes;
  double *node_ms;       /* mean per run, node i of the session */
  double *conv_ms;       /* --convs: mean per run of bench_input.convs[i], -1 when unmatched */
  int n_top;
  bench_node_time *top;  /* --top: slowest nodes first */
} bench_result;

/* Shared, read-only input of every configuration. */
typedef struct bench_input {
  const void *jpeg; /* NULL: no --image */
  int frame;        /* --frame: camera path (yrt_session_detect on the decoded frame) */
  size_t jpeg_size;
  const bench_conv *convs; /* --convs: layers to time, matched to session nodes by name */
  int n_convs;
} bench_input;

/* Creates a session with `threads`, runs warm-up + timed iterations of `batch` images and,
 * with o->profile, profiled runs. Returns YRT_OK or an error with err filled. */
yrt_status bench_run_config(const yrt_model *model, const bench_opts *o, const bench_input *in,
                            int threads, int batch, bench_result *r, yrt_error *err);

void bench_result_free(bench_result *r);

#endif
