/* test_draw.c — box outlines land where expected, 2 px thick, clipped, and bad boxes are safe;
 * labels show name and score at a readable size. */
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

/* White pixels of a rectangle (the label's text on a dark tag). */
static int white_in(const yrt_image *im, int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++) {
      const uint8_t *p = px(im, x, y);
      n += p[0] == 255 && p[1] == 255 && p[2] == 255;
    }
  return n;
}

/* Issue 38 item 7: the class name and score, readable at 640 px: "person 0.87" (11 characters)
 * in 5x7 glyphs at twice their size, a tag of (11 x 6 + 1) x 2 by 9 x 2 pixels above the box,
 * white text on the class-0 red; an unnamed class shows its id. */
static void test_label(void **state) {
  (void)state;
  yrt_image im = {640, 480, calloc(640 * 480, 3)};
  assert_non_null(im.rgb);
  yrt_detection d = {100.0f, 100.0f, 300.0f, 300.0f, 0.87f, 0, "person"};
  yrt_draw_detections(&im, &d, 1);
  const int tw = (11 * 6 + 1) * 2, th = 9 * 2;
  assert_false(is_black(&im, 100 + tw - 1, 100 - th)); /* the tag's corners */
  assert_true(is_black(&im, 100 + tw, 100 - th));
  assert_true(is_black(&im, 100, 100 - th - 1));
  const int text = white_in(&im, 100, 100 - th, 100 + tw, 100);
  assert_true(text > 11 * 8 * 4); /* every glyph has strokes, each stroke pixel 2x2 */
  assert_int_equal(white_in(&im, 0, 0, 640, 480), text); /* text only on the tag */
  /* 'p' at glyph column 0, rows 2..6 (scaled: from y = 100 - 18 + 2 + 4): its stem is white */
  assert_int_equal(px(&im, 100 + 2, 100 - th + 2 + 2 * 2)[0], 255);
  /* unnamed: "7 0.50" is narrower than "person 0.87" */
  yrt_image im2 = {640, 480, calloc(640 * 480, 3)};
  assert_non_null(im2.rgb);
  yrt_detection e = {100.0f, 100.0f, 300.0f, 300.0f, 0.5f, 7, NULL};
  yrt_draw_detections(&im2, &e, 1);
  assert_false(is_black(&im2, 100 + (6 * 6 + 1) * 2 - 1, 100 - th));
  assert_true(is_black(&im2, 100 + (6 * 6 + 1) * 2, 100 - th));
  free(im2.rgb);
  free(im.rgb);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_outline), cmocka_unit_test(test_clipping_and_garbage),
                                     cmocka_unit_test(test_label)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
