/* test_runtime_load.c — status helpers, CRC, loading from file / memory (copy, in place),
 * model info and class names, session options (caller arena), inputs, outputs and accessors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "yolort_format.h"
#include "rt_mixed_model.h"
#include "yolort.h"
#include "yrt_test_builder.h"

static void test_status_and_crc(void **state) {
  (void)state;
  assert_string_equal(yrt_status_name(YRT_ERR_FORMAT), "YRT_ERR_FORMAT");
  assert_string_equal(yrt_status_name(YRT_OK), "YRT_OK");
  yrt_error err;
  assert_int_equal(yrt_set_error(&err, YRT_ERR_IO, "x=%d %s", 5, "y"), YRT_ERR_IO);
  assert_string_equal(err.msg, "x=5 y");
  assert_int_equal(yrt_set_error(NULL, YRT_ERR_SHAPE, "ignored"), YRT_ERR_SHAPE);
  assert_int_equal(yrt_crc32(0, "123456789", 9), 0xCBF43926u);
  uint32_t c = yrt_crc32(0, "1234", 4);
  assert_int_equal(yrt_crc32(c, "56789", 5), 0xCBF43926u);
}

static void test_load_memory_modes(void **state) {
  (void)state;
  size_t size;
  uint8_t *img = rt_mixed_model(&size);
  yrt_error err;
  yrt_model *m = NULL;
  assert_int_equal(yrt_model_load_memory(img, size, 0, &m, &err), YRT_OK);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  assert_int_equal(info.input_w, 4);
  assert_int_equal(info.num_classes, 3);
  assert_int_equal(info.num_inputs, 1);
  assert_int_equal(info.num_outputs, 2);
  assert_int_equal(info.num_nodes, 17);
  assert_true(info.num_int8_nodes >= 7);
  assert_int_equal(info.file_bytes, size);
  assert_true(info.arena_bytes % 64 == 0);
  assert_string_equal(yrt_model_class_name(m, 0), "cat");
  assert_string_equal(yrt_model_class_name(m, 2), "bird");
  assert_null(yrt_model_class_name(m, 3));
  assert_null(yrt_model_class_name(m, -1));
  yrt_model_free(m);

  /* copy from a misaligned buffer works; in place from it is refused */
  uint8_t *mis = malloc(size + 1);
  assert_non_null(mis);
  memcpy(mis + 1, img, size);
  assert_int_equal(yrt_model_load_memory(mis + 1, size, 1, &m, &err), YRT_OK);
  yrt_model_free(m);
  assert_int_equal(yrt_model_load_memory(mis + 1, size, 0, &m, &err), YRT_ERR_INVALID_ARG);
  assert_null(m);
  free(mis);
  assert_int_equal(yrt_model_load_memory(NULL, 0, 1, &m, &err), YRT_ERR_FORMAT);
  assert_int_equal(yrt_model_load_memory(img, size, 0, NULL, &err), YRT_ERR_INVALID_ARG);
  free(img);
}

static void test_load_file(void **state) {
  (void)state;
  size_t size;
  uint8_t *img = rt_mixed_model(&size);
  char path[256];
  snprintf(path, sizeof path, "%s/test_runtime_load_%d.yrt", YOLORT_BINARY_DIR, (int)getpid());
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(img, 1, size, f), size);
  fclose(f);
  yrt_error err;
  yrt_model *m = NULL;
  if (yrt_model_load_file(path, &m, &err) != YRT_OK) fail_msg("%s", err.msg);
  yrt_model_free(m);
  /* a short file */
  f = fopen(path, "wb");
  assert_non_null(f);
  fwrite(img, 1, 10, f);
  fclose(f);
  assert_int_equal(yrt_model_load_file(path, &m, &err), YRT_ERR_FORMAT);
  /* truncated after the header: names the file */
  f = fopen(path, "wb");
  fwrite(img, 1, size - 1, f);
  fclose(f);
  assert_int_equal(yrt_model_load_file(path, &m, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, path));
  remove(path);
  assert_int_equal(yrt_model_load_file(path, &m, &err), YRT_ERR_IO);
  assert_int_equal(yrt_model_load_file(YOLORT_BINARY_DIR, &m, &err), YRT_ERR_IO);
  free(img);
}

static void test_session_api(void **state) {
  (void)state;
  size_t size;
  uint8_t *img = rt_mixed_model(&size);
  yrt_error err;
  yrt_model *m = NULL;
  assert_int_equal(yrt_model_load_memory(img, size, 1, &m, &err), YRT_OK);
  free(img); /* copied */
  yrt_model_info info;
  yrt_model_get_info(m, &info);

  /* caller arena: too small, misaligned, then right */
  uint8_t *arena = aligned_alloc(64, info.arena_bytes + 64);
  assert_non_null(arena);
  yrt_session_options o = {.num_threads = 1, .arena = arena, .arena_bytes = info.arena_bytes - 1};
  yrt_session *s = NULL;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_ERR_INVALID_ARG);
  o.arena = arena + 8;
  o.arena_bytes = info.arena_bytes;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_ERR_INVALID_ARG);
  o.arena = arena;
  if (yrt_session_create(m, &o, &s, &err) != YRT_OK) fail_msg("%s", err.msg);

  /* set_input (NCHW) lands transposed in the NHWC input */
  float nchw[48];
  for (int i = 0; i < 48; i++) nchw[i] = (float)i;
  assert_int_equal(yrt_session_set_input(s, 0, nchw, 47, &err), YRT_ERR_SHAPE);
  assert_int_equal(yrt_session_set_input(s, 1, nchw, 48, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_session_set_input(s, 0, nchw, 48, &err), YRT_OK);
  const float *nhwc = yrt_session_input_nhwc(s, 0);
  assert_ptr_equal(nhwc, (float *)(void *)arena); /* input is the first arena tensor */
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 16; i++) assert_true(nhwc[i * 3 + c] == nchw[c * 16 + i]);
  assert_null(yrt_session_input_nhwc(s, 1));

  yrt_session_set_profiling(s, 1);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  uint64_t ns[32];
  assert_int_equal(yrt_session_node_times(s, ns, 32), 17);
  assert_string_equal(yrt_session_node_kind(s, 1), "conv2d.i8");
  assert_string_equal(yrt_session_node_kind(s, 16), "conv2d.f32");
  assert_string_equal(yrt_session_node_name(s, 1), "conv_i8");
  assert_null(yrt_session_node_kind(s, 17));
  assert_null(yrt_session_node_name(s, -1));

  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
  assert_int_equal(v.rank, 3);
  assert_int_equal(v.count, 6);
  assert_int_equal(yrt_session_output(s, 1, &v, &err), YRT_OK); /* NHWC -> logical NCHW */
  assert_int_equal(v.rank, 4);
  assert_int_equal(v.dims[1], 2);
  assert_int_equal(v.dims[2], 4);
  assert_int_equal(v.dims[3], 4);
  for (size_t i = 0; i < v.count; i++) assert_true(v.data[i] == v.data[i]); /* no NaN */
  assert_int_equal(yrt_session_output(s, 2, &v, &err), YRT_ERR_INVALID_ARG);

  /* a second run gives the same result */
  float first[32];
  memcpy(first, v.data, sizeof first);
  assert_int_equal(yrt_session_set_input(s, 0, nchw, 48, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  assert_int_equal(yrt_session_output(s, 1, &v, &err), YRT_OK);
  assert_memory_equal(first, v.data, sizeof first);

  yrt_session_free(s);
  yrt_model_free(m);
  free(arena);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_and_crc),
      cmocka_unit_test(test_load_memory_modes),
      cmocka_unit_test(test_load_file),
      cmocka_unit_test(test_session_api),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
