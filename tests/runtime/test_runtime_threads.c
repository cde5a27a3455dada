/* test_runtime_threads.c — one model shared by sessions on several threads (and a session with
 * its own thread pool) gives the same outputs as a single-threaded session; the default thread
 * count and its cap at the online CPUs; the session's own pool (thread_pool.c) does every item of
 * every run exactly once, also with more threads than cores. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "rt_mixed_model.h"
#include "thread_pool.h"
#include "yolort.h"

typedef struct job {
  const yrt_model *m;
  int pool_threads;
  float out0[6], out1[32];
  yrt_status st;
} job;

static void *worker(void *arg) {
  job *j = arg;
  yrt_error err;
  yrt_session *s = NULL;
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = j->pool_threads;
  o.oversubscribe = 1; /* 3 or 4 threads on a 2-core machine: run them all */
  j->st = yrt_session_create(j->m, &o, &s, &err);
  if (j->st != YRT_OK) return NULL;
  float x[48];
  rt_mixed_input(x);
  for (int r = 0; r < 20 && j->st == YRT_OK; r++) {
    yrt_session_set_input(s, 0, x, 48, &err);
    j->st = yrt_session_run(s, &err);
  }
  yrt_tensor_view v;
  if (j->st == YRT_OK) j->st = yrt_session_output(s, 0, &v, &err);
  if (j->st == YRT_OK) memcpy(j->out0, v.data, sizeof j->out0);
  if (j->st == YRT_OK) j->st = yrt_session_output(s, 1, &v, &err);
  if (j->st == YRT_OK) memcpy(j->out1, v.data, sizeof j->out1);
  yrt_session_free(s);
  return NULL;
}

static void test_shared_model(void **state) {
  (void)state;
  size_t size;
  void *img = rt_mixed_model(&size);
  yrt_error err;
  yrt_model *m = NULL;
  assert_int_equal(yrt_model_load_memory(img, size, 0, &m, &err), YRT_OK);
  job ref = {m, 1, {0}, {0}, YRT_OK};
  worker(&ref);
  assert_int_equal(ref.st, YRT_OK);
  enum { N = 4 };
  job jobs[N];
  pthread_t th[N];
  for (int i = 0; i < N; i++) {
    jobs[i] = (job){m, i, {0}, {0}, YRT_OK}; /* 0: the default (online CPUs), 1, 2, 3 threads */
    assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
  }
  for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < N; i++) {
    assert_int_equal(jobs[i].st, YRT_OK);
    /* the threaded XNNPACK f32 conv may split work differently but computes each output alike */
    for (int k = 0; k < 6; k++) assert_float_equal(jobs[i].out0[k], ref.out0[k], 1e-5);
    for (int k = 0; k < 32; k++) assert_float_equal(jobs[i].out1[k], ref.out1[k], 1e-5);
  }
  yrt_model_free(m);
  free(img);
}

/* num_threads 0 (and opts NULL) take the online CPUs; more is capped unless oversubscribe. */
static void test_default_threads(void **state) {
  (void)state;
  size_t size;
  void *img = rt_mixed_model(&size);
  yrt_error err;
  yrt_model *m = NULL;
  assert_int_equal(yrt_model_load_memory(img, size, 0, &m, &err), YRT_OK);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 1) cpus = 1;
  yrt_session *s = NULL;
  assert_int_equal(yrt_session_create(m, NULL, &s, &err), YRT_OK);
  const int def = yrt_session_num_threads(s);
  assert_true(def >= 1 && def <= cpus); /* the affinity mask may allow fewer */
  yrt_session_free(s);
  yrt_session_options o;
  yrt_session_options_init(&o);
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  assert_int_equal(yrt_session_num_threads(s), def);
  yrt_session_free(s);
  o.num_threads = 1;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  assert_int_equal(yrt_session_num_threads(s), 1);
  yrt_session_free(s);
  o.num_threads = def + 3; /* capped */
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  assert_int_equal(yrt_session_num_threads(s), def);
  yrt_session_free(s);
  o.oversubscribe = 1; /* as given */
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  assert_int_equal(yrt_session_num_threads(s), def + 3);
  yrt_session_free(s);
  /* an initializer without struct_size cannot set oversubscribe: capped */
  yrt_session_options old = {.num_threads = def + 3};
  assert_int_equal(yrt_session_create(m, &old, &s, &err), YRT_OK);
  assert_int_equal(yrt_session_num_threads(s), def);
  yrt_session_free(s);
  assert_int_equal(yrt_session_num_threads(NULL), 0);
  yrt_model_free(m);
  free(img);
}

typedef struct count_ctx {
  _Atomic int *hits;
} count_ctx;

static void count_item(void *ctx, size_t i) {
  const count_ctx *c = ctx;
  atomic_fetch_add_explicit(&c->hits[i], 1, memory_order_relaxed);
}

/* Many short runs of varying sizes back to back (workers arrive late, sleep, wake): each item
 * exactly once per run, with 2 and 5 threads (the latter more than this machine's cores). */
static void test_own_pool_items(void **state) {
  (void)state;
  enum { MAXN = 97 };
  _Atomic int hits[MAXN];
  count_ctx c = {hits};
  assert_null(yrt_thread_pool_create(1, NULL));
  assert_int_equal(yrt_thread_pool_threads(NULL), 1);
  for (int threads = 2; threads <= 5; threads += 3) {
    yrt_thread_pool *p = yrt_thread_pool_create(threads, NULL);
    assert_non_null(p);
    assert_int_equal(yrt_thread_pool_threads(p), threads);
    for (int r = 0; r < 3000; r++) {
      const size_t n = (size_t)(r * 7 % MAXN);
      for (size_t i = 0; i < MAXN; i++) atomic_store(&hits[i], 0);
      yrt_thread_pool_run(p, count_item, &c, n);
      for (size_t i = 0; i < MAXN; i++) assert_int_equal(atomic_load(&hits[i]), i < n ? 1 : 0);
      if (r % 1000 == 500) { /* more items than one generation holds (65535): in batches */
        enum { BIGN = 65535 * 2 + 3 };
        _Atomic int *big = calloc(BIGN, sizeof *big);
        assert_non_null(big);
        count_ctx cb = {big};
        yrt_thread_pool_run(p, count_item, &cb, BIGN);
        for (size_t i = 0; i < BIGN; i++) assert_int_equal(atomic_load(&big[i]), 1);
        free(big);
      }
      if (r % 1000 == 999) { /* past the spin: the workers sleep */
        const struct timespec nap = {0, 200 * 1000 * 1000};
        nanosleep(&nap, NULL);
      }
    }
    yrt_thread_pool_destroy(p);
  }
  yrt_thread_pool_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_shared_model), cmocka_unit_test(test_default_threads),
                                     cmocka_unit_test(test_own_pool_items)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
