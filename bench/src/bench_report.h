/* bench_report.h — human table and JSON output of yolort-bench. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdio.h>

#include "bench_convs.h"
#include "bench_run.h"
#include "bench_streams.h"
#include "bench_util.h"

typedef struct bench_model_report {
  const char *path;
  long long file_bytes;     /* on disk (.yrt, or the .onnx it was converted from) */
  int converted;            /* 1: converted in memory from .onnx */
  size_t yrt_bytes;         /* yrt_model_info.file_bytes */
  size_t weight_bytes, arena_bytes;
  int nodes, int8_nodes, synthetic;
  double load_ms;
  const bench_conv *convs;  /* for --convs, may be NULL */
  int n_convs;
  const bench_result *results;
  int n_results;
} bench_model_report;

/* Human-readable table of one model's configurations. */
void bench_print_table(FILE *f, const bench_model_report *m, int show_convs);

/* One JSON object per model; bench_main wraps them in {"tool":..., "models":[...]}. */
void bench_print_json_model(FILE *f, const bench_model_report *m, int show_convs);
void bench_print_json_string(FILE *f, const char *s);

/* The same model object for --streams: every key bench_print_json_model writes (null or [] where
 * streams measure nothing of the kind), one result per streams x threads pair (w x h: the input). */
void bench_print_json_streams(FILE *f, const bench_model_report *m, int w, int h, int warmup, int runs,
                              const bench_stream_result *r, int n);

#endif
