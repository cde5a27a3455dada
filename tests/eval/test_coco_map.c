/* test_coco_map.c — COCO AP on hand-computed cases (perfect, empty, a known PR curve, IoU
 * dependence, classes without ground truth, the per-image detection cut), YOLO label parsing
 * with its error messages, the JSON report, the classes whose AP changes most between two
 * evaluations (yolort-eval --compare, yolort-quantize --report), keypoint AP by OKS and pose
 * labels, and (with ../shared) ground truth scored against itself on the whole val set (must be
 * exactly 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coco_map.h"
#include "test_data.h"
#include "yolort_image.h"

static yrt_detection det(float x0, float y0, float x1, float y1, float score, int cls) {
  yrt_detection d = {x0, y0, x1, y1, score, cls, NULL};
  return d;
}
static coco_gt_box gt(float x0, float y0, float x1, float y1, int cls) {
  coco_gt_box g = {x0, y0, x1, y1, cls};
  return g;
}

static coco_eval *make(int nc, int maxdet) {
  coco_eval *ev = NULL;
  yrt_error err;
  assert_int_equal(coco_eval_create(nc, maxdet, &ev, &err), YRT_OK);
  return ev;
}
static void add(coco_eval *ev, const yrt_detection *d, int nd, const coco_gt_box *g, int ng) {
  yrt_error err;
  yrt_status st = coco_eval_add_image(ev, d, nd, g, ng, &err);
  if (st != YRT_OK) fail_msg("%s", err.msg);
}
static coco_summary finish(coco_eval *ev) {
  yrt_error err;
  coco_summary s;
  assert_int_equal(coco_eval_finalize(ev, &err), YRT_OK);
  assert_int_equal(coco_eval_summary(ev, &s), YRT_OK);
  return s;
}
/* The summary of one image scored on its own (a fresh evaluator, freed again). */
static coco_summary score_image(int nc, int maxdet, const yrt_detection *d, int nd,
                                const coco_gt_box *g, int ng) {
  coco_eval *ev = make(nc, maxdet);
  add(ev, d, nd, g, ng);
  coco_summary s = finish(ev);
  coco_eval_free(ev);
  return s;
}

static void test_perfect_and_empty(void **state) {
  (void)state;
  coco_eval *ev = make(4, 0);
  for (int img = 0; img < 5; img++) {
    coco_gt_box g[3] = {gt(10, 10, 50, 60, 0), gt(100, 20, 140, 90, 2), gt(12 + img, 8, 48, 70, 0)};
    yrt_detection d[3] = {det(10, 10, 50, 60, 0.9f, 0), det(100, 20, 140, 90, 0.8f, 2), det(12 + img, 8, 48, 70, 0.7f, 0)};
    add(ev, d, 3, g, 3);
  }
  coco_summary s = finish(ev);
  assert_int_equal(s.num_images, 5);
  assert_int_equal(s.num_classes_with_gt, 2);
  assert_int_equal(s.num_gt, 15);
  assert_int_equal(s.num_det, 15);
  assert_float_equal(s.map50, 1.0, 1e-12);
  assert_float_equal(s.map50_95, 1.0, 1e-12);
  coco_class_stats cs;
  assert_int_equal(coco_eval_class_stats(ev, 1, &cs), YRT_OK);
  assert_float_equal(cs.ap50, -1.0, 0); /* no ground truth: not in the mean */
  yrt_error err;
  yrt_detection late = det(0, 0, 1, 1, 0.5f, 0);
  assert_int_equal(coco_eval_add_image(ev, &late, 1, NULL, 0, &err), YRT_ERR_INVALID_ARG);
  coco_eval_free(ev);

  ev = make(2, 0); /* ground truth but no detections: AP 0 */
  coco_gt_box g = gt(0, 0, 10, 10, 1);
  add(ev, NULL, 0, &g, 1);
  add(ev, NULL, 0, NULL, 0);
  s = finish(ev);
  assert_float_equal(s.map50, 0.0, 0);
  assert_int_equal(s.num_classes_with_gt, 1);
  coco_eval_free(ev);
}

/* TP (0.9), FP (0.8), TP (0.7) against 2 boxes: precision 1, .5, .667 -> monotone 1, .667, .667;
 * recall .5, .5, 1. 51 recall points <= 0.5 take 1, the other 50 take 2/3. */
static void test_hand_computed(void **state) {
  (void)state;
  coco_eval *ev = make(1, 0);
  coco_gt_box g1[1] = {gt(0, 0, 100, 100, 0)};
  coco_gt_box g2[1] = {gt(200, 200, 300, 260, 0)};
  yrt_detection d1[2] = {det(0, 0, 100, 100, 0.9f, 0), det(500, 500, 600, 600, 0.8f, 0)};
  yrt_detection d2[1] = {det(200, 200, 300, 260, 0.7f, 0)};
  add(ev, d1, 2, g1, 1);
  add(ev, d2, 1, g2, 1);
  coco_summary s = finish(ev);
  double expect = (51.0 + 50.0 * (2.0 / 3.0)) / 101.0;
  print_message("hand-computed AP %.6f (expected %.6f)\n", s.map50, expect);
  assert_float_equal(s.map50, expect, 1e-9);
  assert_float_equal(s.map50_95, expect, 1e-9);
  coco_class_stats cs;
  coco_eval_class_stats(ev, 0, &cs);
  assert_int_equal(cs.num_tp50, 2);
  assert_float_equal(cs.recall50, 1.0, 0);
  coco_eval_free(ev);
}

/* A detection of IoU 0.62 matches at t = .50, .55, .60 only: AP50 1, AP75 0, AP50-95 0.3. A
 * second, lower-scored duplicate cannot take the same box (greedy, one match per box). */
static void test_iou_thresholds_and_duplicates(void **state) {
  (void)state;
  coco_gt_box g = gt(0, 0, 100, 100, 0);
  yrt_detection d[2] = {det(0, 0, 100, 62, 0.9f, 0), det(0, 0, 100, 62, 0.5f, 0)};
  coco_summary s = score_image(1, 0, d, 1, &g, 1);
  assert_float_equal(s.map50, 1.0, 1e-12);
  assert_float_equal(s.map75, 0.0, 1e-12);
  assert_float_equal(s.map50_95, 0.3, 1e-12);

  s = score_image(1, 0, d, 2, &g, 1); /* TP then FP: precision stays 1 up to recall 1 */
  assert_float_equal(s.map50, 1.0, 1e-12);

  /* The best-IoU unmatched box is taken: a det overlapping two boxes takes the better one,
   * leaving the other for the next det. */
  coco_gt_box gg[2] = {gt(0, 0, 100, 100, 0), gt(10, 0, 110, 100, 0)};
  yrt_detection dd[2] = {det(8, 0, 108, 100, 0.9f, 0), det(0, 0, 100, 100, 0.8f, 0)};
  s = score_image(1, 0, dd, 2, gg, 2);
  assert_float_equal(s.map50_95, 1.0, 1e-12);
}

/* Class-aware matching, and the per-image-per-class cut (pycocotools maxDets). */
static void test_classes_and_maxdets(void **state) {
  (void)state;
  coco_gt_box g = gt(0, 0, 100, 100, 0);
  yrt_detection d[2] = {det(0, 0, 100, 100, 0.9f, 1), det(0, 0, 100, 100, 0.3f, 0)};
  coco_summary s = score_image(3, 0, d, 2, &g, 1);
  assert_int_equal(s.num_classes_with_gt, 1);
  assert_float_equal(s.map50, 1.0, 1e-12); /* the class-1 FP does not hurt class 0 */

  /* 3 high-scored FPs then the TP: with max 3 per image and class the TP is cut -> AP 0. */
  yrt_detection many[4] = {det(500, 500, 510, 510, 0.9f, 0), det(520, 500, 530, 510, 0.8f, 0),
                           det(540, 500, 550, 510, 0.7f, 0), det(0, 0, 100, 100, 0.1f, 0)};
  s = score_image(1, 3, many, 4, &g, 1);
  assert_float_equal(s.map50, 0.0, 0);
  assert_int_equal(s.num_det, 3);
  s = score_image(1, 0, many, 4, &g, 1);
  assert_float_equal(s.map50, 0.25, 1e-12); /* precision 1/4 at every recall point */
}

static void test_bad_input(void **state) {
  (void)state;
  yrt_error err;
  coco_eval *ev = NULL;
  assert_int_equal(coco_eval_create(0, 0, &ev, &err), YRT_ERR_INVALID_ARG);
  ev = make(2, 0);
  yrt_detection d = det(0, 0, 1, 1, 0.5f, 2);
  assert_int_equal(coco_eval_add_image(ev, &d, 1, NULL, 0, &err), YRT_ERR_INVALID_ARG);
  print_message("%s\n", err.msg);
  d = det(NAN, 0, 1, 1, 0.5f, 0);
  assert_int_equal(coco_eval_add_image(ev, &d, 1, NULL, 0, &err), YRT_ERR_INVALID_ARG);
  coco_gt_box g = gt(0, 0, 1, 1, -1);
  assert_int_equal(coco_eval_add_image(ev, NULL, 0, &g, 1, &err), YRT_ERR_INVALID_ARG);
  coco_summary s;
  assert_int_equal(coco_eval_summary(ev, &s), YRT_ERR_INVALID_ARG); /* not finalized */
  coco_eval_free(ev);
  coco_eval_free(NULL);
}

/* A random 12-image, 5-class case with score ties, against coco_ref.py (a numpy transcription of
 * pycocotools evaluateImg + accumulate) which generated random_case.txt and its expected values. */
/* tests/eval/random_case.txt (random boxes; pycocotools' mAP in its "expect" line, into *e50 /
 * *e5095 when not NULL) into a finalized evaluator: every image, image `twice` added a second time
 * at the end (-1: none), every `drop`-th detection left out (0: none). */
static coco_eval *load_random_case(int twice, int drop, double *e50, double *e5095) {
  FILE *f = fopen(YOLORT_SOURCE_DIR "/tests/eval/random_case.txt", "r");
  assert_non_null(f);
  char line[256];
  int nc = 0;
  assert_non_null(fgets(line, sizeof line, f));
  assert_int_equal(sscanf(line, "classes %d", &nc), 1);
  coco_eval *ev = make(nc, 0);
  static yrt_detection d[64], dk[64];
  static coco_gt_box g[64], gk[64];
  int nd = 0, ng = 0, started = 0, img = 0, seen = 0, ndk = 0, ngk = 0;
  for (int more = 1; more;) {
    more = fgets(line, sizeof line, f) != NULL;
    if (!more || !strncmp(line, "image", 5) || !strncmp(line, "expect", 6)) {
      if (started) {
        add(ev, d, nd, g, ng);
        if (img == twice) memcpy(dk, d, sizeof d), memcpy(gk, g, sizeof g), ndk = nd, ngk = ng;
        img++;
      }
      started = more && line[0] == 'i'; /* "expect" ends the images */
      nd = ng = 0;
      if (more && line[0] == 'e' && e50) assert_int_equal(sscanf(line, "expect %lf %lf", e50, e5095), 2);
    } else if (!strncmp(line, "gt", 2)) {
      coco_gt_box *b = &g[ng++];
      assert_int_equal(sscanf(line, "gt %d %f %f %f %f", &b->class_id, &b->x0, &b->y0, &b->x1, &b->y1), 5);
    } else if (!strncmp(line, "dt", 2)) {
      yrt_detection *b = &d[nd];
      assert_int_equal(sscanf(line, "dt %d %f %f %f %f %f", &b->class_id, &b->x0, &b->y0, &b->x1, &b->y1, &b->score), 6);
      if (!drop || ++seen % drop) nd++;
    }
  }
  fclose(f);
  if (twice >= 0) add(ev, dk, ndk, gk, ngk);
  finish(ev);
  return ev;
}

static void test_random_vs_python_reference(void **state) {
  (void)state;
  double e50 = -1, e5095 = -1;
  coco_eval *ev = load_random_case(-1, 0, &e50, &e5095);
  coco_summary s;
  assert_int_equal(coco_eval_summary(ev, &s), YRT_OK);
  print_message("random case: %d images, C mAP50 %.9f mAP50-95 %.9f | python %.9f %.9f\n", s.num_images, s.map50,
                s.map50_95, e50, e5095);
  assert_true(e50 >= 0);
  assert_float_equal(s.map50, e50, 1e-9);
  assert_float_equal(s.map50_95, e5095, 1e-9);
  coco_eval_free(ev);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void test_labels(void **state) {
  (void)state;
  char path[] = "/tmp/yrt_test_labels_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  coco_gt_box *b = NULL;
  int n = -1;
  yrt_error err;
  write_file(path, "0 0.5 0.5 0.5 0.25\n\n7 0.25 0.75 0.1 0.1\r\n");
  assert_int_equal(coco_load_yolo_labels(path, 200, 100, 80, &b, &n, &err), YRT_OK);
  assert_int_equal(n, 2);
  assert_float_equal(b[0].x0, 50, 1e-4);
  assert_float_equal(b[0].y0, 37.5, 1e-4);
  assert_float_equal(b[0].x1, 150, 1e-4);
  assert_float_equal(b[0].y1, 62.5, 1e-4);
  assert_int_equal(b[1].class_id, 7);
  free(b);
  static const char *bad[] = {"0 0.5 0.5 0.5\n", "80 0.5 0.5 0.5 0.5\n", "0 0.5 0.5 1.5 0.5\n",
                              "0 0.5 abc 0.5 0.5\n", "x 0.5 0.5 0.5 0.5\n", "0 0.5 0.5 0.5 0.5 0.1 0.2\n",
                              "0 0.5 0.5 -0.1 0.5\n", "0 nan 0.5 0.1 0.5\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[128];
    snprintf(text, sizeof text, "1 0.5 0.5 0.1 0.1\n%s", bad[i]);
    write_file(path, text);
    assert_int_equal(coco_load_yolo_labels(path, 200, 100, 80, &b, &n, &err), YRT_ERR_FORMAT);
    char where[64];
    snprintf(where, sizeof where, "%s:2:", path);
    print_message("%s\n", err.msg);
    assert_non_null(strstr(err.msg, where));
    assert_null(b);
  }
  unlink(path);
  assert_int_equal(coco_load_yolo_labels(path, 200, 100, 80, &b, &n, &err), YRT_OK); /* missing = empty */
  assert_int_equal(n, 0);
  assert_null(b);
}

/* Keypoint AP by OKS on answers known by hand: equal keypoints (OKS 1: AP 1), one keypoint at a
 * distance that makes OKS exactly 0.72 (matched at 0.50..0.70 only: mAP50 1, mAP50-95 0.5),
 * unlabelled keypoints left out, a ground truth without labelled keypoints matching nothing;
 * then Ultralytics pose labels read into pixels, and their errors. */
static void test_keypoints_oks(void **state) {
  (void)state;
  yrt_error err;
  const coco_gt_box g = gt(100, 100, 200, 200, 0); /* area 10000, OKS area 5300 */
  const yrt_detection d = det(100, 100, 200, 200, 0.9f, 0);
  float gk[17 * 3], dk[17 * 3];
  for (int k = 0; k < 17; k++) /* every value set: the detection's scores too (a stack NaN is refused) */
    gk[3 * k] = dk[3 * k] = 110.0f + 5 * k, gk[3 * k + 1] = dk[3 * k + 1] = 150, gk[3 * k + 2] = 2, dk[3 * k + 2] = 0.9f;
  gk[3 * 4 + 2] = 0, dk[3 * 4] = 900; /* unlabelled: its error does not count */
  coco_eval *ev = make(1, 0);
  assert_int_equal(coco_eval_add_image_oks(ev, &d, dk, 1, &g, gk, 1, 17, &err), YRT_OK);
  coco_summary sm = finish(ev);
  assert_float_equal(sm.map50, 1.0, 1e-12);
  assert_float_equal(sm.map50_95, 1.0, 1e-12);
  coco_eval_free(ev);
  /* one keypoint (sigma 1 / nk = 1, var (2 sigma)^2 = 4): OKS = exp(-dist^2 / (2 * 4 * 5300)) = 0.72 */
  const float dist = (float)sqrt(-log(0.72) * 8 * 5300);
  const float g1[3] = {150, 150, 1}, d1[3] = {150 + dist, 150, 0.5f};
  ev = make(1, 0);
  assert_int_equal(coco_eval_add_image_oks(ev, &d, d1, 1, &g, g1, 1, 1, &err), YRT_OK);
  sm = finish(ev);
  print_message("one keypoint at OKS 0.72: mAP50 %.4f, mAP50-95 %.4f\n", sm.map50, sm.map50_95);
  assert_float_equal(sm.map50, 1.0, 1e-12);
  assert_float_equal(sm.map50_95, 0.5, 1e-12);
  coco_eval_free(ev);
  /* two ground truths, one without labelled keypoints: recall 1/2 at best, its detection a false positive */
  const coco_gt_box gg[2] = {g, gt(300, 300, 400, 400, 0)};
  const float gk2[2 * 3] = {150, 150, 2, 350, 350, 0}, dk2[2 * 3] = {150, 150, 1, 350, 350, 1};
  const yrt_detection dd[2] = {d, det(300, 300, 400, 400, 0.8f, 0)};
  ev = make(1, 0);
  assert_int_equal(coco_eval_add_image_oks(ev, dd, dk2, 2, gg, gk2, 2, 1, &err), YRT_OK);
  sm = finish(ev);
  assert_float_equal(sm.map50, 51.0 / 101.0, 1e-12); /* precision 1 up to recall 0.5: 51 of 101 points */
  coco_eval_free(ev);
  ev = make(1, 0); /* bad keypoint arguments */
  const float nan_k[3] = {NAN, 1, 1};
  assert_int_equal(coco_eval_add_image_oks(ev, &d, nan_k, 1, &g, g1, 1, 1, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(coco_eval_add_image_oks(ev, &d, NULL, 1, &g, g1, 1, 1, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(coco_eval_add_image_oks(ev, &d, d1, 1, &g, g1, 1, 0, &err), YRT_ERR_INVALID_ARG);
  coco_eval_free(ev);

  char path[] = "/tmp/yrt_test_pose_labels_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  coco_gt_box *b = NULL;
  float *k = NULL;
  int n = -1;
  write_file(path, "0 0.5 0.5 0.5 0.25 0.5 0.25 2 0 0 0\n0 0.2 0.2 0.1 0.1\n0 0.5 0.5 0.2 0.2 0.25 0.75 0.5 0.5\n");
  assert_int_equal(coco_load_yolo_pose_labels(path, 200, 100, 1, 2, &b, &k, &n, &err), YRT_OK);
  assert_int_equal(n, 3);
  assert_float_equal(k[0], 100, 1e-4);
  assert_float_equal(k[1], 25, 1e-4);
  assert_float_equal(k[2], 2, 0);
  assert_float_equal(k[5], 0, 0);                      /* not labelled */
  for (int j = 6; j < 12; j++) assert_float_equal(k[j], 0, 0); /* a box without keypoints */
  assert_float_equal(k[12], 50, 1e-4);                 /* x y pairs: labelled */
  assert_float_equal(k[14], 1, 0);
  free(b);
  free(k);
  static const char *bad[] = {"0 0.5 0.5 0.5 0.5 0.1 0.2 2\n", "0 0.5 0.5 0.5 0.5 0.1 0.2 3 0 0 0\n",
                              "0 0.5 0.5 0.5 0.5 1.5 0.2 2 0 0 0\n", "0 0.5 0.5 0.5 0.5 0.1 0.2 2 0 0 0 1\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    write_file(path, bad[i]);
    assert_int_equal(coco_load_yolo_pose_labels(path, 200, 100, 1, 2, &b, &k, &n, &err), YRT_ERR_FORMAT);
    print_message("%s\n", err.msg);
    assert_non_null(strstr(err.msg, ":1:"));
    assert_null(b);
    assert_null(k);
  }
  unlink(path);
}

static void test_json(void **state) {
  (void)state;
  coco_eval *ev = make(2, 0);
  coco_gt_box g = gt(0, 0, 100, 100, 0);
  yrt_detection d = det(0, 0, 100, 100, 0.9f, 0);
  add(ev, &d, 1, &g, 1);
  finish(ev);
  char path[] = "/tmp/yrt_test_json_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  const char *names[2] = {"per\"son", NULL};
  yrt_error err;
  assert_int_equal(coco_eval_write_json(ev, path, names, &err), YRT_OK);
  FILE *f = fopen(path, "r");
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  unlink(path);
  assert_non_null(strstr(buf, "\"map50\": 1.000000"));
  assert_non_null(strstr(buf, "\"name\": \"per\\\"son\""));
  assert_non_null(strstr(buf, "\"ap50\": -1.000000"));
  assert_int_equal(coco_eval_write_json(ev, "/nonexistent/dir/r.json", NULL, &err), YRT_ERR_IO);
  coco_eval_free(ev);
}

/* Image size for label conversion (full decode: simple, and 200 images are fast). */
static int jpeg_size(const char *path, int *w, int *h) {
  yrt_image im;
  yrt_error err;
  if (yrt_image_load_jpeg(path, &im, &err) != YRT_OK) return 0;
  *w = im.w;
  *h = im.h;
  yrt_image_free(&im);
  return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every val label file parses, and ground truth scored as detections gives exactly 1. */
static void test_val_labels_self(void **state) {
  (void)state;
  char dir[1024];
  YT_REQUIRE_DATA(dir, "data/coco/val/labels");
  DIR *d = opendir(dir);
  assert_non_null(d);
  char *names[1024];
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) && count < 1024)
    if (strstr(e->d_name, ".txt")) names[count++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)count, sizeof names[0], cmp_str);
  coco_eval *ev = make(80, 0);
  long boxes = 0;
  for (int i = 0; i < count; i++) {
    char lp[1200], ip[1200];
    snprintf(lp, sizeof lp, "%s/%s", dir, names[i]);
    snprintf(ip, sizeof ip, "%s/../images/%.*s.jpg", dir, (int)(strlen(names[i]) - 4), names[i]);
    int w = 0, h = 0;
    assert_true(jpeg_size(ip, &w, &h));
    coco_gt_box *g = NULL;
    int n = 0;
    yrt_error err;
    if (coco_load_yolo_labels(lp, w, h, 80, &g, &n, &err) != YRT_OK) fail_msg("%s", err.msg);
    yrt_detection *dt = malloc(sizeof *dt * (size_t)(n + 1));
    for (int k = 0; k < n; k++) dt[k] = det(g[k].x0, g[k].y0, g[k].x1, g[k].y1, 1.0f - 0.001f * k, g[k].class_id);
    add(ev, dt, n, g, n);
    boxes += n;
    free(dt);
    free(g);
    free(names[i]);
  }
  coco_summary s = finish(ev);
  print_message("val labels: %d files, %ld boxes, %d classes present; self mAP50 %.4f mAP50-95 %.4f\n", count, boxes,
                s.num_classes_with_gt, s.map50, s.map50_95);
  assert_true(count > 0);
  assert_float_equal(s.map50_95, 1.0, 1e-12);
  coco_eval_free(ev);
}

/* Two evaluations of the same images: class 0 kept (AP 1 -> 1), class 1 lost (1 -> 0), class 2
 * halved (one of two boxes found), class 3 gained (0 -> 1), class 4 has no ground truth. */
static void test_largest_changes(void **state) {
  (void)state;
  coco_eval *a = make(5, 0), *b = make(5, 0);
  const coco_gt_box g[] = {gt(0, 0, 10, 10, 0), gt(20, 20, 30, 30, 1), gt(40, 40, 50, 50, 2),
                           gt(60, 60, 70, 70, 2), gt(80, 80, 90, 90, 3)};
  const yrt_detection da[] = {det(0, 0, 10, 10, .9f, 0), det(20, 20, 30, 30, .9f, 1), det(40, 40, 50, 50, .9f, 2),
                              det(60, 60, 70, 70, .8f, 2), det(0, 50, 5, 55, .5f, 4)};
  const yrt_detection db[] = {det(0, 0, 10, 10, .9f, 0), det(40, 40, 50, 50, .9f, 2), det(80, 80, 90, 90, .7f, 3)};
  add(a, da, 5, g, 5);
  add(b, db, 3, g, 5);
  finish(a);
  finish(b);
  coco_class_change v[8];
  /* by |change|: classes 1 and 3 (1.0 each, lower id first), then 2 (0.5); 0 unchanged last */
  int n = coco_largest_changes(a, b, 0, v, 8);
  assert_int_equal(n, 4);
  assert_int_equal(v[0].class_id, 1);
  assert_int_equal(v[1].class_id, 3);
  assert_int_equal(v[2].class_id, 2);
  assert_int_equal(v[3].class_id, 0);
  assert_float_equal(v[0].ap_a, 1.0, 1e-9);
  assert_float_equal(v[0].ap_b, 0.0, 1e-9);
  assert_int_equal(v[2].num_gt, 2);
  /* by drop: only the classes that lost, the largest loss first; k cuts the list */
  n = coco_largest_changes(a, b, 1, v, 8);
  assert_int_equal(n, 2);
  assert_int_equal(v[0].class_id, 1);
  assert_int_equal(v[1].class_id, 2);
  assert_true(v[1].ap_a - v[1].ap_b > 0.4 && v[1].ap_a - v[1].ap_b < 0.6);
  assert_int_equal(coco_largest_changes(a, b, 0, v, 1), 1);
  assert_int_equal(v[0].class_id, 1);
  /* the printed table names classes (a missing name: class<id>) */
  char buf[2048] = {0};
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  assert_non_null(f);
  const char *names[] = {"person", NULL, "car", "dog", "cat"};
  coco_print_changes(f, "most hurt:", a, b, 1, 10, names);
  fclose(f);
  assert_non_null(strstr(buf, "most hurt:"));
  assert_non_null(strstr(buf, "class1 "));
  assert_non_null(strstr(buf, "car "));
  assert_null(strstr(buf, "dog"));
  coco_eval_free(a);
  coco_eval_free(b);
}

/* The bootstrap's weighted mAP: all ones is the evaluation itself to the bit, a weight of 2 is
 * the image added twice; the paired bootstrap is reproducible for a seed and brackets a clear
 * loss (every second detection of B dropped). */
static void test_bootstrap(void **state) {
  (void)state;
  coco_eval *a = load_random_case(-1, 0, NULL, NULL), *a2 = load_random_case(3, 0, NULL, NULL),
            *b = load_random_case(-1, 2, NULL, NULL);
  coco_summary sa;
  assert_int_equal(coco_eval_summary(a, &sa), YRT_OK);
  const int n = sa.num_images;
  int *w = calloc((size_t)n, sizeof *w);
  assert_non_null(w);
  for (int i = 0; i < n; i++) w[i] = 1;
  double m50, m95;
  assert_int_equal(coco_eval_weighted_map(a, w, &m50, &m95, NULL), YRT_OK);
  assert_true(m50 == sa.map50 && m95 == sa.map50_95);
  coco_summary s2;
  assert_int_equal(coco_eval_summary(a2, &s2), YRT_OK);
  w[3] = 2;
  assert_int_equal(coco_eval_weighted_map(a, w, &m50, &m95, NULL), YRT_OK);
  assert_float_equal(m50, s2.map50, 1e-12);
  assert_float_equal(m95, s2.map50_95, 1e-12);
  free(w);
  coco_bootstrap x, y;
  yrt_error err;
  assert_int_equal(coco_bootstrap_diff(a, b, 300, 7, &x, &err), YRT_OK);
  assert_int_equal(coco_bootstrap_diff(a, b, 300, 7, &y, &err), YRT_OK);
  assert_memory_equal(&x, &y, sizeof x); /* reproducible for a seed, every field */
  coco_summary sb;
  assert_int_equal(coco_eval_summary(b, &sb), YRT_OK);
  const coco_boot_stat *m = &x.m50_95;
  assert_true(m->d == sb.map50_95 - sa.map50_95 && m->d < 0);
  print_message("bootstrap: d %.4f bias %+.4f se %.4f; percentile [%.4f, %.4f] basic [%.4f, %.4f] BCa [%.4f, %.4f] "
                "(z0 %+.3f a %+.4f)\n", m->d, m->bias, m->se, m->pct_lo, m->pct_hi, m->basic_lo, m->basic_hi,
                m->bca_lo, m->bca_hi, m->z0, m->accel);
  assert_true(m->pct_lo <= m->d && m->d <= m->pct_hi && m->pct_hi < 0 && m->se > 0);
  assert_true(m->basic_lo == 2 * m->d - m->pct_hi && m->basic_hi == 2 * m->d - m->pct_lo);
  assert_true(m->bca_ok && m->bca_lo <= m->bca_hi && m->bca_hi < 0 && m->accel != 0);
  assert_true(m->bias == m->mean - m->d);
  assert_true(x.m50.pct_lo <= x.m50.pct_hi);
  /* a model against itself: every resample and jackknife value is 0, so is every interval */
  assert_int_equal(coco_bootstrap_diff(a, a, 50, 7, &x, &err), YRT_OK);
  assert_true(x.m50_95.bca_ok && x.m50_95.below == 0.5 && fabs(x.m50_95.z0) < 1e-12 && x.m50_95.accel == 0);
  assert_true(x.m50_95.pct_lo == 0 && x.m50_95.basic_hi == 0 && x.m50_95.bca_lo == 0 && x.m50_95.bca_hi == 0);
  /* the report names each interval and the bias */
  char buf[2048] = {0};
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  assert_non_null(f);
  coco_print_bootstrap(f, &y);
  fclose(f);
  assert_non_null(strstr(buf, "95% BCa "));
  assert_non_null(strstr(buf, "95% basic "));
  assert_non_null(strstr(buf, "95% percentile "));
  assert_non_null(strstr(buf, "(bias "));
  assert_int_equal(coco_bootstrap_diff(a, a2, 10, 7, &x, &err), YRT_ERR_INVALID_ARG); /* other images */
  assert_int_equal(coco_bootstrap_diff(a, b, 0, 7, &x, &err), YRT_ERR_INVALID_ARG);
  coco_eval_free(a);
  coco_eval_free(a2);
  coco_eval_free(b);
}

/* The three intervals on resamples whose answer is known: the integers 0..200 (in a scrambled
 * order), so the nearest-rank 2.5 / 97.5 percentiles are 5 and 195. Expected BCa ranks from
 * Python's statistics.NormalDist (z0 = inv_cdf(share below d), alpha' = cdf(z0 + (z0 + z) /
 * (1 - a (z0 + z))), rank floor(alpha' 200 + 0.5); none within 0.05 of a rank boundary). */
static void test_boot_intervals(void **state) {
  (void)state;
  double v[201];
  coco_boot_stat s;
  yrt_error err;
#define FILL()                                                                                                        \
  for (int i = 0; i < 201; i++) v[i] = (double)((i * 7) % 201)
  /* symmetric about d: no bias, z0 = 0, a = 0: all three intervals are one */
  FILL();
  assert_int_equal(coco_boot_describe(100, v, 201, NULL, 0, &s, &err), YRT_OK);
  assert_true(s.bias == 0 && s.below == 0.5 && fabs(s.z0) < 1e-12 && s.accel == 0 && s.bca_ok);
  assert_true(fabs(s.se - sqrt(201.0 * 202.0 / 12.0)) <= 1e-9); /* not assert_float_equal: it compares floats */
  assert_true(s.pct_lo == 5 && s.pct_hi == 195 && s.basic_lo == 5 && s.basic_hi == 195);
  assert_true(s.bca_lo == 5 && s.bca_hi == 195 && fabs(s.bca_plo - 0.025) < 1e-12 && fabs(s.bca_phi - 0.975) < 1e-12);
  /* d = 69.5 below the resamples' mean 100: bias +30.5; basic is the percentile interval mirrored
   * about d; BCa moves down by z0 = inv_cdf(70 / 201) */
  FILL();
  assert_int_equal(coco_boot_describe(69.5, v, 201, NULL, 0, &s, &err), YRT_OK);
  assert_true(fabs(s.bias - (30.5)) <= 1e-12);
  assert_true(fabs(s.below - (70.0 / 201.0)) <= 1e-15);
  assert_true(fabs(s.z0 - (-0.39002587592176985)) <= 1e-12);
  assert_true(s.pct_lo == 5 && s.pct_hi == 195 && s.basic_lo == -56 && s.basic_hi == 134);
  assert_true(s.bca_ok && s.bca_lo == 1 && s.bca_hi == 176);
  assert_true(fabs(s.bca_plo - 0.003071812139534724) < 1e-12 && fabs(s.bca_phi - 0.8809824379612402) < 1e-12);
  /* acceleration from jackknife values {0, 0, 0, 3}: a = sum(m - J)^3 / (6 (sum(m - J)^2)^1.5) */
  const double jack[4] = {0, 0, 0, 3};
  FILL();
  assert_int_equal(coco_boot_describe(69.5, v, 201, jack, 4, &s, &err), YRT_OK);
  assert_true(fabs(s.accel - (-0.09622504486493763)) <= 1e-15);
  assert_true(s.bca_ok && s.bca_lo == 0 && s.bca_hi == 167);
  FILL();
  assert_int_equal(coco_boot_describe(100, v, 201, jack, 4, &s, &err), YRT_OK);
  assert_true(s.bca_ok && s.bca_lo == 2 && s.bca_hi == 190); /* skew alone moves it */
  /* every resample above d: z0 = -inf, BCa undefined; basic still given */
  FILL();
  assert_int_equal(coco_boot_describe(-1, v, 201, jack, 4, &s, &err), YRT_OK);
  assert_true(!s.bca_ok && isnan(s.bca_lo) && isinf(s.z0) && s.z0 < 0 && s.basic_lo == -197 && s.basic_hi == -7);
  assert_int_equal(coco_boot_describe(0, v, 0, NULL, 0, &s, &err), YRT_ERR_INVALID_ARG);
#undef FILL
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bootstrap), cmocka_unit_test(test_boot_intervals),
      cmocka_unit_test(test_perfect_and_empty), cmocka_unit_test(test_hand_computed),
      cmocka_unit_test(test_iou_thresholds_and_duplicates), cmocka_unit_test(test_classes_and_maxdets),
      cmocka_unit_test(test_bad_input), cmocka_unit_test(test_labels), cmocka_unit_test(test_keypoints_oks),
      cmocka_unit_test(test_json),
      cmocka_unit_test(test_random_vs_python_reference), cmocka_unit_test(test_val_labels_self),
      cmocka_unit_test(test_largest_changes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
