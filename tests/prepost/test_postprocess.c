/* test_postprocess.c — decode + NMS on synthetic output0 (thresholds, class-aware vs agnostic
 * NMS, max_detections, ordering, mapping back through the letterbox) and, with ../shared, on the
 * reference FP32 output0 of a real image. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_data.h"
#include "yolort.h"

enum { NC = 3, NA = 16 };

typedef struct synth {
  float out[(4 + NC) * NA];
} synth;

static void set_anchor(synth *s, int i, float cx, float cy, float w, float h, int cls, float score) {
  s->out[0 * NA + i] = cx;
  s->out[1 * NA + i] = cy;
  s->out[2 * NA + i] = w;
  s->out[3 * NA + i] = h;
  for (int c = 0; c < NC; c++) s->out[(4 + c) * NA + i] = c == cls ? score : score / 10;
}

static int run(const synth *s, const yrt_letterbox *lb, const yrt_postprocess_params *p, yrt_detection *d, int cap) {
  void *scratch = malloc(yrt_postprocess_scratch_bytes(NA, p->max_detections));
  assert_non_null(scratch);
  int n = -1;
  yrt_error err;
  assert_int_equal(yrt_postprocess(s->out, NC, NA, lb, p, scratch, d, cap, &n, &err), YRT_OK);
  free(scratch);
  return n;
}

static yrt_postprocess_params params(float conf, float iou, int max_det, int agnostic) {
  yrt_postprocess_params p;
  yrt_postprocess_defaults(&p);
  assert_float_equal(p.conf_threshold, 0.25f, 0);
  assert_float_equal(p.iou_threshold, 0.45f, 0);
  assert_int_equal(p.max_detections, 300);
  p.conf_threshold = conf;
  p.iou_threshold = iou;
  p.max_detections = max_det;
  p.class_agnostic = agnostic;
  return p;
}

static void test_threshold_and_order(void **state) {
  (void)state;
  synth s = {{0}};
  set_anchor(&s, 3, 50, 50, 10, 10, 0, 0.5f);
  set_anchor(&s, 7, 150, 50, 10, 10, 1, 0.9f);
  set_anchor(&s, 9, 250, 50, 10, 10, 2, 0.25f);  /* exactly at threshold: dropped (score > conf) */
  set_anchor(&s, 11, 350, 50, 10, 10, 2, 0.5f);  /* tie with anchor 3: lower anchor first */
  yrt_postprocess_params p = params(0.25f, 0.7f, 300, 0);
  yrt_detection d[NA];
  int n = run(&s, NULL, &p, d, NA);
  assert_int_equal(n, 3);
  assert_int_equal(d[0].class_id, 1);
  assert_float_equal(d[0].score, 0.9f, 0);
  assert_float_equal(d[1].x0, 45, 0); /* anchor 3: cx - w/2 */
  assert_float_equal(d[1].y1, 55, 0);
  assert_int_equal(d[2].class_id, 2);
  assert_float_equal(d[2].x0, 345, 0);
  /* max_detections and cap both cut the list, best first. */
  p.max_detections = 2;
  assert_int_equal(run(&s, NULL, &p, d, NA), 2);
  p.max_detections = 300;
  assert_int_equal(run(&s, NULL, &p, d, 1), 1);
  assert_int_equal(d[0].class_id, 1);
  /* Best class decides the label. */
  s.out[(4 + 2) * NA + 7] = 0.95f;
  assert_int_equal(run(&s, NULL, &p, d, NA), 3);
  assert_int_equal(d[0].class_id, 2);
  assert_float_equal(d[0].score, 0.95f, 0);
}

static void test_nms(void **state) {
  (void)state;
  synth s = {{0}};
  /* Same class: IoU(100x100, 100x80 inside) = 0.8 -> suppressed at 0.7, kept at 0.85. */
  set_anchor(&s, 0, 100, 100, 100, 100, 0, 0.9f);
  set_anchor(&s, 1, 100, 90, 100, 80, 0, 0.8f);
  /* Same place, other class: class-aware NMS keeps it. */
  set_anchor(&s, 2, 100, 100, 100, 100, 1, 0.7f);
  /* Same class, IoU 0.6 with anchor 0: kept at 0.7. */
  set_anchor(&s, 3, 100, 80, 100, 60, 0, 0.6f);
  yrt_detection d[NA];
  yrt_postprocess_params p = params(0.25f, 0.7f, 300, 0);
  int n = run(&s, NULL, &p, d, NA);
  assert_int_equal(n, 3);
  assert_float_equal(d[0].score, 0.9f, 0);
  assert_float_equal(d[1].score, 0.7f, 0);
  assert_int_equal(d[1].class_id, 1);
  assert_float_equal(d[2].score, 0.6f, 0);
  p.iou_threshold = 0.85f;
  assert_int_equal(run(&s, NULL, &p, d, NA), 4);
  /* Agnostic: the class-1 box is suppressed by the class-0 box. */
  p = params(0.25f, 0.7f, 300, 1);
  n = run(&s, NULL, &p, d, NA);
  assert_int_equal(n, 2);
  assert_float_equal(d[1].score, 0.6f, 0);
  /* A suppressed box does not suppress others (greedy order): chain A > B > C where A~B, B~C,
   * A and C apart: A and C kept. */
  synth c = {{0}};
  set_anchor(&c, 0, 100, 100, 100, 100, 0, 0.9f);
  set_anchor(&c, 1, 115, 100, 100, 100, 0, 0.8f); /* IoU(A,B) = 85/115 = 0.739 */
  set_anchor(&c, 2, 130, 100, 100, 100, 0, 0.7f); /* IoU(A,C) = 70/130 = 0.538, IoU(B,C) = 0.739 */
  p = params(0.25f, 0.7f, 300, 0);
  n = run(&c, NULL, &p, d, NA);
  assert_int_equal(n, 2);
  assert_float_equal(d[1].x0, 80, 0);
}

static void test_map_back(void **state) {
  (void)state;
  synth s = {{0}};
  /* 640x425 image letterboxed to 320: ratio 0.5, pad_top 54. */
  yrt_letterbox lb = {0.5f, 0.0f, 54.0f, 640, 425, 320, 320, 0.0f, 0.0f, 0.0f}; /* ratio_y 0: ratio */
  set_anchor(&s, 0, 160, 160, 100, 50, 0, 0.9f);   /* -> x 220..420, y (135-54)*2=162..262 */
  set_anchor(&s, 1, 10, 60, 40, 20, 1, 0.8f);      /* partly in the pad: clipped to 0 */
  set_anchor(&s, 2, 315, 265, 20, 20, 2, 0.7f);    /* beyond bottom-right: clipped to 640x425 */
  yrt_postprocess_params p = params(0.25f, 0.7f, 300, 0);
  yrt_detection d[NA];
  assert_int_equal(run(&s, &lb, &p, d, NA), 3);
  assert_float_equal(d[0].x0, 220, 1e-4);
  assert_float_equal(d[0].x1, 420, 1e-4);
  assert_float_equal(d[0].y0, 162, 1e-4);
  assert_float_equal(d[0].y1, 262, 1e-4);
  assert_float_equal(d[1].x0, 0, 0);
  assert_float_equal(d[1].y0, 0, 0);
  assert_float_equal(d[1].x1, 60, 1e-4);
  assert_float_equal(d[2].x1, 640, 0);
  assert_float_equal(d[2].y1, 425, 0);
}

static void test_bad_args(void **state) {
  (void)state;
  synth s = {{0}};
  set_anchor(&s, 0, 1, 1, 1, 1, 0, NAN); /* NaN scores are never kept */
  yrt_postprocess_params p = params(0.25f, 0.7f, 300, 0);
  char scratch[4096];
  assert_true(yrt_postprocess_scratch_bytes(NA, 300) <= sizeof scratch);
  yrt_detection d[4];
  int n;
  yrt_error err;
  assert_int_equal(yrt_postprocess(s.out, NC, NA, NULL, &p, scratch, d, 4, &n, &err), YRT_OK);
  assert_int_equal(n, 0);
  assert_int_equal(yrt_postprocess(NULL, NC, NA, NULL, &p, scratch, d, 4, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_postprocess(s.out, 0, NA, NULL, &p, scratch, d, 4, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_postprocess(s.out, NC, NA, NULL, &p, NULL, d, 4, &n, &err), YRT_ERR_INVALID_ARG);
  p.iou_threshold = 1.5f;
  assert_int_equal(yrt_postprocess(s.out, NC, NA, NULL, &p, scratch, d, 4, &n, &err), YRT_ERR_INVALID_ARG);
  p = params(0.25f, 0.7f, 300, 0);
  yrt_letterbox bad = {0};
  assert_int_equal(yrt_postprocess(s.out, NC, NA, &bad, &p, scratch, d, 4, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_postprocess(s.out, NC, 0, NULL, &p, scratch, d, 4, &n, &err), YRT_OK);
  assert_int_equal(n, 0);
}

/* Per-class thresholds (class_conf): each anchor's best class against its own threshold before
 * NMS, the same in the end-to-end rows; a wrong count or a NaN entry refused; NULL = conf. */
static void test_class_conf(void **state) {
  (void)state;
  synth s = {{0}};
  set_anchor(&s, 1, 50, 50, 10, 10, 0, 0.5f);
  set_anchor(&s, 2, 150, 50, 10, 10, 1, 0.5f);
  set_anchor(&s, 3, 250, 50, 10, 10, 2, 0.3f);
  set_anchor(&s, 4, 350, 50, 10, 10, 2, 0.12f);
  set_anchor(&s, 5, 52, 50, 10, 10, 2, 0.4f); /* overlaps anchor 1, another class: class-aware NMS keeps it */
  yrt_postprocess_params p;
  yrt_postprocess_params_init(&p);
  p.iou_threshold = 0.5f;
  yrt_detection d[NA];
  assert_int_equal(run(&s, NULL, &p, d, NA), 4); /* 0.25 for all: anchor 4 out */
  const float thr[NC] = {0.6f, 0.25f, 0.1f};       /* class 0 stricter, class 2 looser */
  p.class_conf = thr, p.num_class_conf = NC;
  int n = run(&s, NULL, &p, d, NA);
  assert_int_equal(n, 4); /* anchor 1 (0.5 <= 0.6) out; anchor 4 (0.12 > 0.1) in */
  assert_int_equal(d[0].class_id, 1);
  assert_float_equal(d[0].score, 0.5f, 0);
  for (int i = 0; i < n; i++) assert_true(d[i].class_id != 0);
  assert_float_equal(d[n - 1].score, 0.12f, 0);
  /* the threshold is "score > class_conf", as conf_threshold */
  const float exact[NC] = {0.5f, 0.5f, 0.5f};
  p.class_conf = exact;
  assert_int_equal(run(&s, NULL, &p, d, NA), 0);
  /* end-to-end rows: class 2 at 0.2 kept only with the looser threshold */
  const float e2e[2 * 6] = {1, 2, 3, 4, 0.5f, 0, 5, 6, 7, 8, 0.2f, 2};
  int ne = -1;
  yrt_error err;
  p.class_conf = NULL;
  assert_int_equal(yrt_postprocess_e2e(e2e, 2, NC, NULL, &p, d, NA, &ne, &err), YRT_OK);
  assert_int_equal(ne, 1);
  p.class_conf = thr;
  assert_int_equal(yrt_postprocess_e2e(e2e, 2, NC, NULL, &p, d, NA, &ne, &err), YRT_OK);
  assert_int_equal(ne, 1);
  assert_int_equal(d[0].class_id, 2);
  /* refusals */
  char scratch[4096];
  p.num_class_conf = NC - 1;
  assert_int_equal(yrt_postprocess(s.out, NC, NA, NULL, &p, scratch, d, NA, &ne, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "num_class_conf 2, the model has 3 classes"));
  assert_int_equal(yrt_postprocess_e2e(e2e, 2, NC, NULL, &p, d, NA, &ne, &err), YRT_ERR_INVALID_ARG);
  const float nan3[NC] = {0.5f, NAN, 0.5f};
  p.class_conf = nan3, p.num_class_conf = NC;
  assert_int_equal(yrt_postprocess(s.out, NC, NA, NULL, &p, scratch, d, NA, &ne, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "class_conf[1] is NaN"));
  /* a caller's struct of the first version (yrt_postprocess_defaults): class_conf not read */
  yrt_postprocess_params v1;
  memset(&v1, 0xEE, sizeof v1); /* garbage where the later fields are */
  yrt_postprocess_defaults(&v1);
  assert_int_equal(run(&s, NULL, &v1, d, NA), 4);
}

/* Reference FP32 output0 of a real image: must find the bear that fills 000000000285. */
static void check_reference(const char *rel, int S, float ratio, float pad_left, float conf) {
  char path[1024];
  YT_REQUIRE_DATA(path, rel);
  int N = (S / 8) * (S / 8) + (S / 16) * (S / 16) + (S / 32) * (S / 32);
  size_t count = (size_t)84 * N;
  float *out = malloc(count * sizeof(float));
  assert_non_null(out);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fread(out, sizeof(float), count, f), count);
  fclose(f);
  yrt_letterbox lb = {ratio, pad_left, 0.0f, 586, 640, S, S, 0.0f, 0.0f, 0.0f};
  yrt_postprocess_params p = params(conf, 0.7f, 300, 0);
  void *scratch = malloc(yrt_postprocess_scratch_bytes(N, 300));
  yrt_detection d[300];
  int n;
  yrt_error err;
  assert_int_equal(yrt_postprocess(out, 80, N, &lb, &p, scratch, d, 300, &n, &err), YRT_OK);
  print_message("%s (conf %g): %d detections\n", rel, conf, n);
  for (int i = 0; i < n && i < 8; i++)
    print_message("  class %2d  score %.4f  [%.1f, %.1f, %.1f, %.1f]\n", d[i].class_id, d[i].score, d[i].x0, d[i].y0,
                  d[i].x1, d[i].y1);
  assert_true(n >= 1);
  /* Ground truth (val/labels/000000000285.txt): class 21 (bear), cx .501 cy .548 w .998 h .881. */
  float gx0 = (0.50122f - 0.99756f / 2) * 586, gx1 = (0.50122f + 0.99756f / 2) * 586;
  float gy0 = (0.548094f - 0.881156f / 2) * 640, gy1 = (0.548094f + 0.881156f / 2) * 640;
  float iw = fminf(d[0].x1, gx1) - fmaxf(d[0].x0, gx0), ih = fminf(d[0].y1, gy1) - fmaxf(d[0].y0, gy0);
  float inter = iw * ih, iou = inter / ((d[0].x1 - d[0].x0) * (d[0].y1 - d[0].y0) + (gx1 - gx0) * (gy1 - gy0) - inter);
  print_message("  top detection IoU with ground truth: %.3f\n", iou);
  assert_int_equal(d[0].class_id, 21);
  assert_true(d[0].score > 0.8f);
  assert_true(iou > 0.85f);
  for (int i = 0; i < n; i++) {
    assert_true(d[i].x0 >= 0 && d[i].x1 <= 586 && d[i].y0 >= 0 && d[i].y1 <= 640);
    if (i) assert_true(d[i].score <= d[i - 1].score);
  }
  free(scratch);
  free(out);
}

static void test_reference_output(void **state) {
  (void)state;
  check_reference("reference/000000000285.yolo11n-640.output0.f32", 640, 1.0f, 27.0f, 0.25f);
  check_reference("reference/000000000285.yolo11n-640.output0.f32", 640, 1.0f, 27.0f, 0.001f);
  check_reference("reference/000000000285.yolo11n-320.output0.f32", 320, 0.5f, 13.0f, 0.001f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threshold_and_order), cmocka_unit_test(test_nms), cmocka_unit_test(test_map_back),
      cmocka_unit_test(test_bad_args), cmocka_unit_test(test_class_conf), cmocka_unit_test(test_reference_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
