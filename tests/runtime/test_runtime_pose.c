/* test_runtime_pose.c — YRT_OP_POSE_DECODE (the Ultralytics Pose head's keypoint decode) and the
 * keypoints of the C API on hand-built two-grid models: output0 = Concat(detection rows, the
 * decode's rows) as the converter writes it, grid 0 int8 through the table, grid 1 float.
 * The decode against a double-precision transcription of Pose.kpts_decode (kd 3 and 2);
 * yrt_session_postprocess + yrt_session_keypoints against the kept anchors' rows mapped through
 * a letterbox, their errors (index, capacity), a model without keypoints (0 keypoints); hostile
 * parameters and shapes the loader must reject; random words over the node record (ASan). The
 * anchor form (YOLO-Pose: na anchor vectors per cell, keypoints after the detection values, TI's
 * (2 v - 0.5 + grid) stride) against its double-precision definition, and its bad parameters. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "session_internal.h"
#include "yolort.h"
#include "yrt_test_builder.h"

enum { NC = 2, NK = 3, H0 = 4, H1 = 2, N = H0 * H0 + H1 * H1, ROWS = 4 + NC };
static int KD = 3;
static int WITH_POSE = 1; /* 0: output0 is the detection rows only (hostile: keypoint node unused) */
static const char *TASK = "pose";
static const float S0 = 0.03f;
static const int32_t Z0 = 5;

typedef struct ids {
  uint32_t det, k0f, k1, k0q, kpt, y;
} ids;

static ytb *build(uint32_t *node, ids *t) {
  ytb *b = ytb_new();
  const int nv = NK * KD;
  const int32_t dd[3] = {1, ROWS, N}, d0[4] = {1, H0, H0, nv}, d1[4] = {1, H1, H1, nv}, dk[3] = {1, nv, N},
                dy[3] = {1, ROWS + (WITH_POSE ? nv : 0), N};
  t->det = ytb_tensor(b, "det", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 3, dd);
  t->k0f = ytb_tensor(b, "k0_f", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d0);
  t->k1 = ytb_tensor(b, "k1", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d1);
  ytb_input(b, t->det);
  ytb_input(b, t->k0f);
  ytb_input(b, t->k1);
  t->k0q = ytb_act_i8(b, "k0", 4, d0, S0, Z0);
  t->kpt = ytb_tensor(b, "kpt", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 3, dk);
  t->y = ytb_tensor(b, "output0", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 3, dy);
  ytb_output(b, t->y);
  ytb_node(b, YRT_OP_QUANTIZE, "q0", 1, &t->k0f, t->k0q, NULL, 0, NULL, 0);
  const uint32_t in[3] = {t->k0q, t->k1, t->det}; /* maps, then the detection rows */
  const int32_t p[5] = {2, NK, KD, 8, 16};
  *node = ytb_node(b, YRT_OP_POSE_DECODE, "pose", 3, in, t->kpt, p, 5, NULL, 0);
  const uint32_t cat[2] = {t->det, t->kpt};
  const int32_t axis = 1;
  if (WITH_POSE) ytb_node(b, YRT_OP_CONCAT, "rows", 2, cat, t->y, &axis, 1, NULL, 0);
  else ytb_node(b, YRT_OP_RESHAPE, "rows", 1, &t->det, t->y, NULL, 0, NULL, 0);
  ytb_meta(b, 32, 32, NC, "");
  ytb_meta_rec(b)->task = ytb_string(b, TASK);
  return b;
}

static float logit(int k, int i) { return (float)((i * 7919 + k * 104729) % 211 - 105) * 0.02f; }

static float deq(float v) {
  long q = lrintf(v / S0) + Z0;
  q = q < -128 ? -128 : q > 127 ? 127 : q;
  return (float)(q - Z0) * S0;
}

/* Inputs: detection rows with three confident anchors (one per grid cell kind), keypoint logits. */
static void fill(yrt_session *s, float *k0, float *k1) {
  static float det[ROWS * N];
  float *a = yrt_session_input_nhwc(s, 1), *b = yrt_session_input_nhwc(s, 2);
  assert_non_null(a);
  assert_non_null(b);
  for (int i = 0; i < ROWS * N; i++) det[i] = 0.01f;
  const int hot[3] = {5, 11, 18}; /* grid 0 cells 5 and 11, grid 1 cell 2 */
  for (int h = 0; h < 3; h++) {
    const int i = hot[h];
    det[0 * N + i] = 4.0f + 8.0f * (float)h, det[1 * N + i] = 6.0f + 7.0f * (float)h;
    det[2 * N + i] = 6.0f, det[3 * N + i] = 5.0f;
    det[(4 + h % NC) * N + i] = 0.9f - 0.1f * (float)h;
  }
  const int nv = NK * KD;
  for (int i = 0; i < H0 * H0 * nv; i++) a[i] = k0[i] = logit(0, i);
  for (int i = 0; i < H1 * H1 * nv; i++) b[i] = k1[i] = logit(1, i);
  yrt_error err;
  if (yrt_session_set_input(s, 0, det, ROWS * N, &err) != YRT_OK) fail_msg("%s", err.msg);
}

/* The decode's definition of anchor a, value c (double). */
static double want(const float *k0, const float *k1, int a, int c) {
  const int nv = NK * KD, g = a < H0 * H0 ? 0 : 1, cell = g ? a - H0 * H0 : a, w = g ? H1 : H0;
  const double v = g ? k1[cell * nv + c] : deq(k0[cell * nv + c]), st = g ? 16 : 8;
  const int j = c % KD;
  return j == 0 ? (2 * v + cell % w) * st : j == 1 ? (2 * v + cell / w) * st : 1.0 / (1.0 + exp(-v));
}

/* The model built, loaded, its inputs filled (k0, k1: the keypoint logits) and run once. */
static void load_run(ytb_loaded *l, float *k0, float *k1) {
  uint32_t node;
  ids t;
  yrt_error err;
  if (ytb_load(build(&node, &t), 0, l, &err) != YRT_OK) fail_msg("%s: %s", l->step, err.msg);
  fill(l->s, k0, k1);
  if (yrt_session_run(l->s, &err) != YRT_OK) fail_msg("run: %s", err.msg);
}

static void decode_matches_reference(int kd) {
  KD = kd, WITH_POSE = 1, TASK = "pose";
  ytb_loaded l;
  yrt_error err;
  static float k0[H0 * H0 * NK * 3], k1[H1 * H1 * NK * 3];
  load_run(&l, k0, k1);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  assert_int_equal(v.count, (size_t)(ROWS + NK * KD) * N);
  double worst = 0;
  for (int a = 0; a < N; a++)
    for (int c = 0; c < NK * KD; c++) {
      const double w = want(k0, k1, a, c);
      worst = fmax(worst, fabs(v.data[(ROWS + c) * N + a] - w) / (1 + fabs(w)));
    }
  print_message("pose_decode kd %d vs double: %.3g (relative)\n", kd, worst);
  assert_true(worst < 1e-6);
  int dims = 0;
  assert_int_equal(yrt_model_keypoints(l.m, &dims), NK);
  assert_int_equal(dims, kd);
  ytb_unload(&l);
}

static void test_decode_matches_reference(void **state) {
  (void)state;
  decode_matches_reference(3);
  decode_matches_reference(2);
  KD = 3;
}

/* The C API: each kept detection's keypoints are its own anchor's rows, mapped through the
 * letterbox the decode used (as its box), clipped to the image; errors name what is wrong. */
static void test_keypoints_api(void **state) {
  (void)state;
  KD = 3, WITH_POSE = 1, TASK = "pose";
  ytb_loaded l;
  yrt_error err;
  static float k0[H0 * H0 * NK * 3], k1[H1 * H1 * NK * 3];
  load_run(&l, k0, k1);
  const yrt_letterbox lb = {.ratio = 0.5f, .pad_left = 2.0f, .pad_top = 4.0f, .src_w = 50, .src_h = 40,
                            .dst_w = 32, .dst_h = 32};
  yrt_detection dets[8];
  int n = 0;
  assert_int_equal(yrt_session_postprocess(l.s, &lb, NULL, dets, 8, &n, &err), YRT_OK);
  assert_int_equal(n, 3);
  const int anchor_of[3] = {5, 11, 18}; /* by score: 0.9, 0.8, 0.7 */
  yrt_keypoint kp[NK];
  for (int i = 0; i < n; i++) {
    int count = -1;
    assert_int_equal(yrt_session_keypoints(l.s, i, kp, NK, &count, &err), YRT_OK);
    assert_int_equal(count, NK);
    for (int k = 0; k < NK; k++) {
      const float x = (float)want(k0, k1, anchor_of[i], k * 3), y = (float)want(k0, k1, anchor_of[i], k * 3 + 1);
      const float ex = fminf(fmaxf((x - 2.0f) / 0.5f, 0.0f), 50.0f), ey = fminf(fmaxf((y - 4.0f) / 0.5f, 0.0f), 40.0f);
      assert_true(fabsf(kp[k].x - ex) < 1e-3f && fabsf(kp[k].y - ey) < 1e-3f);
      assert_true(fabsf(kp[k].score - (float)want(k0, k1, anchor_of[i], k * 3 + 2)) < 1e-6f);
    }
  }
  int count = -1;
  assert_int_equal(yrt_session_keypoints(l.s, 3, kp, NK, &count, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "returned 3"));
  assert_int_equal(count, 0);
  assert_int_equal(yrt_session_keypoints(l.s, -1, kp, NK, &count, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_session_keypoints(l.s, 0, kp, NK - 1, &count, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "room for 2 keypoints, the model has 3"));
  assert_int_equal(yrt_session_keypoints(NULL, 0, kp, NK, &count, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_session_keypoints(l.s, 0, NULL, NK, &count, &err), YRT_ERR_INVALID_ARG);
  /* conf 0.95: nothing kept, and no stale detections' keypoints */
  yrt_postprocess_params pp;
  yrt_postprocess_params_init(&pp);
  pp.conf_threshold = 0.95f;
  assert_int_equal(yrt_session_postprocess(l.s, NULL, &pp, dets, 8, &n, &err), YRT_OK);
  assert_int_equal(n, 0);
  assert_int_equal(yrt_session_keypoints(l.s, 0, kp, NK, &count, &err), YRT_ERR_INVALID_ARG);
  ytb_unload(&l);
}

/* Under yrt_session_detect (the session's detect_conf set during its run) only anchors whose
 * best score passes conf are decoded: the hot ones get the new logits' keypoints, the others keep
 * the rows of the run before (nothing spent on them). */
static void test_threshold_aware(void **state) {
  (void)state;
  KD = 3, WITH_POSE = 1, TASK = "pose";
  ytb_loaded l;
  yrt_error err;
  static float k0[H0 * H0 * NK * 3], k1[H1 * H1 * NK * 3], before[(ROWS + NK * 3) * N];
  load_run(&l, k0, k1);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  memcpy(before, v.data, sizeof before);
  float *a = yrt_session_input_nhwc(l.s, 1), *b = yrt_session_input_nhwc(l.s, 2);
  for (int i = 0; i < H0 * H0 * NK * 3; i++) a[i] = k0[i] = -k0[i];
  for (int i = 0; i < H1 * H1 * NK * 3; i++) b[i] = k1[i] = -k1[i];
  l.s->detect_conf = 0.75f; /* anchors 5 (0.9) and 11 (0.8) pass, 18 (0.7) does not */
  assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
  l.s->detect_conf = NAN;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  for (int an = 0; an < N; an++)
    for (int c = 0; c < NK * 3; c++) {
      const float got = v.data[(ROWS + c) * N + an];
      if (an == 5 || an == 11) assert_true(fabs(got - want(k0, k1, an, c)) <= 1e-6 * (1 + fabs(want(k0, k1, an, c))));
      else assert_memory_equal(&got, &before[(ROWS + c) * N + an], sizeof got);
    }
  ytb_unload(&l);
}

/* A model without keypoints: yrt_model_keypoints 0, yrt_session_keypoints gives 0 keypoints. */
static void test_no_keypoints(void **state) {
  (void)state;
  ytb_loaded l;
  yrt_error err;
  ytb *b = ytb_new(); /* a detect model: its rows straight through, no keypoint decode */
  const int32_t dd[3] = {1, ROWS, N};
  const uint32_t x = ytb_tensor(b, "det", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 3, dd);
  const uint32_t y = ytb_tensor(b, "output0", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 3, dd);
  ytb_input(b, x);
  ytb_output(b, y);
  ytb_node(b, YRT_OP_RESHAPE, "rows", 1, &x, y, NULL, 0, NULL, 0);
  ytb_meta(b, 32, 32, NC, "");
  if (ytb_load(b, 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  int dims = -1;
  assert_int_equal(yrt_model_keypoints(l.m, &dims), 0);
  assert_int_equal(dims, 0);
  assert_int_equal(yrt_model_keypoints(NULL, NULL), 0);
  static float det[ROWS * N];
  for (int i = 0; i < ROWS * N; i++) det[i] = i == 4 * N + 3 ? 0.9f : 1.0f / 64;
  assert_int_equal(yrt_session_set_input(l.s, 0, det, ROWS * N, &err), YRT_OK);
  assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
  yrt_detection dets[4];
  int n = 0;
  assert_int_equal(yrt_session_postprocess(l.s, NULL, NULL, dets, 4, &n, &err), YRT_OK);
  assert_int_equal(n, 1);
  yrt_keypoint kp[1];
  int count = -1;
  assert_int_equal(yrt_session_keypoints(l.s, 0, kp, 1, &count, &err), YRT_OK);
  assert_int_equal(count, 0);
  ytb_unload(&l);
}

/* ---- the anchor form (YOLO-Pose: an objectness head's anchor vectors, TI's grid offset) */
enum { NA = 2, FIRST = 3, PER = FIRST + NK * 3, NA_N = NA * N };

/* Maps [1, H, W, NA PER] (grid 0 int8, grid 1 float) -> pose_decode in the anchor form -> output0
 * = Concat(rows, keypoints); form, anchors and per written from f[0..2]. */
static ytb *build_anchor(uint32_t *node, const int32_t f[3]) {
  ytb *b = ytb_new();
  const int32_t dd[3] = {1, ROWS, NA_N}, d0[4] = {1, H0, H0, NA * PER}, d1[4] = {1, H1, H1, NA * PER},
                dk[3] = {1, NK * 3, NA_N}, dy[3] = {1, ROWS + NK * 3, NA_N};
  const uint32_t det = ytb_tensor(b, "det", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 3, dd);
  const uint32_t k0f = ytb_tensor(b, "k0_f", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d0);
  const uint32_t k1 = ytb_tensor(b, "k1", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d1);
  ytb_input(b, det);
  ytb_input(b, k0f);
  ytb_input(b, k1);
  const uint32_t k0q = ytb_act_i8(b, "k0", 4, d0, S0, Z0);
  const uint32_t kpt = ytb_tensor(b, "kpt", YRT_F32, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 3, dk);
  const uint32_t y = ytb_tensor(b, "output0", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 3, dy);
  ytb_output(b, y);
  ytb_node(b, YRT_OP_QUANTIZE, "q0", 1, &k0f, k0q, NULL, 0, NULL, 0);
  const uint32_t in[3] = {k0q, k1, det};
  int32_t p[YRT_POSE_P_FIRST + 1] = {2, NK, 3, 8, 16};
  p[YRT_POSE_P_FORM] = f[0], p[YRT_POSE_P_ANCHORS] = f[1], p[YRT_POSE_P_PER] = f[2], p[YRT_POSE_P_FIRST] = FIRST;
  *node = ytb_node(b, YRT_OP_POSE_DECODE, "pose", 3, in, kpt, p, YRT_POSE_P_FIRST + 1, NULL, 0);
  const uint32_t cat[2] = {det, kpt};
  const int32_t axis = 1;
  ytb_node(b, YRT_OP_CONCAT, "rows", 2, cat, y, &axis, 1, NULL, 0);
  ytb_meta(b, 32, 32, NC, "");
  ytb_meta_rec(b)->task = ytb_string(b, "pose");
  return b;
}

/* Every anchor's keypoints against TI's Detect in double: anchor a of scale g is anchor an of
 * cell (row, col), its values at map[cell][an PER + FIRST + c]; x = (2 v - 0.5 + col) stride. */
static void test_anchor_form(void **state) {
  (void)state;
  const int32_t good[3] = {YRT_POSE_ANCHOR, NA, PER};
  uint32_t node;
  ytb_loaded l;
  yrt_error err;
  if (ytb_load(build_anchor(&node, good), 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  static float det[ROWS * NA_N], k0[H0 * H0 * NA * PER], k1[H1 * H1 * NA * PER];
  float *a = yrt_session_input_nhwc(l.s, 1), *b = yrt_session_input_nhwc(l.s, 2);
  assert_non_null(a);
  assert_non_null(b);
  for (int i = 0; i < H0 * H0 * NA * PER; i++) a[i] = k0[i] = logit(2, i);
  for (int i = 0; i < H1 * H1 * NA * PER; i++) b[i] = k1[i] = logit(3, i);
  if (yrt_session_set_input(l.s, 0, det, ROWS * NA_N, &err) != YRT_OK) fail_msg("%s", err.msg);
  if (yrt_session_run(l.s, &err) != YRT_OK) fail_msg("run: %s", err.msg);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  double worst = 0;
  for (int an = 0; an < NA_N; an++) {
    const int g0 = an < NA * H0 * H0, w = g0 ? H0 : H1, cells = w * w, j = g0 ? an : an - NA * H0 * H0;
    const int anchor = j / cells, cell = j % cells;
    for (int c = 0; c < NK * 3; c++) {
      const int at = cell * NA * PER + anchor * PER + FIRST + c;
      const double x = g0 ? deq(k0[at]) : k1[at], st = g0 ? 8 : 16;
      const double want = c % 3 == 2 ? 1.0 / (1.0 + exp(-x)) : (2 * x - 0.5 + (c % 3 ? cell / w : cell % w)) * st;
      worst = fmax(worst, fabs(v.data[(ROWS + c) * NA_N + an] - want) / (1 + fabs(want)));
    }
  }
  print_message("pose_decode anchor form vs double: %.3g (relative)\n", worst);
  assert_true(worst < 1e-6);
  ytb_unload(&l);
  /* what the loader refuses: an unknown form, no anchors, vectors that do not end with the keypoints */
  const int32_t bad[3][3] = {{2, NA, PER}, {YRT_POSE_ANCHOR, 0, PER}, {YRT_POSE_ANCHOR, NA, PER + 1}};
  for (int k = 0; k < 3; k++) {
    err.msg[0] = 0;
    if (ytb_load(build_anchor(&node, bad[k]), 0, &l, &err) == YRT_OK) fail_msg("anchor form edit %d accepted", k);
    assert_non_null(strstr(err.msg, "pose_decode"));
    print_message("anchor form edit %d -> %s\n", k, err.msg);
    ytb_unload(&l);
  }
}

/* ---- hostile edits */
typedef void (*edit_fn)(ytb *b, uint32_t node, const ids *t, int arg);

static void set_p(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)t;
  ytb_node_rec(b, node)->p[arg >> 16] = (int32_t)(int16_t)(arg & 0xFFFF);
}
static void layout_plain(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)node, (void)arg;
  ytb_tensor_rec(b, t->k1)->layout = YRT_LAYOUT_PLAIN;
}
static void per_channel(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)node, (void)arg;
  float sc[NK * 3];
  for (int i = 0; i < NK * 3; i++) sc[i] = 0.01f * (float)(i + 1);
  ytb_set_channel_scales(b, t->k0q, 3, sc, NK * 3);
}
static void grid_swap(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)arg;
  ytb_node_rec(b, node)->in[1] = t->k0f; /* two 4x4 grids: more anchors than the rows hold */
}
static void n_in(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)t;
  ytb_node_rec(b, node)->n_in = (uint32_t)arg;
}
static void rows_int(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)t, (void)arg;
  ytb_node_rec(b, node)->in[2] = t->k0q; /* an int8 NHWC map where the rows belong */
}
static void no_edit(ytb *b, uint32_t node, const ids *t, int arg) { (void)b, (void)node, (void)t, (void)arg; }
static void out_rows(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)node, (void)arg; /* output0 one row short of detection + keypoint rows */
  yrt_tensor_rec *y = ytb_tensor_rec(b, t->y), *k = ytb_tensor_rec(b, t->kpt);
  k->dims[1] -= 1;
  k->nbytes = (uint64_t)k->dims[1] * N * 4;
  y->dims[1] -= 1;
  y->nbytes = (uint64_t)y->dims[1] * N * 4;
}

static void expect_rejected(edit_fn f, int arg, const char *what, const char *in_msg) {
  uint32_t node;
  ids t;
  ytb *b = build(&node, &t);
  f(b, node, &t, arg);
  const char *bad = ytb_rejected(b, what, in_msg);
  if (bad) fail_msg("%s: %s", what, bad);
}

#define P(idx, v) (((idx) << 16) | ((v) & 0xFFFF))
static void test_hostile_params(void **state) {
  (void)state;
  KD = 3, WITH_POSE = 1, TASK = "pose";
  expect_rejected(set_p, P(0, 0), "scales 0", "pose_decode");
  expect_rejected(set_p, P(0, 4), "scales 4", "pose_decode");
  expect_rejected(set_p, P(0, 1), "scales 1 with 2 inputs", "pose_decode");
  expect_rejected(set_p, P(1, 0), "keypoints 0", "pose_decode");
  expect_rejected(set_p, P(1, 2000), "keypoints 2000", "pose_decode");
  expect_rejected(set_p, P(1, 4), "keypoints vs channels", "pose_decode");
  expect_rejected(set_p, P(2, 1), "values 1", "pose_decode");
  expect_rejected(set_p, P(2, 4), "values 4", "pose_decode");
  expect_rejected(set_p, P(3, 0), "stride 0", "pose_decode");
  expect_rejected(set_p, P(4, 5000), "stride 5000", "pose_decode");
  expect_rejected(layout_plain, 0, "maps not NHWC", "pose_decode");
  expect_rejected(per_channel, 0, "per-channel maps", NULL);
  expect_rejected(grid_swap, 0, "grids vs output anchors", "pose_decode");
  expect_rejected(n_in, 4, "4 inputs", NULL);
  expect_rejected(rows_int, 0, "detection rows not f32", "pose_decode");
  expect_rejected(out_rows, 0, "keypoint rows short", "pose_decode");
  TASK = "detect"; /* keypoint rows in a model that does not say pose */
  expect_rejected(no_edit, 0, "task detect with keypoints", "not 'pose'");
  TASK = "pose";
}

/* A session on an edited record: run, decode, keypoints of every detection. */
static void use_edited(yrt_model *m, void *ctx) {
  (void)ctx;
  yrt_session *s = NULL;
  yrt_error err;
  if (yrt_session_create(m, NULL, &s, &err) != YRT_OK) return;
  yrt_session_run(s, &err);
  yrt_detection d[4];
  yrt_keypoint kp[64];
  int n = 0, c = 0;
  if (yrt_session_postprocess(s, NULL, NULL, d, 4, &n, &err) == YRT_OK)
    for (int i = 0; i < n; i++) yrt_session_keypoints(s, i, kp, 64, &c, &err);
  yrt_session_free(s);
}

/* Every word of the node record set to edge values: rejected or harmless, never a crash. */
static void test_hostile_words(void **state) {
  (void)state;
  KD = 3, WITH_POSE = 1, TASK = "pose";
  uint32_t node;
  ids t;
  ytb *b = build(&node, &t); /* before node is read */
  assert_true(ytb_node_sweep(b, node, use_edited, NULL) >= 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode_matches_reference),
      cmocka_unit_test(test_anchor_form),
      cmocka_unit_test(test_keypoints_api),
      cmocka_unit_test(test_threshold_aware),
      cmocka_unit_test(test_no_keypoints),
      cmocka_unit_test(test_hostile_params),
      cmocka_unit_test(test_hostile_words),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
