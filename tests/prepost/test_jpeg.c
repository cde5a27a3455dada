/* test_jpeg.c — JPEG decode/encode: round trip, grayscale and CMYK sources, and every kind of
 * bad input (truncated, random bytes, empty, absurd header sizes) -> YRT_ERR_FORMAT, no crash.
 * Corrupt files are made here from a JPEG we encode, so no shared data is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "yolort_image.h"

static yrt_image make_pattern(int w, int h) {
  yrt_image im = {w, h, malloc((size_t)w * h * 3)};
  assert_non_null(im.rgb);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint8_t *p = im.rgb + ((size_t)y * w + x) * 3;
      p[0] = (uint8_t)(x * 255 / (w - 1));
      p[1] = (uint8_t)(y * 255 / (h - 1));
      p[2] = (uint8_t)((x + y) * 2);
    }
  return im;
}

/* Encodes a pattern with yrt_image_save_jpeg and returns the file bytes. */
static uint8_t *encoded_pattern(int w, int h, size_t *size) {
  char path[] = "/tmp/yrt_test_jpeg_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  yrt_image im = make_pattern(w, h);
  yrt_error err;
  assert_int_equal(yrt_image_save_jpeg(&im, path, 95, &err), YRT_OK);
  yrt_image_free(&im);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc((size_t)n);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  unlink(path);
  *size = (size_t)n;
  return buf;
}

static void test_round_trip(void **state) {
  (void)state;
  char path[] = "/tmp/yrt_test_jpeg_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  yrt_image src = make_pattern(97, 61), dec;
  yrt_error err;
  assert_int_equal(yrt_image_save_jpeg(&src, path, 95, &err), YRT_OK);
  assert_int_equal(yrt_image_load_jpeg(path, &dec, &err), YRT_OK);
  unlink(path);
  assert_int_equal(dec.w, 97);
  assert_int_equal(dec.h, 61);
  double sum = 0;
  for (size_t i = 0; i < (size_t)97 * 61 * 3; i++) sum += abs((int)src.rgb[i] - (int)dec.rgb[i]);
  double mean = sum / (97.0 * 61 * 3);
  print_message("round trip q95 mean abs error %.3f\n", mean);
  assert_true(mean < 3.0);
  yrt_image_free(&src);
  yrt_image_free(&dec);
  assert_null(dec.rgb);
}

static void expect_format_error(const void *data, size_t size, const char *what) {
  yrt_image im = {1, 1, (uint8_t *)1};
  yrt_error err = {{0}};
  yrt_status st = yrt_image_decode_jpeg(data, size, &im, &err);
  print_message("%s -> %s: %s\n", what, yrt_status_name(st), err.msg);
  assert_int_equal(st, YRT_ERR_FORMAT);
  assert_true(strlen(err.msg) > 0);
  assert_null(im.rgb);
  assert_int_equal(im.w, 0);
}

static void test_truncated(void **state) {
  (void)state;
  size_t n;
  uint8_t *jpg = encoded_pattern(64, 48, &n);
  expect_format_error(jpg, n / 2, "truncated half");
  expect_format_error(jpg, n - 2, "missing EOI");
  expect_format_error(jpg, 100, "header only");
  /* Garbage in the entropy-coded data: corrupt bytes near the end of the scan. */
  uint8_t *bad = malloc(n);
  assert_non_null(bad);
  memcpy(bad, jpg, n);
  for (size_t i = n - 40; i < n - 2; i++) bad[i] = 0xFF;
  expect_format_error(bad, n, "corrupt scan");
  free(bad);
  free(jpg);
}

static void test_random_and_empty(void **state) {
  (void)state;
  uint8_t rnd[4096];
  uint32_t s = 12345;
  for (size_t i = 0; i < sizeof rnd; i++) {
    s = s * 1664525u + 1013904223u;
    rnd[i] = (uint8_t)(s >> 24);
  }
  expect_format_error(rnd, sizeof rnd, "random bytes");
  rnd[0] = 0xFF;
  rnd[1] = 0xD8; /* SOI followed by garbage */
  expect_format_error(rnd, sizeof rnd, "SOI + random bytes");
  expect_format_error(rnd, 0, "zero length");
  expect_format_error(NULL, 0, "NULL, zero length");
  expect_format_error(rnd, 2, "SOI only");
}

/* Rewrites the SOF0 frame size. */
static void patch_sof(uint8_t *jpg, size_t n, int w, int h) {
  for (size_t i = 2; i + 9 < n; i++)
    if (jpg[i] == 0xFF && jpg[i + 1] == 0xC0) {
      jpg[i + 5] = (uint8_t)(h >> 8);
      jpg[i + 6] = (uint8_t)h;
      jpg[i + 7] = (uint8_t)(w >> 8);
      jpg[i + 8] = (uint8_t)w;
      return;
    }
  fail_msg("no SOF0 marker");
}

static void test_huge_header(void **state) {
  (void)state;
  size_t n;
  uint8_t *jpg = encoded_pattern(64, 48, &n);
  patch_sof(jpg, n, 65000, 65000);
  expect_format_error(jpg, n, "65000x65000 header");
  patch_sof(jpg, n, 16385, 8);
  expect_format_error(jpg, n, "16385 wide header");
  patch_sof(jpg, n, 0, 48);
  expect_format_error(jpg, n, "zero width header");
  /* Plausible size but the data does not cover it. */
  patch_sof(jpg, n, 4000, 3000);
  expect_format_error(jpg, n, "4000x3000 header over 64x48 data");
  free(jpg);
}

static void test_gray_and_cmyk(void **state) {
  (void)state;
  enum { W = 40, H = 24 };
  uint8_t px[W * H * 4];
  for (int i = 0; i < W * H; i++) {
    px[4 * i] = 200;      /* C (stored inverted, Adobe style) */
    px[4 * i + 1] = 100;  /* M */
    px[4 * i + 2] = (uint8_t)(i % W * 6); /* Y */
    px[4 * i + 3] = 255;  /* K: no black */
  }
  tjhandle tj = tjInitCompress();
  assert_non_null(tj);
  unsigned char *jpg = NULL;
  unsigned long n = 0;
  yrt_image im;
  yrt_error err;
  /* CMYK -> RGB: with K = 255 (inverted: no ink) R = C, G = M, B = Y. */
  assert_int_equal(tjCompress2(tj, px, W, 0, H, TJPF_CMYK, &jpg, &n, TJSAMP_444, 100, 0), 0);
  assert_int_equal(yrt_image_decode_jpeg(jpg, n, &im, &err), YRT_OK);
  assert_int_equal(im.w, W);
  assert_true(abs(im.rgb[0] - 200) <= 3 && abs(im.rgb[1] - 100) <= 3);
  assert_true(abs(im.rgb[3 * 20 + 2] - 120) <= 3);
  yrt_image_free(&im);
  tjFree(jpg);
  jpg = NULL;
  /* Grayscale -> R = G = B. */
  uint8_t gray[W * H];
  for (int i = 0; i < W * H; i++) gray[i] = (uint8_t)(i % 251);
  assert_int_equal(tjCompress2(tj, gray, W, 0, H, TJPF_GRAY, &jpg, &n, TJSAMP_GRAY, 100, 0), 0);
  assert_int_equal(yrt_image_decode_jpeg(jpg, n, &im, &err), YRT_OK);
  for (int i = 0; i < W * H; i++) {
    assert_int_equal(im.rgb[3 * i], im.rgb[3 * i + 1]);
    assert_int_equal(im.rgb[3 * i], im.rgb[3 * i + 2]);
    assert_true(abs(im.rgb[3 * i] - gray[i]) <= 2);
  }
  yrt_image_free(&im);
  tjFree(jpg);
  tjDestroy(tj);
}

static void test_io_errors(void **state) {
  (void)state;
  yrt_image im;
  yrt_error err;
  assert_int_equal(yrt_image_load_jpeg("/nonexistent/dir/x.jpg", &im, &err), YRT_ERR_IO);
  assert_non_null(strstr(err.msg, "/nonexistent/dir/x.jpg"));
  /* A file that is not a JPEG: the message names the file. */
  char path[] = "/tmp/yrt_test_jpeg_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "hello, not a jpeg", 17), 17);
  close(fd);
  assert_int_equal(yrt_image_load_jpeg(path, &im, &err), YRT_ERR_FORMAT);
  print_message("%s\n", err.msg);
  assert_non_null(strstr(err.msg, path));
  unlink(path);
  yrt_image small = make_pattern(8, 8);
  assert_int_equal(yrt_image_save_jpeg(&small, "/nonexistent/dir/y.jpg", 90, &err), YRT_ERR_IO);
  assert_int_equal(yrt_image_save_jpeg(&small, "/tmp/unused.jpg", 0, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_image_decode_jpeg("x", 1, NULL, &err), YRT_ERR_INVALID_ARG);
  yrt_image_free(&small);
  yrt_image_free(NULL);
}

/* Encoding to memory: the same bytes yrt_image_save_jpeg writes (it is this plus a write), odd
 * sizes, and bad arguments refused with the result pointers cleared. */
static void test_encode_memory(void **state) {
  (void)state;
  const int sizes[4][2] = {{2, 2}, {97, 61}, {3, 200}, {16, 17}}; /* make_pattern needs 2+ */
  for (int k = 0; k < 4; k++) {
    size_t file_size = 0, mem_size = 0;
    uint8_t *file = encoded_pattern(sizes[k][0], sizes[k][1], &file_size);
    yrt_image im = make_pattern(sizes[k][0], sizes[k][1]);
    void *mem = NULL;
    yrt_error err;
    assert_int_equal(yrt_image_encode_jpeg(&im, 95, &mem, &mem_size, &err), YRT_OK);
    assert_int_equal(mem_size, file_size);
    assert_memory_equal(mem, file, file_size);
    yrt_image dec;
    assert_int_equal(yrt_image_decode_jpeg(mem, mem_size, &dec, &err), YRT_OK);
    assert_int_equal(dec.w, sizes[k][0]);
    assert_int_equal(dec.h, sizes[k][1]);
    yrt_image_free(&dec);
    free(mem);
    free(file);
    yrt_image_free(&im);
  }
  yrt_image im = make_pattern(4, 4), none = {4, 4, NULL};
  void *mem = (void *)1;
  size_t n = 7;
  yrt_error err;
  assert_int_equal(yrt_image_encode_jpeg(&im, 0, &mem, &n, &err), YRT_ERR_INVALID_ARG);
  assert_null(mem);
  assert_int_equal(n, 0);
  assert_int_equal(yrt_image_encode_jpeg(&im, 101, &mem, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_image_encode_jpeg(&none, 90, &mem, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_image_encode_jpeg(NULL, 90, &mem, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_image_encode_jpeg(&im, 90, NULL, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_image_encode_jpeg(&im, 90, &mem, NULL, &err), YRT_ERR_INVALID_ARG);
  yrt_image_free(&im);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),   cmocka_unit_test(test_truncated),
      cmocka_unit_test(test_random_and_empty), cmocka_unit_test(test_huge_header),
      cmocka_unit_test(test_gray_and_cmyk), cmocka_unit_test(test_io_errors),
      cmocka_unit_test(test_encode_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
