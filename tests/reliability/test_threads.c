/* test_threads.c — one model shared by sessions on several threads at once (yolort.h: "a model is
 * immutable after load and may be shared by sessions on several threads"). Each thread creates its
 * own session at the same moment, runs a sequence of inputs and must get exactly the outputs a
 * single-threaded session got for them. Run under ThreadSanitizer with -DYOLORT_TSAN=ON
 * (docs/reliability.md); in the normal suite it still checks the results. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#if YRT_HAVE_PTHREADPOOL
#include <pthreadpool.h>
#else
typedef struct pthreadpool *pthreadpool_t; /* a build without pthreadpool: only ever NULL */
#endif

#include "convert.h"
#include "rel_models.h"
#include "test_data.h"
#include "yolort.h"

enum { N_THREADS = 4, N_INPUTS = 3 };

typedef struct ref_runs {
  const yrt_model *model;
  size_t in_numel, out_numel;
  float *in[N_INPUTS];
  float *out[N_INPUTS]; /* single-threaded results */
  int session_threads;  /* num_threads of each worker's session */
  int runs;             /* per worker */
  pthreadpool_t shared_pool; /* non-NULL: every worker's session runs on this caller pool */
  pthread_barrier_t start;
} ref_runs;

typedef struct worker {
  ref_runs *r;
  int id;
  int mismatches;
  yrt_status st;
  yrt_error err;
} worker;

static size_t input_numel(const yrt_model *m) {
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  return (size_t)3 * (size_t)info.input_w * (size_t)info.input_h;
}

/* Deterministic, input-dependent pixels. */
static void fill_input(float *x, size_t n, int k) {
  uint32_t v = 2654435761u * (uint32_t)(k + 1);
  for (size_t i = 0; i < n; i++) {
    v = v * 1664525u + 1013904223u;
    x[i] = (float)(v >> 24) / 255.0f;
  }
}

static yrt_status run_once(yrt_session *s, const float *x, size_t n, const float **y, size_t *count,
                           yrt_error *err) {
  yrt_status st = yrt_session_set_input(s, 0, x, n, err);
  if (st == YRT_OK) st = yrt_session_run(s, err);
  yrt_tensor_view v;
  if (st == YRT_OK) st = yrt_session_output(s, 0, &v, err);
  if (st == YRT_OK) {
    *y = v.data;
    *count = v.count;
  }
  return st;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  ref_runs *r = w->r;
  pthread_barrier_wait(&r->start); /* all sessions are created at the same moment */
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = r->session_threads;
  o.thread_pool = r->shared_pool;
  yrt_session *s = NULL;
  w->st = yrt_session_create(r->model, &o, &s, &w->err);
  if (w->st != YRT_OK) return NULL;
  for (int i = 0; i < r->runs; i++) {
    const int k = (w->id + i) % N_INPUTS;
    const float *y = NULL;
    size_t count = 0;
    w->st = run_once(s, r->in[k], r->in_numel, &y, &count, &w->err);
    if (w->st != YRT_OK) break;
    if (count != r->out_numel || memcmp(y, r->out[k], count * sizeof(float)) != 0) w->mismatches++;
  }
  yrt_session_free(s);
  return NULL;
}

static void check_concurrent_on(const yrt_model *m, int n_threads, int session_threads, int runs,
                               pthreadpool_t shared_pool) {
  ref_runs r;
  memset(&r, 0, sizeof r);
  r.shared_pool = shared_pool;
  r.model = m;
  r.in_numel = input_numel(m);
  r.session_threads = session_threads;
  r.runs = runs;
  yrt_error err;
  yrt_session *s = NULL;
  assert_int_equal(yrt_session_create(m, NULL, &s, &err), YRT_OK);
  for (int k = 0; k < N_INPUTS; k++) {
    r.in[k] = malloc(r.in_numel * sizeof(float));
    assert_non_null(r.in[k]);
    fill_input(r.in[k], r.in_numel, k);
    const float *y = NULL;
    size_t count = 0;
    if (run_once(s, r.in[k], r.in_numel, &y, &count, &err) != YRT_OK) fail_msg("reference run: %s", err.msg);
    r.out_numel = count;
    r.out[k] = malloc(count * sizeof(float));
    assert_non_null(r.out[k]);
    memcpy(r.out[k], y, count * sizeof(float));
  }
  yrt_session_free(s);
  /* Different inputs must give different outputs, or the comparison below proves nothing. */
  assert_true(memcmp(r.out[0], r.out[1], r.out_numel * sizeof(float)) != 0);

  worker w[N_THREADS];
  pthread_t th[N_THREADS];
  assert_true(n_threads <= N_THREADS);
  assert_int_equal(pthread_barrier_init(&r.start, NULL, (unsigned)n_threads), 0);
  for (int t = 0; t < n_threads; t++) {
    memset(&w[t], 0, sizeof w[t]);
    w[t].r = &r;
    w[t].id = t;
    assert_int_equal(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
  }
  for (int t = 0; t < n_threads; t++) assert_int_equal(pthread_join(th[t], NULL), 0);
  pthread_barrier_destroy(&r.start);
  for (int t = 0; t < n_threads; t++) {
    if (w[t].st != YRT_OK) fail_msg("thread %d: %s: %s", t, yrt_status_name(w[t].st), w[t].err.msg);
    assert_int_equal(w[t].mismatches, 0);
  }
  for (int k = 0; k < N_INPUTS; k++) {
    free(r.in[k]);
    free(r.out[k]);
  }
}

static void check_concurrent(const yrt_model *m, int n_threads, int session_threads, int runs) {
  check_concurrent_on(m, n_threads, session_threads, runs, NULL);
}

static yrt_model *tiny_model(rel_model_kind k) {
  void *buf = NULL;
  size_t n = 0;
  yrt_error err;
  if (rel_model_yrt(k, &buf, &n, &err) != YRT_OK) fail_msg("rel_model_yrt: %s", err.msg);
  yrt_model *m = NULL;
  if (yrt_model_load_memory(buf, n, 1, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  free(buf);
  return m;
}

static void test_threads_int8_sessions(void **state) {
  (void)state;
  yrt_model *m = tiny_model(REL_MODEL_QDQ_YOLO);
  check_concurrent(m, N_THREADS, 1, 6);
  yrt_model_free(m);
}

static void test_threads_f32_sessions(void **state) {
  (void)state;
  yrt_model *m = tiny_model(REL_MODEL_F32_YOLO);
  check_concurrent(m, N_THREADS, 0, 6);
  yrt_model_free(m);
}

/* Sessions that themselves use a thread pool, side by side. */
static void test_threads_pooled_sessions(void **state) {
  (void)state;
  yrt_model *m = tiny_model(REL_MODEL_QDQ_YOLO);
  check_concurrent(m, 2, 2, 4);
  yrt_model_free(m);
}

/* Sessions on several threads sharing one caller-provided pool (issue 16 item 5): the same outputs
 * as a single-threaded session; the pool outlives them and is not destroyed by them (a double
 * destroy would show under ASan). Both given: refused. */
static void test_threads_shared_pool(void **state) {
  (void)state;
  yrt_model *m = tiny_model(REL_MODEL_QDQ_YOLO);
#if !YRT_HAVE_PTHREADPOOL
  { /* no pthreadpool in this build (YOLORT_PTHREADPOOL=OFF): a caller's pool is refused, named */
    yrt_session_options o;
    yrt_session_options_init(&o);
    o.thread_pool = (struct pthreadpool *)(uintptr_t)64; /* never dereferenced */
    yrt_session *s = NULL;
    yrt_error err;
    assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_ERR_INVALID_ARG);
    assert_null(s);
    assert_non_null(strstr(err.msg, "thread_pool"));
  }
#else
  pthreadpool_t pool = pthreadpool_create(2);
  assert_non_null(pool);
  check_concurrent_on(m, 3, 0, 4, pool);
  check_concurrent_on(m, 1, 0, 2, pool); /* the pool still works after those sessions were freed */
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.thread_pool = pool;
  o.num_threads = 2;
  yrt_session *s = NULL;
  yrt_error err;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_ERR_INVALID_ARG);
  assert_null(s);
  pthreadpool_destroy(pool);
#endif
  yrt_model_free(m);
}

/* The real YOLO11n QDQ model at 320: every kernel family of the product. */
static void test_threads_yolo11n(void **state) {
  (void)state;
  char path[4096];
  YT_REQUIRE_DATA(path, "models/yolo11n-320.qdq.onnx");
  void *buf = NULL;
  size_t n = 0;
  yrt_error err;
  if (yrt_convert_onnx_file(path, NULL, &buf, &n, NULL, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  yrt_model *m = NULL;
  if (yrt_model_load_memory(buf, n, 0, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  check_concurrent(m, 3, 1, 2);
  yrt_model_free(m);
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_int8_sessions),
      cmocka_unit_test(test_threads_f32_sessions),
      cmocka_unit_test(test_threads_pooled_sessions),
      cmocka_unit_test(test_threads_shared_pool),
      cmocka_unit_test(test_threads_yolo11n),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
