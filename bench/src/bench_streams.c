/* bench_streams.c — --streams: N sessions of one model, each fed by its own thread as N cameras
 * would be, and the total frames/s. The question it answers: on a small SoC, is it better to give
 * each camera a single-threaded session (streams run side by side) or to let all sessions share
 * one pool (frames one after another, each on every core)? */
#include "bench_streams.h"

#include <pthread.h>
#if YRT_HAVE_PTHREADPOOL
#include <pthreadpool.h>
#endif
#include <stdio.h>
#include <stdlib.h>

/* The start line: every stream warms up, says it is ready, and waits for go (or abort). */
typedef struct start_line {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int ready, go, abort;
} start_line;

typedef struct stream {
  yrt_session *s;
  const bench_opts *o;
  start_line *start;
  double *lat; /* o->runs entries */
  double t_end;
  yrt_status st;
  yrt_error err;
} stream;

static void *stream_main(void *arg) {
  stream *m = arg;
  for (int i = 0; m->st == YRT_OK && i < m->o->warmup; i++) m->st = yrt_session_run(m->s, &m->err);
  start_line *l = m->start;
  pthread_mutex_lock(&l->mu);
  l->ready++;
  pthread_cond_broadcast(&l->cv);
  while (!l->go && !l->abort) pthread_cond_wait(&l->cv, &l->mu);
  const int run = !l->abort;
  pthread_mutex_unlock(&l->mu);
  for (int i = 0; run && m->st == YRT_OK && i < m->o->runs; i++) {
    double t0 = bench_now_ms();
    m->st = yrt_session_run(m->s, &m->err);
    m->lat[i] = bench_now_ms() - t0;
  }
  m->t_end = bench_now_ms();
  return NULL;
}

/* A flat grey frame, as yolort-bench without --image. */
static yrt_status fill_grey(yrt_session *s, yrt_error *err) {
  float *in = yrt_session_input_nhwc(s, 0);
  size_t n = yrt_session_input_count(s, 0);
  if (!in) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "bench: session has no input 0");
  for (size_t i = 0; i < n; i++) in[i] = 114.0f / 255.0f;
  return YRT_OK;
}

yrt_status bench_run_streams(const yrt_model *model, const bench_opts *o, int streams, int threads,
                             bench_stream_result *r, yrt_error *err) {
  r->streams = streams;
  r->threads = threads;
  r->fps = 0;
  stream *m = calloc((size_t)streams, sizeof *m);
  pthread_t *tid = calloc((size_t)streams, sizeof *tid);
  double *lat = calloc((size_t)streams * (size_t)o->runs, sizeof *lat);
#if YRT_HAVE_PTHREADPOOL
  pthreadpool_t pool = NULL;
#else
  struct pthreadpool *pool = NULL; /* this build has no pthreadpool (YOLORT_PTHREADPOOL=OFF) */
#endif
  start_line line = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
  int started = 0;
  yrt_status st = YRT_OK;
  if (!m || !tid || !lat) {
    st = yrt_set_error(err, YRT_ERR_NOMEM, "bench: %d streams x %d runs", streams, o->runs);
    goto done;
  }
#if YRT_HAVE_PTHREADPOOL
  if (threads > 1 && !(pool = pthreadpool_create((size_t)threads))) {
    st = yrt_set_error(err, YRT_ERR_BACKEND, "bench: pthreadpool_create(%d) failed", threads);
    goto done;
  }
#else
  if (threads > 1) {
    st = yrt_set_error(err, YRT_ERR_INVALID_ARG,
                       "bench: --streams with --threads %d shares one pthreadpool; this build has none "
                       "(YOLORT_PTHREADPOOL=OFF)", threads);
    goto done;
  }
#endif
  for (int i = 0; i < streams && st == YRT_OK; i++) {
    yrt_session_options so;
    yrt_session_options_init(&so);
    so.thread_pool = pool;
    so.num_threads = pool ? 0 : 1; /* 0 alone would be one thread per online CPU */
    so.isa_cap = o->isa;
    st = yrt_session_create(model, &so, &m[i].s, err);
    if (st == YRT_OK) st = fill_grey(m[i].s, err);
    m[i].o = o;
    m[i].lat = lat + (size_t)i * o->runs;
    m[i].start = &line;
  }
  if (st != YRT_OK) goto done;
  for (; started < streams; started++)
    if (pthread_create(&tid[started], NULL, stream_main, &m[started]) != 0) break;
  double t0 = 0, t_end = 0;
  pthread_mutex_lock(&line.mu);
  if (started < streams) {
    st = yrt_set_error(err, YRT_ERR_BACKEND, "bench: cannot start stream thread %d", started);
    line.abort = 1;
  } else {
    while (line.ready < streams) pthread_cond_wait(&line.cv, &line.mu);
    line.go = 1;
    t0 = bench_now_ms();
  }
  pthread_cond_broadcast(&line.cv);
  pthread_mutex_unlock(&line.mu);
  for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
  if (started < streams) goto done;
  for (int i = 0; i < streams; i++) {
    if (m[i].st != YRT_OK && st == YRT_OK) {
      st = m[i].st;
      *err = m[i].err;
    }
    if (m[i].t_end > t_end) t_end = m[i].t_end;
  }
  if (st == YRT_OK) {
    r->fps = (double)streams * o->runs / ((t_end - t0) * 1e-3);
    bench_stats_compute(lat, streams * o->runs, &r->latency);
  }
done:
  for (int i = 0; m && i < streams; i++) yrt_session_free(m[i].s);
#if YRT_HAVE_PTHREADPOOL
  if (pool) pthreadpool_destroy(pool); /* after its sessions */
#endif
  free(m);
  free(tid);
  free(lat);
  return st;
}

void bench_print_streams(const bench_stream_result *r, int n) {
  printf("  streams (each session run by its own thread; threads > 1: one shared pool)\n");
  printf("    streams  threads  pool             frames/s  latency median    p90 ms\n");
  for (int i = 0; i < n; i++)
    printf("    %7d  %7d  %-15s %9.1f  %14.2f  %8.2f\n", r[i].streams, r[i].threads,
           r[i].threads > 1 ? "shared" : "none (own thread)", r[i].fps, r[i].latency.median,
           r[i].latency.p90);
}
