/* test_api_args.c — every public function of yolort.h with NULL, out-of-range and hostile
 * arguments: no crash, the documented status, and a message (when err is given). Also each
 * documented error of the loader (FORMAT / UNSUPPORTED / IO / INVALID_ARG) on a real converted model,
 * and that err may always be NULL. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rel_models.h"
#include "yolort_image.h"
#include "yolort_format.h"

/* call must return code and leave a message in err. */
#define EXPECT_ERR(code, call)                           \
  do {                                                   \
    err.msg[0] = 0;                                      \
    yrt_status st_ = (call);                             \
    assert_int_equal(st_, (code));                       \
    if (!err.msg[0]) fail_msg("no message for %s", #call); \
  } while (0)

static void *model_bytes(rel_model_kind k, size_t *n) {
  void *buf = NULL;
  yrt_error err;
  if (rel_model_yrt(k, &buf, n, &err) != YRT_OK) fail_msg("rel_model_yrt: %s", err.msg);
  return buf;
}

static yrt_model *load_model(rel_model_kind k) {
  size_t n = 0;
  void *buf = model_bytes(k, &n);
  yrt_model *m = NULL;
  yrt_error err;
  if (yrt_model_load_memory(buf, n, 1, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  free(buf);
  return m;
}

static void tmp_path(char *out, size_t cap, const char *what) {
  snprintf(out, cap, "%s/tests/reliability/tmp_%ld_%s", YOLORT_BINARY_DIR, (long)getpid(), what);
}

static void write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

static void fix_crc(uint8_t *buf, size_t n) {
  yrt_file_header h;
  memcpy(&h, buf, sizeof h);
  h.crc32 = yrt_crc32(0, buf + sizeof h, n - sizeof h);
  memcpy(buf, &h, sizeof h);
}

/* ------------------------------------------------------------ status / error */

static void test_status_and_error(void **state) {
  (void)state;
  for (int s = YRT_OK; s <= YRT_ERR_SHAPE; s++) {
    const char *n = yrt_status_name((yrt_status)s);
    assert_non_null(n);
    assert_true(strncmp(n, "YRT_", 4) == 0);
  }
  assert_non_null(yrt_status_name((yrt_status)99));
  assert_non_null(yrt_status_name((yrt_status)-1));
  assert_int_equal(yrt_set_error(NULL, YRT_ERR_IO, "x %d", 1), YRT_ERR_IO);
  yrt_error err;
  char big[2000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = 0;
  assert_int_equal(yrt_set_error(&err, YRT_ERR_FORMAT, "%s", big), YRT_ERR_FORMAT);
  assert_int_equal(strlen(err.msg), sizeof err.msg - 1); /* truncated, terminated */
}

/* ------------------------------------------------------------------- model */

static void test_model_load_args(void **state) {
  (void)state;
  yrt_error err;
  yrt_model *m = (yrt_model *)(uintptr_t)1;
  size_t n = 0;
  void *buf = model_bytes(REL_MODEL_QDQ_YOLO, &n);
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_model_load_memory(buf, n, 1, NULL, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_model_load_memory(NULL, n, 1, &m, &err));
  assert_null(m);
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_memory(NULL, 0, 1, &m, &err));
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_memory(buf, 0, 0, &m, &err));
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_memory(buf, 63, 1, &m, &err));
  /* in place needs YRT_ALIGN alignment */
  uint8_t *odd = malloc(n + 1);
  assert_non_null(odd);
  memcpy(odd + 1, buf, n);
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_model_load_memory(odd + 1, n, 0, &m, &err));
  assert_null(m);
  /* ... but a copy may come from anywhere */
  assert_int_equal(yrt_model_load_memory(odd + 1, n, 1, &m, NULL), YRT_OK);
  yrt_model_free(m);
  free(odd);
  /* in place, aligned */
  assert_int_equal(yrt_model_load_memory(buf, n, 0, &m, &err), YRT_OK);
  yrt_model_free(m);
  yrt_model_free(NULL);
  assert_int_equal(yrt_model_load_memory(NULL, 5, 1, &m, NULL), YRT_ERR_INVALID_ARG); /* err may be NULL */

  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_model_load_file(NULL, &m, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_model_load_file("x.yrt", NULL, &err));
  free(buf);
}

/* Each documented loader error, made by editing a good file. */
static void test_model_load_errors(void **state) {
  (void)state;
  yrt_error err;
  yrt_model *m = NULL;
  size_t n = 0;
  uint8_t *good = model_bytes(REL_MODEL_QDQ_YOLO, &n);
  uint8_t *b = aligned_alloc(64, (n + 63) / 64 * 64);
  assert_non_null(b);
  yrt_file_header h;

  memcpy(b, good, n);
  b[0] ^= 1; /* magic */
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_memory(b, n, 0, &m, &err));
  assert_non_null(strstr(err.msg, "magic"));

  memcpy(b, good, n);
  memcpy(&h, b, sizeof h);
  h.version = YRT_VERSION + 1;
  memcpy(b, &h, sizeof h);
  EXPECT_ERR(YRT_ERR_UNSUPPORTED, yrt_model_load_memory(b, n, 0, &m, &err));

  memcpy(b, good, n);
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_memory(b, n - 64, 0, &m, &err)); /* truncated */
  assert_non_null(strstr(err.msg, "truncated"));

  memcpy(b, good, n);
  b[n - 1] ^= 0x40; /* payload corrupted */
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_memory(b, n, 0, &m, &err));
  assert_non_null(strstr(err.msg, "crc"));

  memcpy(b, good, n);
  memcpy(&h, b, sizeof h);
  h.n_sections = 0;
  memcpy(b, &h, sizeof h);
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_memory(b, n, 0, &m, &err));

  memcpy(b, good, n);
  memcpy(&h, b, sizeof h);
  h.section_table_offset = n; /* past the end, CRC still valid */
  memcpy(b, &h, sizeof h);
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_memory(b, n, 0, &m, &err));

  /* A section record pointing outside the file, with a recomputed CRC. */
  memcpy(b, good, n);
  memcpy(&h, b, sizeof h);
  yrt_section_rec s;
  memcpy(&s, b + h.section_table_offset, sizeof s);
  s.size = (uint64_t)n;
  memcpy(b + h.section_table_offset, &s, sizeof s);
  fix_crc(b, n);
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_memory(b, n, 0, &m, &err));
  assert_null(m);

  /* Files: missing, a directory, too short, a good one. */
  char path[1024];
  EXPECT_ERR(YRT_ERR_IO, yrt_model_load_file("/nonexistent/dir/model.yrt", &m, &err));
  EXPECT_ERR(YRT_ERR_IO, yrt_model_load_file(YOLORT_BINARY_DIR, &m, &err));
  tmp_path(path, sizeof path, "short.yrt");
  write_bytes(path, good, 10);
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_file(path, &m, &err));
  assert_non_null(strstr(err.msg, path));
  tmp_path(path, sizeof path, "bad.yrt");
  memcpy(b, good, n);
  b[n - 1] ^= 0x40;
  write_bytes(path, b, n);
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_model_load_file(path, &m, &err));
  assert_non_null(strstr(err.msg, path)); /* the message names the file */
  unlink(path);
  tmp_path(path, sizeof path, "good.yrt");
  write_bytes(path, good, n);
  assert_int_equal(yrt_model_load_file(path, &m, &err), YRT_OK);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  assert_int_equal((int)info.file_bytes, (int)n);
  yrt_model_free(m);
  unlink(path);
  tmp_path(path, sizeof path, "short.yrt");
  unlink(path);
  free(b);
  free(good);
}

static void test_model_info_args(void **state) {
  (void)state;
  yrt_model *m = load_model(REL_MODEL_QDQ_YOLO);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(NULL, &info), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_model_get_info(m, NULL), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  assert_int_equal(info.input_w, 16);
  assert_int_equal(info.num_classes, 2);
  assert_int_equal(info.num_inputs, 1);
  assert_int_equal(info.num_outputs, 1);
  assert_true(info.num_int8_nodes > 0);
  assert_null(yrt_model_class_name(NULL, 0));
  assert_null(yrt_model_class_name(m, -1));
  assert_null(yrt_model_class_name(m, INT_MIN));
  assert_null(yrt_model_class_name(m, info.num_classes));
  assert_null(yrt_model_class_name(m, INT_MAX));
  assert_string_equal(yrt_model_class_name(m, 0), "cat");
  assert_string_equal(yrt_model_class_name(m, 1), "dog");
  yrt_model_free(m);
}

/* ----------------------------------------------------------------- session */

static void test_session_create_args(void **state) {
  (void)state;
  yrt_error err;
  yrt_model *m = load_model(REL_MODEL_QDQ_YOLO);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  yrt_session *s = (yrt_session *)(uintptr_t)1;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_create(NULL, NULL, &s, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_create(m, NULL, NULL, &err));
  yrt_session_options o = {0};
  o.num_threads = -1;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_create(m, &o, &s, &err));
  assert_null(s);
  o.num_threads = YRT_MAX_THREADS + 1; /* issue 19: 100000 blocked in pthreadpool_create */
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_create(m, &o, &s, &err));
  assert_null(s);
  o.num_threads = 100000;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_create(m, &o, &s, &err));
  o.num_threads = 0;
  uint8_t *arena = aligned_alloc(64, info.arena_bytes + 64);
  assert_non_null(arena);
  o.arena = arena + 1; /* misaligned */
  o.arena_bytes = info.arena_bytes;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_create(m, &o, &s, &err));
  o.arena = arena;
  o.arena_bytes = info.arena_bytes - 1; /* too small */
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_create(m, &o, &s, &err));
  assert_int_equal(yrt_session_create(m, &o, &s, NULL), YRT_ERR_INVALID_ARG);
  /* caller arena of the right size: same result as an owned arena */
  o.arena_bytes = info.arena_bytes;
  yrt_session *s2 = NULL;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  assert_int_equal(yrt_session_create(m, NULL, &s2, &err), YRT_OK);
  const size_t numel = 3 * 16 * 16;
  float *x = malloc(numel * sizeof(float));
  assert_non_null(x);
  for (size_t i = 0; i < numel; i++) x[i] = (float)(i % 17) / 16.0f;
  assert_int_equal(yrt_session_set_input(s, 0, x, numel, &err), YRT_OK);
  assert_int_equal(yrt_session_set_input(s2, 0, x, numel, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s2, &err), YRT_OK);
  yrt_tensor_view v1, v2;
  assert_int_equal(yrt_session_output(s, 0, &v1, &err), YRT_OK);
  assert_int_equal(yrt_session_output(s2, 0, &v2, &err), YRT_OK);
  assert_int_equal(v1.count, v2.count);
  assert_memory_equal(v1.data, v2.data, v1.count * sizeof(float));
  yrt_session_free(s);
  yrt_session_free(s2);
  yrt_session_free(NULL);
  free(x);
  free(arena);
  yrt_model_free(m);
}

/* Options that can grow (issue 16): struct_size from yrt_session_options_init; 0 = the first
 * four fields; a newer caller's larger struct is read when its unknown tail is zero. */
static void test_session_options_growth(void **state) {
  (void)state;
  yrt_error err;
  yrt_model *m = load_model(REL_MODEL_QDQ_YOLO);
  yrt_session *s = NULL;
  yrt_session_options o;
  o.num_threads = 7; /* init must reset every field */
  yrt_session_options_init(&o);
  assert_int_equal(o.struct_size, sizeof o);
  assert_int_equal(o.num_threads, 0);
  assert_null(o.arena);
  o.num_threads = 2;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  yrt_session_free(s);
  o.struct_size = 0; /* an old caller's designated initializer */
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  yrt_session_free(s);
  o.struct_size = 3; /* inside the old fields */
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_create(m, &o, &s, &err));
  assert_null(s);
  /* a program built against a newer header: more fields, zero here (defaults) */
  struct {
    yrt_session_options o;
    uint64_t newer[4];
  } big;
  memset(&big, 0, sizeof big);
  big.o.num_threads = 1;
  big.o.struct_size = sizeof big;
  assert_int_equal(yrt_session_create(m, &big.o, &s, &err), YRT_OK);
  yrt_session_free(s);
  s = NULL;
  big.newer[2] = 1; /* a field this library cannot honour */
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_create(m, &big.o, &s, &err));
  assert_non_null(strstr(err.msg, "newer"));
  assert_null(s);
  yrt_model_free(m);
}

static void test_session_io_args(void **state) {
  (void)state;
  yrt_error err;
  yrt_model *m = load_model(REL_MODEL_QDQ_YOLO);
  yrt_session *s = NULL;
  assert_int_equal(yrt_session_create(m, NULL, &s, &err), YRT_OK);
  const size_t numel = 3 * 16 * 16;
  float *x = calloc(numel, sizeof(float));
  assert_non_null(x);
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_set_input(NULL, 0, x, numel, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_set_input(s, 0, NULL, numel, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_set_input(s, -1, x, numel, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_set_input(s, 1, x, numel, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_set_input(s, INT_MAX, x, numel, &err));
  EXPECT_ERR(YRT_ERR_SHAPE, yrt_session_set_input(s, 0, x, numel - 1, &err));
  EXPECT_ERR(YRT_ERR_SHAPE, yrt_session_set_input(s, 0, x, SIZE_MAX, &err));
  assert_int_equal(yrt_session_set_input(s, 0, x, 0, NULL), YRT_ERR_SHAPE);
  assert_null(yrt_session_input_nhwc(NULL, 0));
  assert_null(yrt_session_input_nhwc(s, -1));
  assert_null(yrt_session_input_nhwc(s, 1));
  assert_non_null(yrt_session_input_nhwc(s, 0));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_run(NULL, &err));
  assert_int_equal(yrt_session_run(NULL, NULL), YRT_ERR_INVALID_ARG);
  /* Input of NaN / inf must not crash the int8 graph (quantize saturates). */
  for (size_t i = 0; i < numel; i++) x[i] = i % 3 == 0 ? NAN : (i % 3 == 1 ? INFINITY : -1e30f);
  assert_int_equal(yrt_session_set_input(s, 0, x, numel, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_tensor_view v;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_output(NULL, 0, &v, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_output(s, 0, NULL, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_output(s, -1, &v, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_session_output(s, 1, &v, &err));
  assert_int_equal(yrt_session_output(s, 0, &v, NULL), YRT_OK);
  assert_int_equal(v.rank, 3);
  assert_int_equal(v.dims[1], 6);
  assert_int_equal(v.dims[2], 64);
  assert_int_equal(v.count, 6 * 64);
  free(x);
  yrt_session_free(s);
  yrt_model_free(m);
}

static void test_session_accessors_args(void **state) {
  (void)state;
  yrt_error err;
  yrt_model *m = load_model(REL_MODEL_F32_YOLO);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  yrt_session *s = NULL;
  assert_int_equal(yrt_session_create(m, NULL, &s, &err), YRT_OK);
  yrt_session_set_profiling(NULL, 1);
  yrt_session_set_profiling(s, 1);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  uint64_t ns[4] = {0};
  assert_int_equal(yrt_session_node_times(NULL, ns, 4), 0);
  assert_int_equal(yrt_session_node_times(s, NULL, 4), info.num_nodes);
  assert_int_equal(yrt_session_node_times(s, ns, -3), info.num_nodes);
  assert_int_equal(yrt_session_node_times(s, ns, 4), info.num_nodes);
  assert_null(yrt_session_node_kind(NULL, 0));
  assert_null(yrt_session_node_kind(s, -1));
  assert_null(yrt_session_node_kind(s, info.num_nodes));
  assert_null(yrt_session_node_name(NULL, 0));
  assert_null(yrt_session_node_name(s, -1));
  assert_null(yrt_session_node_name(s, info.num_nodes));
  for (int i = 0; i < info.num_nodes; i++) {
    assert_non_null(yrt_session_node_kind(s, i));
    assert_non_null(yrt_session_node_name(s, i));
  }
  yrt_session_set_profiling(s, 0);
  yrt_session_free(s);
  yrt_model_free(m);
}

/* --------------------------------------------------------- pre-processing */

static void test_jpeg_args(void **state) {
  (void)state;
  yrt_error err;
  yrt_image img = {7, 7, (uint8_t *)(uintptr_t)1};
  static const uint8_t junk[64] = {0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3};
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_decode_jpeg(junk, sizeof junk, NULL, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_decode_jpeg(NULL, 100, &img, &err));
  assert_null(img.rgb);
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_image_decode_jpeg(NULL, 0, &img, &err));
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_image_decode_jpeg(junk, 3, &img, &err));
  EXPECT_ERR(YRT_ERR_FORMAT, yrt_image_decode_jpeg(junk, sizeof junk, &img, &err));
  assert_null(img.rgb);
  assert_int_equal(img.w, 0);

  /* Encode a good image, then every truncation of it is an error (or, at the very end, OK). */
  yrt_image src = {13, 11, malloc(13 * 11 * 3)};
  assert_non_null(src.rgb);
  for (int i = 0; i < 13 * 11 * 3; i++) src.rgb[i] = (uint8_t)(i * 7);
  char path[1024];
  tmp_path(path, sizeof path, "img.jpg");
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_save_jpeg(NULL, path, 90, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_save_jpeg(&src, NULL, 90, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_save_jpeg(&src, path, 0, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_save_jpeg(&src, path, 101, &err));
  yrt_image bad = {0, 11, src.rgb};
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_save_jpeg(&bad, path, 90, &err));
  bad.w = 13;
  bad.rgb = NULL;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_save_jpeg(&bad, path, 90, &err));
  EXPECT_ERR(YRT_ERR_IO, yrt_image_save_jpeg(&src, "/nonexistent/dir/x.jpg", 90, &err));
  assert_int_equal(yrt_image_save_jpeg(&src, path, 90, &err), YRT_OK);

  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_load_jpeg(NULL, &img, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_image_load_jpeg(path, NULL, &err));
  EXPECT_ERR(YRT_ERR_IO, yrt_image_load_jpeg("/nonexistent/dir/x.jpg", &img, &err));
  EXPECT_ERR(YRT_ERR_IO, yrt_image_load_jpeg(YOLORT_BINARY_DIR, &img, &err));
  assert_int_equal(yrt_image_load_jpeg(path, &img, &err), YRT_OK);
  assert_int_equal(img.w, 13);
  assert_int_equal(img.h, 11);
  yrt_image_free(&img);
  assert_null(img.rgb);
  yrt_image_free(&img); /* twice is fine */
  yrt_image_free(NULL);

  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  uint8_t jpg[8192];
  size_t n = fread(jpg, 1, sizeof jpg, f);
  fclose(f);
  unlink(path);
  assert_true(n > 100 && n < sizeof jpg);
  for (size_t cut = 0; cut < n - 2; cut += 1 + cut / 16) {
    yrt_status st = yrt_image_decode_jpeg(jpg, cut, &img, &err);
    assert_int_equal(st, YRT_ERR_FORMAT);
    assert_null(img.rgb);
  }
  free(src.rgb);
}

static void test_letterbox_args(void **state) {
  (void)state;
  yrt_error err;
  yrt_image img = {5, 3, malloc(5 * 3 * 3)};
  assert_non_null(img.rgb);
  memset(img.rgb, 200, 5 * 3 * 3);
  float dst[8 * 8 * 3];
  size_t sb = yrt_letterbox_scratch_bytes(5, 3, 8, 8);
  void *scratch = malloc(sb ? sb : 1);
  assert_non_null(scratch);
  yrt_letterbox lb;
  assert_int_equal(yrt_letterbox_scratch_bytes(0, 3, 8, 8), 0);
  assert_int_equal(yrt_letterbox_scratch_bytes(5, -3, 8, 8), 0);
  assert_int_equal(yrt_letterbox_scratch_bytes(5, 3, 0, 8), 0);
  assert_int_equal(yrt_letterbox_scratch_bytes(5, 3, 8, INT_MIN), 0);
  (void)yrt_letterbox_scratch_bytes(INT_MAX, 1, 640, 640); /* no UB on extreme sizes */
  (void)yrt_letterbox_scratch_bytes(1, INT_MAX, 640, 640);
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_letterbox_f32(NULL, 8, 8, dst, sizeof dst / sizeof dst[0], scratch, &lb, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_letterbox_f32(&img, 8, 8, NULL, sizeof dst / sizeof dst[0], scratch, &lb, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_letterbox_f32(&img, 8, 8, dst, sizeof dst / sizeof dst[0], NULL, &lb, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_letterbox_f32(&img, 0, 8, dst, sizeof dst / sizeof dst[0], scratch, &lb, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_letterbox_f32(&img, 8, -1, dst, sizeof dst / sizeof dst[0], scratch, &lb, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_letterbox_f32(&img, INT_MAX, 8, dst, sizeof dst / sizeof dst[0], scratch, &lb, &err));
  yrt_image bad = {0, 3, img.rgb};
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_letterbox_f32(&bad, 8, 8, dst, sizeof dst / sizeof dst[0], scratch, &lb, &err));
  bad.w = 5;
  bad.h = -2;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_letterbox_f32(&bad, 8, 8, dst, sizeof dst / sizeof dst[0], scratch, &lb, &err));
  bad.h = 3;
  bad.rgb = NULL;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_letterbox_f32(&bad, 8, 8, dst, sizeof dst / sizeof dst[0], scratch, &lb, &err));
  /* lb may be NULL */
  assert_int_equal(yrt_letterbox_f32(&img, 8, 8, dst, sizeof dst / sizeof dst[0], scratch, NULL, &err), YRT_OK);
  assert_int_equal(yrt_letterbox_f32(&img, 8, 8, dst, sizeof dst / sizeof dst[0], scratch, &lb, NULL), YRT_OK);
  assert_true(lb.ratio > 0);
  /* 1x1 destinations and 1xN sources */
  float one[3];
  yrt_image thin = {1, 40, malloc(40 * 3)};
  assert_non_null(thin.rgb);
  memset(thin.rgb, 10, 40 * 3);
  void *s2 = malloc(yrt_letterbox_scratch_bytes(1, 40, 1, 1) + 1);
  assert_non_null(s2);
  assert_int_equal(yrt_letterbox_f32(&thin, 1, 1, one, 3, s2, &lb, &err), YRT_OK);
  free(s2);
  s2 = malloc(yrt_letterbox_scratch_bytes(1, 40, 8, 8) + 1);
  assert_non_null(s2);
  assert_int_equal(yrt_letterbox_f32(&thin, 8, 8, dst, sizeof dst / sizeof dst[0], s2, &lb, &err), YRT_OK);
  for (int i = 0; i < 8 * 8 * 3; i++) assert_true(dst[i] >= 0.0f && dst[i] <= 1.0f);
  free(s2);
  free(thin.rgb);
  free(scratch);
  free(img.rgb);
}

/* -------------------------------------------------------- post-processing */

/* yrt_postprocess_params can grow (issue 16): struct_size from init / defaults; 0 = the six
 * fields (a designated initializer); inside them refused; a newer caller's larger struct read
 * when its unknown tail is zero, refused when set. Same answers from every accepted form. */
static void test_postprocess_params_growth(void **state) {
  (void)state;
  yrt_error err;
  enum { NC = 3, NA = 8 };
  float out[(4 + NC) * NA];
  for (int i = 0; i < (4 + NC) * NA; i++) out[i] = (float)(i % 11) / 10.0f;
  yrt_postprocess_params p;
  p.iou_threshold = 9.0f; /* init must reset every field */
  yrt_postprocess_params_init(&p);
  assert_int_equal(p.struct_size, sizeof p);
  assert_float_equal(p.iou_threshold, 0.45f, 0);
  yrt_postprocess_params d;
  yrt_postprocess_defaults(&d);
  assert_int_equal(d.struct_size, offsetof(yrt_postprocess_params, struct_size) + sizeof(size_t)); /* v1's bytes */
  void *scratch = malloc(yrt_postprocess_scratch_bytes(NA, 300));
  assert_non_null(scratch);
  yrt_detection a[NA], b[NA];
  int na = -1, nb = -1;
  assert_int_equal(yrt_postprocess(out, NC, NA, NULL, &p, scratch, a, NA, &na, &err), YRT_OK);
  const yrt_postprocess_params old = {.conf_threshold = 0.25f, .iou_threshold = 0.45f, .max_detections = 300};
  assert_int_equal(yrt_postprocess(out, NC, NA, NULL, &old, scratch, b, NA, &nb, &err), YRT_OK);
  assert_int_equal(na, nb);
  assert_memory_equal(a, b, sizeof a[0] * (size_t)na);
  const int n_ref = na;
  yrt_postprocess_params q = p;
  q.struct_size = 5;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &q, scratch, a, NA, &na, &err));
  assert_non_null(strstr(err.msg, "struct_size"));
  float e2e[6] = {1, 2, 3, 4, 0.9f, 1};
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess_e2e(e2e, 1, NC, NULL, &q, a, NA, &na, &err));
  assert_int_equal(yrt_postprocess_e2e(e2e, 1, NC, NULL, &p, a, NA, &na, &err), YRT_OK);
  assert_int_equal(na, 1);
  struct {
    yrt_postprocess_params p;
    uint64_t newer[3];
  } big;
  memset(&big, 0, sizeof big);
  big.p = p;
  big.p.struct_size = sizeof big;
  assert_int_equal(yrt_postprocess(out, NC, NA, NULL, &big.p, scratch, b, NA, &nb, &err), YRT_OK);
  assert_int_equal(nb, n_ref);
  big.newer[0] = 1;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &big.p, scratch, b, NA, &nb, &err));
  assert_non_null(strstr(err.msg, "newer"));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess_e2e(e2e, 1, NC, NULL, &big.p, a, NA, &na, &err));
  free(scratch);
}

static void test_postprocess_args(void **state) {
  (void)state;
  yrt_error err;
  enum { NC = 3, NA = 8 };
  float out[(4 + NC) * NA];
  for (int i = 0; i < (4 + NC) * NA; i++) out[i] = (float)(i % 11) / 10.0f;
  yrt_postprocess_params p;
  yrt_postprocess_defaults(NULL);
  yrt_postprocess_defaults(&p);
  assert_int_equal(p.max_detections, 300);
  assert_int_equal(yrt_postprocess_scratch_bytes(-1, 10), 0);
  void *scratch = malloc(yrt_postprocess_scratch_bytes(NA, p.max_detections));
  assert_non_null(scratch);
  yrt_detection dets[NA];
  int n = -1;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(NULL, NC, NA, NULL, &p, scratch, dets, NA, &n, &err));
  assert_int_equal(n, 0);
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, NULL, scratch, dets, NA, &n, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &p, NULL, dets, NA, &n, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &p, scratch, NULL, NA, &n, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &p, scratch, dets, NA, NULL, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, 0, NA, NULL, &p, scratch, dets, NA, &n, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, -4, NA, NULL, &p, scratch, dets, NA, &n, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, -1, NULL, &p, scratch, dets, NA, &n, &err));
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &p, scratch, dets, -1, &n, &err));
  yrt_postprocess_params q = p;
  q.iou_threshold = NAN;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &q, scratch, dets, NA, &n, &err));
  q = p;
  q.iou_threshold = 1.5f;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &q, scratch, dets, NA, &n, &err));
  q = p;
  q.conf_threshold = NAN;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &q, scratch, dets, NA, &n, &err));
  q = p;
  q.max_detections = -1;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, NULL, &q, scratch, dets, NA, &n, &err));
  yrt_letterbox lb = {0};
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, &lb, &p, scratch, dets, NA, &n, &err));
  lb.ratio = NAN;
  EXPECT_ERR(YRT_ERR_INVALID_ARG, yrt_postprocess(out, NC, NA, &lb, &p, scratch, dets, NA, &n, &err));
  /* Legal corner cases: no anchors, cap 0 with NULL dets, max_detections 0. */
  assert_int_equal(yrt_postprocess(out, NC, 0, NULL, &p, scratch, dets, NA, &n, &err), YRT_OK);
  assert_int_equal(n, 0);
  assert_int_equal(yrt_postprocess(out, NC, NA, NULL, &p, scratch, NULL, 0, &n, &err), YRT_OK);
  assert_int_equal(n, 0);
  q = p;
  q.max_detections = 0;
  assert_int_equal(yrt_postprocess(out, NC, NA, NULL, &q, scratch, dets, NA, &n, &err), YRT_OK);
  assert_int_equal(n, 0);
  /* Hostile network output: NaN/inf boxes and scores; never more than cap. */
  for (int i = 0; i < (4 + NC) * NA; i++) out[i] = i % 5 == 0 ? NAN : (i % 5 == 1 ? INFINITY : (i % 5 == 2 ? -INFINITY : 0.9f));
  q = p;
  q.conf_threshold = -INFINITY;
  assert_int_equal(yrt_postprocess(out, NC, NA, NULL, &q, scratch, dets, 3, &n, &err), YRT_OK);
  assert_true(n >= 0 && n <= 3);
  lb.ratio = 0.5f;
  lb.src_w = lb.src_h = 10;
  lb.dst_w = lb.dst_h = 8;
  assert_int_equal(yrt_postprocess(out, NC, NA, &lb, &p, scratch, dets, NA, &n, NULL), YRT_OK);
  assert_true(n >= 0 && n <= NA);
  free(scratch);
}

static void test_draw_args(void **state) {
  (void)state;
  yrt_image img = {9, 7, malloc(9 * 7 * 3)};
  assert_non_null(img.rgb);
  memset(img.rgb, 0, 9 * 7 * 3);
  yrt_detection d[6] = {
      {-1e30f, -1e30f, 1e30f, 1e30f, 0.9f, 0, NULL},
      {NAN, 1, 2, 3, 0.9f, 1, NULL},
      {1, 1, INFINITY, 3, 0.9f, INT_MAX, NULL},
      {5, 5, 2, 2, 0.9f, -5, NULL}, /* inverted */
      {8, 6, 8, 6, 0.9f, INT_MIN, NULL},
      {3e9f, -3e9f, 4e9f, 2, 0.9f, 79, NULL},
  };
  yrt_draw_detections(NULL, d, 6);
  yrt_draw_detections(&img, NULL, 6);
  yrt_draw_detections(&img, d, -1);
  yrt_draw_detections(&img, d, 0);
  yrt_draw_detections(&img, d, 6);
  yrt_image bad = {0, 7, img.rgb};
  yrt_draw_detections(&bad, d, 6);
  bad.w = 9;
  bad.rgb = NULL;
  yrt_draw_detections(&bad, d, 6);
  free(img.rgb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_and_error),       cmocka_unit_test(test_model_load_args),
      cmocka_unit_test(test_model_load_errors),      cmocka_unit_test(test_model_info_args),
      cmocka_unit_test(test_session_create_args),    cmocka_unit_test(test_session_options_growth),
      cmocka_unit_test(test_session_io_args),
      cmocka_unit_test(test_session_accessors_args), cmocka_unit_test(test_jpeg_args),
      cmocka_unit_test(test_letterbox_args),         cmocka_unit_test(test_postprocess_args),
      cmocka_unit_test(test_postprocess_params_growth),
      cmocka_unit_test(test_draw_args),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
