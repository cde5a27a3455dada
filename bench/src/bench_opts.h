/* bench_opts.h — command line of yolort-bench. */
#ifndef BENCH_OPTS_H
#define BENCH_OPTS_H

#include <stddef.h>
#include <stdio.h>

#define BENCH_MAX_LIST 8

typedef struct bench_opts {
  const char *model;      /* .yrt (or .onnx when built with the converter); may contain {S} */
  const char *image;      /* --image: JPEG for the end-to-end split, NULL = inference only */
  int frame;              /* --frame (with --image): the camera path, yrt_session_set_frame + yrt_session_detect */
  const char *dump_convs; /* --dump-convs FILE ("-" = stdout): write conv shapes and exit */
  int warmup, runs;
  int threads[BENCH_MAX_LIST], n_threads;
  int batch[BENCH_MAX_LIST], n_batch;
  int size[BENCH_MAX_LIST], n_size; /* 0 entries: the model's own size */
  int json, profile, convs;
  int oversubscribe;      /* --oversubscribe: thread counts above the online CPUs as given */
  const char *isa;        /* --isa NAME: yrt_session_options.isa_cap (NULL: the CPU's best) */
  int top;                /* --top N: the N slowest nodes by name (implies --profile) */
  int streams[BENCH_MAX_LIST], n_streams; /* --streams L: N sessions, one thread each (frames/s) */
} bench_opts;

/* Parses argv. Returns 0 ok, 1 when help was printed, -1 with a message in msg. */
int bench_parse_args(int argc, char **argv, bench_opts *o, char *msg, size_t cap);

/* The usage and every option, to f: stdout for --help, stderr after a usage error. */
void bench_usage(FILE *f, const char *argv0);

#endif
