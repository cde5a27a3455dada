/* test_runtime_obb.c — rotated boxes (issue 36 item 4): probiou against values of Ultralytics'
 * batch_probiou (numpy transcription, tests/models/check_obb.py), the rotated NMS's Fast-NMS
 * semantics (a box suppressed by a suppressed one is dropped too, classes apart, agnostic), and
 * YRT_OP_OBB_DECODE on a hand-built two-grid model (grid 0 int8 through the table, grid 1 float):
 * the decode against a double-precision dist2rbox, yrt_session_postprocess + yrt_session_rbox
 * through a letterbox, their errors; hostile parameters and shapes the loader must reject;
 * random words over the node record (ASan). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "prepost/postprocess_internal.h"
#include "prepost/probiou.h"
#include "session_internal.h"
#include "yolort.h"
#include "yrt_test_builder.h"

static const double PI = 3.14159265358979323846;

static double pio(float x0, float y0, float w0, float h0, float t0, float x1, float y1, float w1, float h1, float t1) {
  yrt_gauss a, b;
  yrt_rbox_gauss(x0, y0, w0, h0, t0, &a);
  yrt_rbox_gauss(x1, y1, w1, h1, t1, &b);
  const double v = yrt_probiou(&a, &b), u = yrt_probiou(&b, &a);
  assert_true(fabs(v - u) < 1e-12); /* symmetric */
  return v;
}

/* Values of batch_probiou (float64) for the same pairs. */
static void test_probiou_reference(void **state) {
  (void)state;
  const struct {
    float a[5], b[5];
    double want;
  } k[] = {
      {{10, 20, 30, 10, 0.3f}, {10, 20, 30, 10, 0.3f}, 0.999552786},
      {{50, 50, 40, 20, 0}, {55, 52, 40, 20, 0.4f}, 0.737887918},
      {{0, 0, 10, 10, 0}, {3, 0, 10, 10, (float)(PI / 4)}, 0.644635072},
      {{100, 100, 60, 10, 0.2f}, {100, 100, 60, 10, (float)(0.2 + PI / 2)}, 0.178005002},
      {{0, 0, 10, 10, 0}, {500, 0, 10, 10, 0}, -0.000000050},
      {{30, 40, 25, 8, -0.7f}, {28, 41, 9, 24, 1.1f}, 0.763778459},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    const double got = pio(k[i].a[0], k[i].a[1], k[i].a[2], k[i].a[3], k[i].a[4], k[i].b[0], k[i].b[1], k[i].b[2],
                           k[i].b[3], k[i].b[4]);
    if (!(fabs(got - k[i].want) < 2e-6)) fail_msg("pair %zu: probiou %.9f, batch_probiou %.9f", i, got, k[i].want);
  }
  /* a box turned by pi is the same box; NaN overlaps nothing */
  assert_true(fabs(pio(5, 5, 20, 6, 0.4f, 5, 5, 20, 6, (float)(0.4 + PI)) - 0.999552786) < 2e-6);
  assert_true(pio(5, 5, NAN, 6, 0.4f, 5, 5, 20, 6, 0.4f) < 1e-6);
  float c[4][2];
  yrt_rbox_corners(10, 20, 8, 4, (float)(PI / 2), c); /* w along +y: corner 0 = centre + (0, 4) + (-2, 0) */
  assert_true(fabsf(c[0][0] - 8) < 1e-5f && fabsf(c[0][1] - 24) < 1e-5f);
  assert_true(fabsf(c[2][0] - 12) < 1e-5f && fabsf(c[2][1] - 16) < 1e-5f);
}

/* output0 [4 + 2 + 1][4]: A, B, C of class 0 in a row 14 px apart (probiou A-B, B-C 0.545, A-C
 * 0.22), D of class 1 on A. Fast-NMS at 0.45 keeps A (B by A, C by the suppressed B) and D; a
 * greedy NMS would keep C. Agnostic: D goes too (on A). */
static void test_rotated_nms(void **state) {
  (void)state;
  enum { N = 4, NC = 2 };
  float out[(4 + NC + 1) * N];
  const float cx[N] = {100, 114, 128, 100}, score[N] = {0.9f, 0.8f, 0.7f, 0.85f};
  const int cls[N] = {0, 0, 0, 1};
  for (int a = 0; a < N; a++) {
    out[0 * N + a] = cx[a], out[1 * N + a] = 100, out[2 * N + a] = 40, out[3 * N + a] = 20;
    out[4 * N + a] = cls[a] == 0 ? score[a] : 0.01f;
    out[5 * N + a] = cls[a] == 1 ? score[a] : 0.01f;
    out[6 * N + a] = 0.3f;
  }
  void *scratch = malloc(yrt_postprocess_scratch_bytes(N, 0));
  assert_non_null(scratch);
  yrt_postprocess_params p;
  yrt_postprocess_params_init(&p);
  yrt_detection d[N];
  int n = -1;
  yrt_error err;
  assert_int_equal(yrt_postprocess_rotated_known(out, NC, N, NULL, &p, scratch, d, N, &n, &err), YRT_OK);
  assert_int_equal(n, 2);
  assert_true(d[0].score == 0.9f && d[0].class_id == 0 && d[1].score == 0.85f && d[1].class_id == 1);
  const int *kept = yrt_postprocess_kept_anchors(scratch, N);
  assert_int_equal(kept[0], 0);
  assert_int_equal(kept[1], 3);
  /* the enclosing box of a 40 x 20 box turned by 0.3 rad */
  const double hw = 20 * cos(0.3) + 10 * sin(0.3), hh = 20 * sin(0.3) + 10 * cos(0.3);
  assert_true(fabs(d[0].x0 - (100 - hw)) < 1e-3 && fabs(d[0].x1 - (100 + hw)) < 1e-3);
  assert_true(fabs(d[0].y0 - (100 - hh)) < 1e-3 && fabs(d[0].y1 - (100 + hh)) < 1e-3);
  p.class_agnostic = 1;
  assert_int_equal(yrt_postprocess_rotated_known(out, NC, N, NULL, &p, scratch, d, N, &n, &err), YRT_OK);
  assert_int_equal(n, 1);
  p.class_agnostic = 0, p.iou_threshold = 0.6f; /* A-B 0.545 under it: A and B; C by B (0.545 < 0.6): kept too */
  assert_int_equal(yrt_postprocess_rotated_known(out, NC, N, NULL, &p, scratch, d, N, &n, &err), YRT_OK);
  assert_int_equal(n, 4);
  free(scratch);
}

/* ---- OBB_DECODE on a built model */
enum { NC = 2, H0 = 4, H1 = 2, N = H0 * H0 + H1 * H1, ROWS = 4 + NC };
static const float S0 = 0.05f;
static const int32_t Z0 = -3;
static const char *TASK = "obb";

typedef struct ids {
  uint32_t det, a0f, a1, a0q, y;
} ids;

static ytb *build(uint32_t *node, ids *t) {
  ytb *b = ytb_new();
  const int32_t dd[3] = {1, ROWS, N}, d0[4] = {1, H0, H0, 1}, d1[4] = {1, H1, H1, 1}, dy[3] = {1, ROWS + 1, N};
  t->det = ytb_tensor(b, "det", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 3, dd);
  t->a0f = ytb_tensor(b, "a0_f", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d0);
  t->a1 = ytb_tensor(b, "a1", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d1);
  ytb_input(b, t->det);
  ytb_input(b, t->a0f);
  ytb_input(b, t->a1);
  t->a0q = ytb_act_i8(b, "a0", 4, d0, S0, Z0);
  t->y = ytb_tensor(b, "output0", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 3, dy);
  ytb_output(b, t->y);
  ytb_node(b, YRT_OP_QUANTIZE, "q0", 1, &t->a0f, t->a0q, NULL, 0, NULL, 0);
  const uint32_t in[3] = {t->a0q, t->a1, t->det}; /* angle maps, then the detection rows */
  const int32_t p[3] = {2, 8, 16};
  *node = ytb_node(b, YRT_OP_OBB_DECODE, "obb", 3, in, t->y, p, 3, NULL, 0);
  ytb_meta(b, 32, 32, NC, "");
  ytb_meta_rec(b)->task = ytb_string(b, TASK);
  return b;
}

static float logit(int i) { return (float)((i * 7919) % 97 - 48) * 0.09f; }

static float deq(float v) {
  long q = lrintf(v / S0) + Z0;
  q = q < -128 ? -128 : q > 127 ? 127 : q;
  return (float)(q - Z0) * S0;
}

/* Detection rows: every anchor a box around its cell, scores low but for three anchors. */
static float det[ROWS * N];
static void fill(yrt_session *s, float *a0, float *a1) {
  float *x = yrt_session_input_nhwc(s, 1), *y = yrt_session_input_nhwc(s, 2);
  assert_non_null(x);
  assert_non_null(y);
  for (int a = 0; a < N; a++) {
    const int g = a < H0 * H0 ? 0 : 1, cell = g ? a - H0 * H0 : a, w = g ? H1 : H0, st = g ? 16 : 8;
    det[0 * N + a] = ((float)(cell % w) + 0.5f) * (float)st + 3.0f - (float)(a % 5);
    det[1 * N + a] = ((float)(cell / w) + 0.5f) * (float)st - 2.0f + (float)(a % 3);
    det[2 * N + a] = 10.0f + (float)a, det[3 * N + a] = 6.0f + (float)(a % 4);
    det[4 * N + a] = 0.01f, det[5 * N + a] = 0.02f;
  }
  det[4 * N + 5] = 0.9f, det[5 * N + 11] = 0.8f, det[4 * N + 18] = 0.7f;
  for (int i = 0; i < H0 * H0; i++) x[i] = a0[i] = logit(i);
  for (int i = 0; i < H1 * H1; i++) y[i] = a1[i] = logit(100 + i);
  yrt_error err;
  if (yrt_session_set_input(s, 0, det, ROWS * N, &err) != YRT_OK) fail_msg("%s", err.msg);
}

/* dist2rbox of anchor a from the axis-aligned rows (double): row r of 0..ROWS. */
static double want(const float *a0, const float *a1, int a, int r) {
  const int g = a < H0 * H0 ? 0 : 1, cell = g ? a - H0 * H0 : a, w = g ? H1 : H0;
  const double v = g ? a1[cell] : deq(a0[cell]), st = g ? 16 : 8, t = (1 / (1 + exp(-v)) - 0.25) * PI;
  const double ax = (cell % w + 0.5) * st, ay = (cell / w + 0.5) * st, dx = det[a] - ax, dy = det[N + a] - ay;
  return r == 0 ? ax + dx * cos(t) - dy * sin(t) : r == 1 ? ay + dx * sin(t) + dy * cos(t) : r == ROWS ? t : det[r * N + a];
}

static void load_run(ytb_loaded *l, float *a0, float *a1) {
  uint32_t node;
  ids t;
  yrt_error err;
  if (ytb_load(build(&node, &t), 0, l, &err) != YRT_OK) fail_msg("%s: %s", l->step, err.msg);
  fill(l->s, a0, a1);
  if (yrt_session_run(l->s, &err) != YRT_OK) fail_msg("run: %s", err.msg);
}

static void test_decode_and_api(void **state) {
  (void)state;
  TASK = "obb";
  ytb_loaded l;
  yrt_error err;
  static float a0[H0 * H0], a1[H1 * H1];
  load_run(&l, a0, a1);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  double worst = 0;
  for (int a = 0; a < N; a++)
    for (int r = 0; r <= ROWS; r++) worst = fmax(worst, fabs(v.data[r * N + a] - want(a0, a1, a, r)));
  print_message("obb_decode vs double dist2rbox: %.3g\n", worst);
  assert_true(worst < 1e-4);
  assert_int_equal(yrt_model_rotated(l.m), 1);
  assert_string_equal(yrt_model_task(l.m), "obb");
  /* through a letterbox of ratio 0.5, pads 2 / 4: each detection's rotated box is its anchor's
   * rows mapped, the angle regularized into [0, pi/2) */
  const yrt_letterbox lb = {.ratio = 0.5f, .pad_left = 2, .pad_top = 4, .src_w = 60, .src_h = 56};
  yrt_detection d[8];
  int n = 0;
  assert_int_equal(yrt_session_postprocess(l.s, &lb, NULL, d, 8, &n, &err), YRT_OK);
  assert_int_equal(n, 3);
  const int anchors[3] = {5, 11, 18};
  for (int i = 0; i < n; i++) {
    yrt_rbox rb;
    assert_int_equal(yrt_session_rbox(l.s, i, &rb, sizeof rb, &err), YRT_OK);
    const int a = anchors[i];
    assert_true(fabs(rb.cx - (v.data[a] - 2) / 0.5) < 1e-3 && fabs(rb.cy - (v.data[N + a] - 4) / 0.5) < 1e-3);
    double t = fmod(v.data[ROWS * N + a], PI);
    if (t < 0) t += PI;
    const int swap = t >= PI / 2;
    const double w = v.data[(swap ? 3 : 2) * N + a] / 0.5, h = v.data[(swap ? 2 : 3) * N + a] / 0.5;
    assert_true(fabs(rb.w - w) < 1e-3 && fabs(rb.h - h) < 1e-3);
    assert_true(rb.angle >= 0 && rb.angle < PI / 2 && fabs(rb.angle - fmod(t, PI / 2)) < 1e-4);
    for (int k = 0; k < 4; k++) /* the detection's box encloses the corners (clipped to the image) */
      assert_true(rb.corners[k][0] >= d[i].x0 - 1e-3 || d[i].x0 == 0);
  }
  /* errors: past the last detection, a struct too small; a prefix of the struct is written alone */
  yrt_rbox rb;
  assert_int_equal(yrt_session_rbox(l.s, n, &rb, sizeof rb, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_session_rbox(l.s, 0, &rb, 16, &err), YRT_ERR_INVALID_ARG);
  memset(&rb, 0x7F, sizeof rb);
  assert_int_equal(yrt_session_rbox(l.s, 0, &rb, offsetof(yrt_rbox, corners), &err), YRT_OK);
  unsigned char tail[sizeof rb.corners];
  memset(tail, 0x7F, sizeof tail);
  assert_memory_equal(rb.corners, tail, sizeof tail);
  ytb_unload(&l);
}

/* A model without rotated boxes: yrt_session_rbox refuses, naming the task. */
static void test_not_rotated(void **state) {
  (void)state;
  ytb *b = ytb_new();
  const int32_t dd[3] = {1, ROWS, N};
  const uint32_t x = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 3, dd);
  const uint32_t y = ytb_tensor(b, "output0", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 3, dd);
  ytb_input(b, x);
  ytb_output(b, y);
  ytb_node(b, YRT_OP_RESHAPE, "rows", 1, &x, y, NULL, 0, NULL, 0);
  ytb_meta(b, 32, 32, NC, "");
  ytb_loaded l;
  yrt_error err;
  if (ytb_load(b, 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  assert_int_equal(yrt_model_rotated(l.m), 0);
  yrt_rbox rb;
  assert_int_equal(yrt_session_rbox(l.s, 0, &rb, sizeof rb, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "no rotated boxes"));
  ytb_unload(&l);
}

/* ---- hostile edits */
typedef void (*edit_fn)(ytb *b, uint32_t node, const ids *t, int arg);

static void set_p(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)t;
  ytb_node_rec(b, node)->p[arg >> 16] = (int32_t)(int16_t)(arg & 0xFFFF);
}
static void layout_plain(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)node, (void)arg;
  ytb_tensor_rec(b, t->a1)->layout = YRT_LAYOUT_PLAIN;
}
static void grid_swap(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)arg;
  ytb_node_rec(b, node)->in[1] = t->a0f; /* two 4x4 grids: more anchors than the rows hold */
}
static void n_in(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)t;
  ytb_node_rec(b, node)->n_in = (uint32_t)arg;
}
static void rows_int(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)t, (void)arg;
  ytb_node_rec(b, node)->in[2] = t->a0q; /* an int8 NHWC map where the rows belong */
}
static void out_rows(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)node; /* output0 arg rows off the detection rows + the angle */
  yrt_tensor_rec *y = ytb_tensor_rec(b, t->y);
  y->dims[1] += arg;
  y->nbytes = (uint64_t)y->dims[1] * N * 4;
}
static void no_edit(ytb *b, uint32_t node, const ids *t, int arg) { (void)b, (void)node, (void)t, (void)arg; }

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
  TASK = "obb";
  expect_rejected(set_p, P(0, 0), "scales 0", "obb_decode");
  expect_rejected(set_p, P(0, 4), "scales 4", "obb_decode");
  expect_rejected(set_p, P(0, 1), "scales 1 with 3 inputs", "obb_decode");
  expect_rejected(set_p, P(1, 0), "stride 0", "obb_decode");
  expect_rejected(set_p, P(2, 5000), "stride 5000", "obb_decode");
  expect_rejected(set_p, P(2, -16), "stride -16", "obb_decode");
  expect_rejected(set_p, P(4, 2), "angle form 2", "obb_decode");
  /* the raw form without the header bit older runtimes refuse: refused here too */
  expect_rejected(set_p, P(4, YRT_OBB_RAW), "raw angle without YRT_FLAG_OBB_RAW", "OBB_RAW");
  expect_rejected(layout_plain, 0, "angle map not NHWC", "obb_decode");
  expect_rejected(grid_swap, 0, "grids vs row anchors", "obb_decode");
  expect_rejected(n_in, 2, "2 inputs", NULL);
  expect_rejected(n_in, 5, "5 inputs", NULL);
  expect_rejected(rows_int, 0, "detection rows not f32", "obb_decode");
  expect_rejected(out_rows, -1, "no angle row", "obb_decode");
  expect_rejected(out_rows, 1, "two rows after the scores", NULL); /* past the arena, or the node */
  TASK = "detect"; /* an angle row in a model that does not say obb */
  expect_rejected(no_edit, 0, "task detect with an angle", "obb");
  TASK = "obb";
}

/* A session on an edited record: run, decode, rotated box of every detection. */
static void use_edited(yrt_model *m, void *ctx) {
  (void)ctx;
  yrt_session *s = NULL;
  yrt_error err;
  if (yrt_session_create(m, NULL, &s, &err) != YRT_OK) return;
  yrt_session_run(s, &err);
  yrt_detection d[4];
  yrt_rbox rb;
  int n = 0;
  if (yrt_session_postprocess(s, NULL, NULL, d, 4, &n, &err) == YRT_OK)
    for (int i = 0; i < n; i++) yrt_session_rbox(s, i, &rb, sizeof rb, &err);
  yrt_session_free(s);
}

/* Every word of the node record set to edge values: rejected or harmless, never a crash. */
static void test_hostile_words(void **state) {
  (void)state;
  TASK = "obb";
  uint32_t node;
  ids t;
  ytb *b = build(&node, &t); /* before node is read */
  assert_true(ytb_node_sweep(b, node, use_edited, NULL) >= 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_probiou_reference), cmocka_unit_test(test_rotated_nms),
      cmocka_unit_test(test_decode_and_api),    cmocka_unit_test(test_not_rotated),
      cmocka_unit_test(test_hostile_params),    cmocka_unit_test(test_hostile_words),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
