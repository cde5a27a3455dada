/* test_draw.c — box outlines land where expected, 2 px thick, clipped, and bad boxes are safe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "yolort_image.h"

static const uint8_t *px(const yrt_image *im, int x, int y) { return im->rgb + ((size_t)y * im->w + x) * 3; }
static int is_black(const yrt_image *im, int x, int y) {
  const uint8_t *p = px(im, x, y);
  return p[0] == 0 && p[1] == 0 && p[2] == 0;
}

static void test_outline(void **state) {
  (void)state;
  yrt_image im = {100, 80, calloc(100 * 80, 3)};
  assert_non_null(im.rgb);
  yrt_detection d = {20.0f, 30.0f, 60.0f, 70.0f, 0.9f, 0, NULL};
  yrt_draw_detections(&im, &d, 1);
  /* Outline: rows 30,31 and 69,70; columns 20,21 and 59,60. Class 0 colour is FF3838. */
  const uint8_t *p = px(&im, 40, 30);
  assert_int_equal(p[0], 0xFF);
  assert_int_equal(p[1], 0x38);
  assert_false(is_black(&im, 40, 31));
  assert_true(is_black(&im, 40, 32));
  assert_false(is_black(&im, 40, 70));
  assert_false(is_black(&im, 20, 50));
  assert_false(is_black(&im, 60, 50));
  assert_true(is_black(&im, 40, 50)); /* inside untouched */
  assert_true(is_black(&im, 61, 50)); /* outside untouched */
  assert_true(is_black(&im, 10, 75));
  /* Another class gets another colour. */
  yrt_detection e = {70.0f, 40.0f, 90.0f, 60.0f, 0.5f, 5, NULL};
  yrt_draw_detections(&im, &e, 1);
  assert_true(memcmp(px(&im, 80, 60), px(&im, 40, 30), 3) != 0);
  free(im.rgb);
}

static void test_clipping_and_garbage(void **state) {
  (void)state;
  yrt_image im = {32, 24, calloc(32 * 24, 3)};
  assert_non_null(im.rgb);
  yrt_detection d[] = {
      {-50.0f, -50.0f, 500.0f, 500.0f, 0.9f, 1, NULL},    /* larger than the image */
      {NAN, 0.0f, 10.0f, 10.0f, 0.9f, 2, NULL},           /* skipped */
      {INFINITY, 0.0f, 10.0f, 10.0f, 0.9f, 2, NULL},      /* skipped */
      {10.0f, 10.0f, 5.0f, 5.0f, 0.9f, 123456789, NULL},  /* inverted corners, huge class id */
      {31.5f, 23.5f, 31.9f, 23.9f, 0.9f, -3, NULL},       /* sub-pixel at the corner, negative class */
  };
  yrt_draw_detections(&im, d, 5);
  assert_false(is_black(&im, 0, 12));
  assert_false(is_black(&im, 31, 18)); /* right edge (rows 5..13 hold the class-id tag of box 4) */
  yrt_draw_detections(NULL, d, 5);
  yrt_draw_detections(&im, NULL, 5);
  yrt_draw_detections(&im, d, 0);
  free(im.rgb);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_outline), cmocka_unit_test(test_clipping_and_garbage)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
