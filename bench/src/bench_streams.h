/* bench_streams.h — --streams: N cameras on one model (issue 18). */
#ifndef BENCH_STREAMS_H
#define BENCH_STREAMS_H

#include "bench_opts.h"
#include "bench_util.h"
#include "yolort.h"

typedef struct bench_stream_result {
  int streams; /* sessions, each driven by its own thread (one per camera) */
  int threads; /* 1: every session on its stream's thread; > 1: one shared pool of that many */
  double fps;  /* frames of all streams per second of wall time */
  bench_stats latency; /* per frame, all streams pooled, ms */
} bench_stream_result;

/* N sessions of `model`, each run `o->warmup` then `o->runs` times by its own thread; the timed
 * runs of all streams start together. threads > 1 gives the sessions one shared pthreadpool of
 * that many threads (yrt_session_options.thread_pool), threads == 1 none. */
yrt_status bench_run_streams(const yrt_model *model, const bench_opts *o, int streams, int threads,
                             bench_stream_result *r, yrt_error *err);

/* The table (--json: bench_print_json_streams, bench_report.h). */
void bench_print_streams(const bench_stream_result *r, int n);

#endif
