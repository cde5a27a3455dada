/* test_runtime_threads.c — one model shared by sessions on several threads (and a session with
 * its own thread pool) gives the same outputs as a single-threaded session. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rt_mixed_model.h"
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
  yrt_session_options o = {.num_threads = j->pool_threads};
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
  job ref = {m, 0, {0}, {0}, YRT_OK};
  worker(&ref);
  assert_int_equal(ref.st, YRT_OK);
  enum { N = 4 };
  job jobs[N];
  pthread_t th[N];
  for (int i = 0; i < N; i++) {
    jobs[i] = (job){m, i == N - 1 ? 2 : 0, {0}, {0}, YRT_OK};
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

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_shared_model)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
