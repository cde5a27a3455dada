/* test_coco_rotated.c — the rotated-box evaluation (coco_map.h, tools/eval/rotated_iou.c, obb labels):
 * probiou against values of Ultralytics' probiou formula computed here in another arrangement
 * (identical boxes ~1, a box against itself turned by pi / 2 with w, h swapped exactly the same,
 * far apart ~0); polygon IoU of quadrilaterals with known areas (two unit squares half
 * overlapping, a square and itself rotated by 45 degrees: the octagon), corner order and
 * direction free; obb labels read to pixels with their rotated and enclosing boxes, bad lines
 * refused naming file:line; the rotated AP of a small set (perfect detections AP 1, one missed of
 * two AP50 ~0.5, probiou and polygon each). */
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

#include "coco_map.h"

#define YPI 3.14159265358979f

/* cx cy w h angle, corners filled as Ultralytics xywhr2xyxyxyxy */
static void rbox(float *r, float cx, float cy, float w, float h, float a) {
  r[0] = cx, r[1] = cy, r[2] = w, r[3] = h, r[4] = a;
  const float wx = w / 2 * cosf(a), wy = w / 2 * sinf(a), hx = -h / 2 * sinf(a), hy = h / 2 * cosf(a);
  const float c[8] = {cx + wx + hx, cy + wy + hy, cx + wx - hx, cy + wy - hy,
                      cx - wx - hx, cy - wy - hy, cx - wx + hx, cy - wy + hy};
  memcpy(r + 5, c, sizeof c);
}

static void test_probiou(void **state) {
  (void)state;
  float a[COCO_RBOX_FLOATS], b[COCO_RBOX_FLOATS];
  rbox(a, 50, 40, 30, 10, 0.3f);
  assert_true(fabs(coco_probiou(a, a) - 1.0) < 1e-3);
  rbox(b, 50, 40, 10, 30, 0.3f + YPI / 2); /* the same rectangle */
  assert_true(fabs(coco_probiou(a, b) - coco_probiou(a, a)) < 1e-6);
  rbox(b, 500, 400, 30, 10, 0.3f);
  assert_true(coco_probiou(a, b) < 1e-3);
  /* a shifted box: the formula's value, Bhattacharyya distance of two equal Gaussians (t1 only):
   * d = (dx, dy) S^-1 (dx, dy)^T / 8 with S the common covariance, S^-1 in the box's axes */
  rbox(b, 53, 40, 30, 10, 0.3f);
  const double sa = 30.0 * 30 / 12, sb = 10.0 * 10 / 12, ux = 3 * cos(0.3), uy = -3 * sin(0.3);
  const double bd = (ux * ux / sa + uy * uy / sb) / 8, want = 1 - sqrt(1 - exp(-bd) + 1e-7);
  assert_true(fabs(coco_probiou(a, b) - want) < 1e-4);
}

static void test_polygon(void **state) {
  (void)state;
  float a[COCO_RBOX_FLOATS], b[COCO_RBOX_FLOATS];
  rbox(a, 0, 0, 2, 2, 0);
  rbox(b, 1, 0, 2, 2, 0);
  assert_true(fabs(coco_poly_iou(a, b) - 2.0 / 6.0) < 1e-6);
  assert_true(fabs(coco_poly_iou(a, a) - 1.0) < 1e-6);
  rbox(b, 0, 0, 2, 2, YPI / 4); /* the octagon: 8 (sqrt 2 - 1) of area 4 each */
  const double oct = 8 * (sqrt(2.0) - 1);
  assert_true(fabs(coco_poly_iou(a, b) - oct / (8 - oct)) < 1e-5);
  float r[COCO_RBOX_FLOATS]; /* the corners in the other direction: the same */
  memcpy(r, b, sizeof r);
  for (int i = 0; i < 2; i++) {
    const float t = r[7 + i];
    r[7 + i] = r[11 + i], r[11 + i] = t;
  }
  assert_true(fabs(coco_poly_iou(a, r) - coco_poly_iou(a, b)) < 1e-6);
  rbox(b, 10, 10, 2, 2, 0.2f);
  assert_true(coco_poly_iou(a, b) == 0.0);
  /* corners back to the box: Ultralytics' corner order starts along h, so the same rectangle as
   * (h, w, angle + pi / 2) */
  rbox(a, 30, 20, 12, 5, 0.7f);
  memcpy(r, a, sizeof r);
  r[0] = r[1] = r[2] = r[3] = r[4] = 0;
  coco_rbox_from_corners(r);
  assert_true(fabsf(r[0] - 30) < 1e-4f && fabsf(r[1] - 20) < 1e-4f && fabsf(r[2] - 5) < 1e-4f && fabsf(r[3] - 12) < 1e-4f);
  assert_true(fabs(remainder((double)r[4] - 0.7 - YPI / 2, (double)YPI)) < 1e-5);
  assert_true(fabs(coco_probiou(a, r) - coco_probiou(a, a)) < 1e-6);
}

static const char *write_tmp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/yrt_obb_%d.txt", (int)getpid());
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void test_labels(void **state) {
  (void)state;
  yrt_error err;
  coco_gt_box *b = NULL;
  float *rb = NULL;
  int n = 0;
  /* a 0.2 x 0.1 rectangle turned 90 degrees, in a 200 x 100 image: corners in pixels */
  const char *p = write_tmp("2 0.5 0.4 0.5 0.6 0.3 0.6 0.3 0.4\n\n1 0.1 0.1 0.2 0.1 0.2 0.2 0.1 0.2\n");
  assert_int_equal(coco_load_yolo_obb_labels(p, 200, 100, 3, &b, &rb, &n, &err), YRT_OK);
  assert_int_equal(n, 2);
  assert_int_equal(b[0].class_id, 2);
  assert_true(fabsf(b[0].x0 - 60) < 1e-3f && fabsf(b[0].x1 - 100) < 1e-3f && fabsf(b[0].y0 - 40) < 1e-3f &&
              fabsf(b[0].y1 - 60) < 1e-3f);
  assert_true(fabsf(rb[0] - 80) < 1e-3f && fabsf(rb[1] - 50) < 1e-3f && fabsf(rb[2] - 20) < 1e-3f &&
              fabsf(rb[3] - 40) < 1e-3f && fabsf(rb[4] - YPI / 2) < 1e-5f);
  free(b);
  free(rb);
  const char *bad[] = {"0 0.5 0.4 0.5 0.6 0.3 0.6 0.3\n", "0 0.5 0.4 0.5 0.6 0.3 0.6 0.3 0.4 0.1\n",
                       "0 1.5 0.4 0.5 0.6 0.3 0.6 0.3 0.4\n", "3 0.5 0.4 0.5 0.6 0.3 0.6 0.3 0.4\n",
                       "0 0.5 0.4 0.5 0.4 0.3 0.6 0.3 0.4\n"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    p = write_tmp(bad[i]);
    assert_int_equal(coco_load_yolo_obb_labels(p, 200, 100, 3, &b, &rb, &n, &err), YRT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, ":1:"));
  }
  unlink(p);
}

static void test_rotated_ap(void **state) {
  (void)state;
  yrt_error err;
  for (int poly = 0; poly < 2; poly++) {
    float g[2][COCO_RBOX_FLOATS], d[2][COCO_RBOX_FLOATS];
    rbox(g[0], 50, 50, 40, 10, 0.5f);
    rbox(g[1], 150, 60, 30, 30, 1.0f);
    coco_gt_box gb[2] = {{30, 30, 70, 70, 0}, {130, 40, 170, 80, 0}};
    yrt_detection dd[2] = {{.x0 = 30, .y0 = 30, .x1 = 70, .y1 = 70, .score = 0.9f, .class_id = 0},
                           {.x0 = 130, .y0 = 40, .x1 = 170, .y1 = 80, .score = 0.8f, .class_id = 0}};
    memcpy(d, g, sizeof d);
    coco_eval *ev;
    assert_int_equal(coco_eval_create(1, 0, &ev, &err), YRT_OK);
    assert_int_equal(coco_eval_add_image_rotated(ev, dd, d[0], 2, gb, g[0], 2, poly, &err), YRT_OK);
    /* the same boxes, axis-aligned equal but turned the other way: no rotated match */
    rbox(d[0], 50, 50, 40, 10, -0.5f);
    rbox(d[1], 150, 60, 30, 30, 1.0f);
    assert_int_equal(coco_eval_add_image_rotated(ev, dd, d[0], 2, gb, g[0], 2, poly, &err), YRT_OK);
    assert_int_equal(coco_eval_finalize(ev, &err), YRT_OK);
    coco_summary s;
    assert_int_equal(coco_eval_summary(ev, &s), YRT_OK);
    /* 4 ground truths; by score (ties: image order) TP, FP (the turned box), TP, TP: recall .25
     * .25 .5 .75, precision made monotone 1 .75 .75 .75: AP50 = (26 x 1 + 50 x 0.75) / 101 */
    print_message("rotated %s: mAP50 %.4f mAP50-95 %.4f\n", poly ? "polygon" : "probiou", s.map50, s.map50_95);
    assert_true(fabs(s.map50 - (26 + 50 * 0.75) / 101) < 1e-9);
    float bad[COCO_RBOX_FLOATS];
    memcpy(bad, d[0], sizeof bad);
    bad[3] = NAN;
    coco_eval *e2;
    assert_int_equal(coco_eval_create(1, 0, &e2, &err), YRT_OK);
    assert_int_equal(coco_eval_add_image_rotated(e2, dd, bad, 1, gb, g[0], 1, poly, &err), YRT_ERR_INVALID_ARG);
    coco_eval_free(e2);
    coco_eval_free(ev);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_probiou),
      cmocka_unit_test(test_polygon),
      cmocka_unit_test(test_labels),
      cmocka_unit_test(test_rotated_ap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
