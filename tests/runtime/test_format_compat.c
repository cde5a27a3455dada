/* test_format_compat.c — .yrt files written by earlier releases keep loading and computing the
 * same (docs/compatibility.md). compat/ holds one small model converted by each format version's
 * yolort-convert (compat/README.md says which build); every pair must give bit-identical
 * outputs on the same input, and versions outside [YRT_VERSION_MIN, YRT_VERSION] are refused
 * naming the version. A format bump adds the file the previous version wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "yolort.h"
#include "yolort_format.h"

#define COMPAT YOLORT_SOURCE_DIR "/tests/runtime/compat/"

static const char *const k_files[] = {COMPAT "tiny.v1.yrt", COMPAT "tiny.v2.yrt"};
enum { N_FILES = sizeof k_files / sizeof k_files[0] };

/* Runs the model at path on a fixed input; returns its output 0 (malloc'ed, *n floats). */
static float *run_file(const char *path, size_t *n) {
  yrt_error err;
  yrt_model *m = NULL;
  if (yrt_model_load_file(path, &m, &err) != YRT_OK) fail_msg("%s: %s", path, err.msg);
  yrt_session *s = NULL;
  assert_int_equal(yrt_session_create(m, NULL, &s, &err), YRT_OK);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  const size_t cnt = (size_t)3 * (size_t)info.input_w * (size_t)info.input_h;
  float *x = malloc(sizeof(float) * cnt);
  assert_non_null(x);
  for (size_t i = 0; i < cnt; i++) x[i] = (float)((i * 37u + 11u) % 256u) / 255.0f;
  assert_int_equal(yrt_session_set_input(s, 0, x, cnt, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
  float *y = malloc(sizeof(float) * v.count);
  assert_non_null(y);
  memcpy(y, v.data, sizeof(float) * v.count);
  *n = v.count;
  free(x);
  yrt_session_free(s);
  yrt_model_free(m);
  return y;
}

static void test_every_version_same_output(void **state) {
  (void)state;
  size_t n0 = 0;
  float *y0 = run_file(k_files[N_FILES - 1], &n0); /* the current version's file */
  assert_true(n0 > 0);
  for (int f = 0; f < N_FILES - 1; f++) {
    size_t n = 0;
    float *y = run_file(k_files[f], &n);
    assert_int_equal(n, n0);
    if (memcmp(y, y0, sizeof(float) * n) != 0) fail_msg("%s: output differs from %s", k_files[f], k_files[N_FILES - 1]);
    free(y);
  }
  free(y0);
}

/* The file at path, 64-byte aligned, with its header's version replaced (CRC is over the rest). */
static uint8_t *with_version(const char *path, uint32_t version, size_t *size) {
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  assert_int_equal(fseek(fp, 0, SEEK_END), 0);
  const long len = ftell(fp);
  assert_true(len > 64);
  rewind(fp);
  uint8_t *b = aligned_alloc(64, ((size_t)len + 63) / 64 * 64);
  assert_non_null(b);
  assert_int_equal(fread(b, 1, (size_t)len, fp), (size_t)len);
  fclose(fp);
  memcpy(b + offsetof(yrt_file_header, version), &version, sizeof version);
  *size = (size_t)len;
  return b;
}

static void test_versions_outside_refused(void **state) {
  (void)state;
  const uint32_t bad[] = {0u, YRT_VERSION + 1u, 0xFFFFFFFFu};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t size = 0;
    uint8_t *b = with_version(k_files[N_FILES - 1], bad[i], &size);
    yrt_model *m = NULL;
    yrt_error err;
    assert_int_equal(yrt_model_load_memory(b, size, 1, &m, &err), YRT_ERR_UNSUPPORTED);
    assert_null(m);
    char want[32];
    snprintf(want, sizeof want, "version %u", (unsigned)bad[i]);
    assert_non_null(strstr(err.msg, want));
    if (bad[i] > YRT_VERSION) assert_non_null(strstr(err.msg, "newer"));
    free(b);
  }
}

/* A version 1 file's records are 88 bytes: a version 2 file relabelled 1 is refused (its TENSORS
 * section does not divide, or its records fail validation), never read with the wrong stride. */
static void test_v2_relabelled_v1_refused(void **state) {
  (void)state;
  size_t size = 0;
  uint8_t *b = with_version(k_files[N_FILES - 1], 1u, &size);
  yrt_model *m = NULL;
  yrt_error err;
  assert_int_not_equal(yrt_model_load_memory(b, size, 1, &m, &err), YRT_OK);
  assert_null(m);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_version_same_output),
      cmocka_unit_test(test_versions_outside_refused),
      cmocka_unit_test(test_v2_relabelled_v1_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
