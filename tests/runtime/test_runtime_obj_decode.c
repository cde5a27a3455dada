/* test_runtime_obj_decode.c — YRT_OP_OBJ_DECODE (objectness heads: YOLOv5 / v7 anchors, YOLOX) on
 * hand-built two-grid models: the joint layout (na anchors x (5 + nc) channels, grid 0 int8
 * through the tables, grid 1 float) in both box modes, and the split layout (YOLOX: box 4 and
 * objectness + classes 1 + nc), each against a double-precision decode written from the
 * families' formulas; then hostile parameters, operands and shapes the loader must reject, and
 * random words over the node record that must be rejected or harmless (ASan in CI). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "op_table.h"
#include "session_internal.h"
#include "yolort.h"
#include "yrt_test_builder.h"

enum { NC = 3, H0 = 4, H1 = 2, MAXNA = 2 };
static int NA = 2, SPLIT = 0, MODE = YRT_OBJ_SIGMOID;
static int EXTRA = 0; /* values after the classes in each anchor vector (YOLO-Pose keypoints), skipped */
static int BAD_ANCHOR = -1; /* >= 0: anchor value 1 made 0, negative, NaN or inf */
static const float S0 = 0.06f, S1 = 0.05f;
static const int32_t Z0 = 7, Z1 = -11;
static const float ANCH[2][MAXNA][2] = {{{10, 13}, {16, 30}}, {{30, 61}, {62, 45}}};

static int n_anchors(void) { return NA * (H0 * H0 + H1 * H1); }
static int per(int k) { return SPLIT ? (k ? 1 + NC : 4) : NA * (5 + NC + EXTRA); } /* channels of input k per grid */

/* Tensor ids in t: x0_f, x1 (float input), x0_q (int8), [split: s0_f, s1, s0_q], anchors, y. */
typedef struct ids {
  uint32_t x0f, x1, x0q, s0f, s1, s0q, anchors, y;
} ids;

static ytb *build(uint32_t *node, ids *t) {
  ytb *b = ytb_new();
  const int32_t d0[4] = {1, H0, H0, per(0)}, d1[4] = {1, H1, H1, per(0)}, e0[4] = {1, H0, H0, per(1)},
                e1[4] = {1, H1, H1, per(1)}, da[3] = {2, NA, 2}, dy[3] = {1, 4 + NC, n_anchors()};
  t->x0f = ytb_tensor(b, "x0_f", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d0);
  t->x1 = ytb_tensor(b, "x1", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d1);
  ytb_input(b, t->x0f);
  ytb_input(b, t->x1);
  t->x0q = ytb_act_i8(b, "x0", 4, d0, S0, Z0);
  if (SPLIT) {
    t->s0f = ytb_tensor(b, "s0_f", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, e0);
    t->s1 = ytb_tensor(b, "s1", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, e1);
    ytb_input(b, t->s0f);
    ytb_input(b, t->s1);
    t->s0q = ytb_act_i8(b, "s0", 4, e0, S1, Z1);
  }
  float an[2 * MAXNA * 2];
  for (int s = 0; s < 2; s++)
    for (int a = 0; a < NA; a++)
      for (int k = 0; k < 2; k++) an[(s * NA + a) * 2 + k] = MODE == YRT_OBJ_EXP ? (float)(8 << s) : ANCH[s][a][k];
  if (BAD_ANCHOR >= 0) an[1] = BAD_ANCHOR == 0 ? 0.0f : BAD_ANCHOR == 1 ? -3.0f : BAD_ANCHOR == 2 ? NAN : INFINITY;
  t->anchors = ytb_const(b, "anchors", YRT_F32, 3, da, an);
  t->y = ytb_tensor(b, "output0", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 3, dy);
  ytb_output(b, t->y);
  ytb_node(b, YRT_OP_QUANTIZE, "q0", 1, &t->x0f, t->x0q, NULL, 0, NULL, 0);
  if (SPLIT) ytb_node(b, YRT_OP_QUANTIZE, "q1", 1, &t->s0f, t->s0q, NULL, 0, NULL, 0);
  const uint32_t in_joint[3] = {t->x0q, t->x1, t->anchors}, in_split[5] = {t->x0q, t->x1, t->s0q, t->s1, t->anchors};
  const int32_t p[YRT_OBJ_P_PER + 1] = {2, NA, NC, MODE, SPLIT, 8, 16, 0, 0, EXTRA ? 5 + NC + EXTRA : 0};
  *node = ytb_node(b, YRT_OP_OBJ_DECODE, "obj", SPLIT ? 5 : 3, SPLIT ? in_split : in_joint, t->y, p, YRT_OBJ_P_PER + 1,
                   NULL, 0);
  ytb_meta(b, 32, 32, NC, "");
  return b;
}

static float logit(int k, int i) { return (float)((i * 7919 + k * 104729) % 211 - 105) * 0.04f; }

static float deq(float v, float s, int32_t z) {
  long q = lrintf(v / s) + z;
  q = q < -128 ? -128 : q > 127 ? 127 : q;
  return (float)(q - z) * s;
}

static double sig(double x) { return 1.0 / (1.0 + exp(-x)); }

static void decode_matches_reference(int na, int split, int mode) {
  NA = na, SPLIT = split, MODE = mode;
  uint32_t node;
  ids t;
  ytb_loaded l;
  yrt_error err;
  if (ytb_load(build(&node, &t), 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  const int hh[2] = {H0, H1}, n_in = split ? 4 : 2, N = n_anchors();
  static float in[4][H0 * H0 * MAXNA * (5 + NC + 8)];
  for (int k = 0; k < n_in; k++) { /* inputs: x0, x1, [s0, s1] */
    const int g = k % 2, n = hh[g] * hh[g] * per(k / 2);
    float *dst = yrt_session_input_nhwc(l.s, k);
    assert_non_null(dst);
    for (int i = 0; i < n; i++) dst[i] = in[k][i] = logit(k, i);
  }
  if (yrt_session_run(l.s, &err) != YRT_OK) fail_msg("run: %s", err.msg);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  assert_int_equal(v.count, (size_t)(4 + NC) * N);
  double worst_box = 0, worst_score = 0;
  int g = 0;
  for (int s = 0; s < 2; s++)
    for (int a = 0; a < na; a++)
      for (int cell = 0; cell < hh[s] * hh[s]; cell++, g++) {
        double x[5 + NC]; /* the anchor's logits as the kernel sees them (grid 0 quantized) */
        for (int k = 0; k < 5 + NC; k++) {
          int src, ch;
          float sc = S0;
          int32_t zp = Z0;
          if (!split) src = s, ch = cell * per(0) + a * (5 + NC + EXTRA) + k;
          else if (k < 4) src = s, ch = cell * 4 + k;
          else src = 2 + s, ch = cell * (1 + NC) + k - 4, sc = S1, zp = Z1;
          x[k] = s ? in[src][ch] : deq(in[src][ch], sc, zp);
        }
        const double st = 8 << s, col = cell % hh[s], row = cell / hh[s];
        double want[4];
        if (mode == YRT_OBJ_SIGMOID) {
          want[0] = (2 * sig(x[0]) - 0.5 + col) * st, want[1] = (2 * sig(x[1]) - 0.5 + row) * st;
          want[2] = 4 * sig(x[2]) * sig(x[2]) * ANCH[s][a][0], want[3] = 4 * sig(x[3]) * sig(x[3]) * ANCH[s][a][1];
        } else {
          want[0] = (x[0] + col) * st, want[1] = (x[1] + row) * st, want[2] = exp(x[2]) * st, want[3] = exp(x[3]) * st;
        }
        for (int k = 0; k < 4; k++) worst_box = fmax(worst_box, fabs(v.data[k * N + g] - want[k]) / (1 + fabs(want[k])));
        for (int c = 0; c < NC; c++)
          worst_score = fmax(worst_score, fabs(v.data[(4 + c) * N + g] - sig(x[4]) * sig(x[5 + c])));
      }
  print_message("obj_decode na %d split %d mode %d extra %d vs double: boxes %.3g (relative), scores %.3g\n", na, split,
                mode, EXTRA, worst_box, worst_score);
  assert_true(worst_box < 1e-5);
  assert_true(worst_score < 1e-6);
  ytb_unload(&l);
}

static void test_decode_matches_reference(void **state) {
  (void)state;
  decode_matches_reference(2, 0, YRT_OBJ_SIGMOID); /* YOLOv5 / v7 */
  decode_matches_reference(1, 0, YRT_OBJ_SIGMOID);
  decode_matches_reference(1, 0, YRT_OBJ_EXP);      /* YOLOX, one tensor a grid */
  decode_matches_reference(1, 1, YRT_OBJ_EXP);      /* YOLOX, box and scores apart */
  decode_matches_reference(2, 0, YRT_OBJ_SIGMOID);
  EXTRA = 6; /* YOLO-Pose: two keypoints of x, y, conf after the classes */
  decode_matches_reference(2, 0, YRT_OBJ_SIGMOID);
  EXTRA = 0;
}

/* The same decode on 1 and 2 threads, bit for bit (ranges of anchors are independent). */
static void test_threads_agree(void **state) {
  (void)state;
  NA = 2, SPLIT = 0, MODE = YRT_OBJ_SIGMOID;
  float *out[2] = {NULL, NULL};
  size_t count = 0;
  uint32_t node;
  ids t;
  ytb *b = build(&node, &t);
  size_t size;
  void *img = ytb_serialize(b, &size);
  ytb_free(b);
  for (int th = 1; th <= 2; th++) {
    yrt_model *m = NULL;
    yrt_session *s = NULL;
    yrt_error err;
    yrt_session_options o;
    yrt_session_options_init(&o);
    o.num_threads = th;
    if (yrt_model_load_memory(img, size, 0, &m, &err) || yrt_session_create(m, &o, &s, &err)) fail_msg("%s", err.msg);
    for (int k = 0; k < 2; k++) {
      float *dst = yrt_session_input_nhwc(s, k);
      for (size_t i = 0; i < yrt_session_input_count(s, k); i++) dst[i] = logit(k, (int)i);
    }
    assert_int_equal(yrt_session_run(s, &err), YRT_OK);
    yrt_tensor_view v;
    assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
    out[th - 1] = malloc(v.count * sizeof(float));
    assert_non_null(out[th - 1]);
    memcpy(out[th - 1], v.data, v.count * sizeof(float));
    count = v.count;
    yrt_session_free(s);
    yrt_model_free(m);
  }
  assert_memory_equal(out[0], out[1], count * sizeof(float));
  free(out[0]);
  free(out[1]);
  free(img);
}

/* The threshold-aware decode yrt_session_detect runs (the row's detect_over): every anchor whose
 * best decoded score passes conf is listed, each listed one decoded into its packed column
 * exactly as the full decode wrote it, int8 (grid 0, tables) and float (grid 1) alike. */
static void over_threshold(int na, int split, int mode) {
  NA = na, SPLIT = split, MODE = mode;
  uint32_t node;
  ids t;
  ytb_loaded l;
  yrt_error err;
  if (ytb_load(build(&node, &t), 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  const int n_in = split ? 4 : 2, N = n_anchors();
  for (int k = 0; k < n_in; k++) {
    float *dst = yrt_session_input_nhwc(l.s, k);
    for (size_t i = 0; i < yrt_session_input_count(l.s, k); i++) dst[i] = logit(k, (int)i);
  }
  assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  static float full[(4 + NC) * 2 * (H0 * H0 + H1 * H1)];
  memcpy(full, v.data, v.count * sizeof(float));
  const yrt_op_def *d = yrt_op_lookup(l.m->ops, YRT_OP_OBJ_DECODE);
  assert_non_null(d);
  assert_non_null(d->detect_over);
  yrt_plan without; /* the graph without the decode node, as yrt_session_detect's plan */
  assert_int_equal(yrt_plan_leave_out(l.s, &l.s->every, node, &without, &err), YRT_OK);
  /* edges too: conf exactly an anchor's best score (it must not pass: a score passes when
   * > conf) and the float just below it (it must) */
  float edge = full[4 * N + N / 2];
  for (int k = 1; k < NC; k++) edge = fmaxf(edge, full[(4 + k) * N + N / 2]);
  const float confs[] = {0.0f, 0.1f, 0.3f, 0.5f, 0.9f, 1.0f, edge, nextafterf(edge, 0.0f)};
  for (size_t c = 0; c < sizeof confs / sizeof *confs; c++) {
    assert_int_equal(yrt_session_run_plan(l.s, &without, &err), YRT_OK);
    int32_t list[2 * (H0 * H0 + H1 * H1)];
    const size_t n = d->detect_over(l.s, &l.s->exec[node], confs[c], list);
    size_t li = 0;
    for (int a = 0; a < N; a++) {
      float best = full[4 * N + a];
      for (int k = 1; k < NC; k++) best = fmaxf(best, full[(4 + k) * N + a]);
      const int listed = li < n && list[li] == a;
      if (best > confs[c]) assert_true(listed);
      if (listed) {
        for (int r = 0; r < 4 + NC; r++) assert_memory_equal(&v.data[r * n + li], &full[r * N + a], sizeof(float));
        li++;
      }
    }
    assert_int_equal(li, n);
    if (confs[c] >= 0.9f) assert_true(n < (size_t)N);
    if (c + 1 == sizeof confs / sizeof *confs) { /* the last: just below the middle anchor's best score */
      int found = 0;
      for (size_t i = 0; i < n; i++) found |= list[i] == N / 2;
      assert_true(found);
    }
  }
  yrt_plan_free(&without);
  ytb_unload(&l);
}

static void test_over_threshold(void **state) {
  (void)state;
  over_threshold(2, 0, YRT_OBJ_SIGMOID);
  over_threshold(1, 0, YRT_OBJ_EXP);
  over_threshold(1, 1, YRT_OBJ_EXP);
  EXTRA = 6;
  over_threshold(2, 0, YRT_OBJ_SIGMOID);
  EXTRA = 0, NA = 2, SPLIT = 0, MODE = YRT_OBJ_SIGMOID;
}

/* ---- hostile edits */
typedef void (*edit_fn)(ytb *b, uint32_t node, const ids *t, int arg);

static void set_p(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)t;
  ytb_node_rec(b, node)->p[arg >> 16] = (int32_t)(int16_t)(arg & 0xFFFF);
}
static void anchors_to_act(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)arg;
  ytb_node_rec(b, node)->in[2] = t->x1;
}
static void no_edit(ytb *b, uint32_t node, const ids *t, int arg) { (void)b, (void)node, (void)t, (void)arg; }
static void grid_swap(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)arg;
  ytb_node_rec(b, node)->in[1] = t->x0f; /* grid 1 slot gets the 4x4 float input: anchor count differs */
}
static void per_channel(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)node, (void)arg;
  float sc[NC] = {0.1f, 0.2f, 0.3f};
  ytb_set_channel_scales(b, t->x0q, 3, sc, NC);
}
static void layout_plain(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)node, (void)arg;
  ytb_tensor_rec(b, t->x1)->layout = YRT_LAYOUT_PLAIN;
}
static void out_short(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)node, (void)arg;
  yrt_tensor_rec *y = ytb_tensor_rec(b, t->y);
  y->dims[2] = n_anchors() - 1;
  y->nbytes = (uint64_t)(4 + NC) * (uint64_t)(n_anchors() - 1) * 4;
}
static void out_rows(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)node, (void)arg;
  yrt_tensor_rec *y = ytb_tensor_rec(b, t->y); /* rows 5 + nc: the export's own layout */
  y->dims[1] = 5 + NC;
  y->dims[2] = n_anchors() * (4 + NC) / (5 + NC);
  y->nbytes = (uint64_t)y->dims[1] * (uint64_t)y->dims[2] * 4;
}
static void n_in(ytb *b, uint32_t node, const ids *t, int arg) {
  (void)t;
  ytb_node_rec(b, node)->n_in = (uint32_t)arg;
}

static void expect_rejected(edit_fn f, int arg, const char *what) {
  uint32_t node;
  ids t;
  ytb *b = build(&node, &t);
  f(b, node, &t, arg);
  /* a per-channel edit is the quantize's before it */
  const char *bad = ytb_rejected(b, what, strncmp(what, "per-channel", 11) != 0 ? "obj_decode" : NULL);
  if (bad) fail_msg("%s: %s", what, bad);
}

#define P(idx, v) (((idx) << 16) | ((v) & 0xFFFF))
static void test_hostile_params(void **state) {
  (void)state;
  NA = 2, SPLIT = 0, MODE = YRT_OBJ_SIGMOID;
  expect_rejected(set_p, P(0, 0), "scales 0");
  expect_rejected(set_p, P(0, 5), "scales 5");
  expect_rejected(set_p, P(0, 1), "scales 1 with 3 inputs");
  expect_rejected(set_p, P(1, 0), "anchors 0");
  expect_rejected(set_p, P(1, 10), "anchors 10");
  expect_rejected(set_p, P(1, 1), "anchors vs channels");
  expect_rejected(set_p, P(2, 0), "classes 0");
  expect_rejected(set_p, P(2, 2000), "classes 2000");
  expect_rejected(set_p, P(2, 4), "classes vs channels");
  expect_rejected(set_p, P(3, 2), "mode 2");
  expect_rejected(set_p, P(3, -1), "mode -1");
  expect_rejected(set_p, P(4, 2), "layout 2");
  expect_rejected(set_p, P(4, 1), "split with 2 anchors");
  expect_rejected(set_p, P(5, 0), "stride 0");
  expect_rejected(set_p, P(6, 5000), "stride 5000");
  expect_rejected(set_p, P(9, 5 + NC - 1), "values per anchor below 5 + nc");
  expect_rejected(set_p, P(9, 5 + NC + 3), "values per anchor vs channels");
  expect_rejected(anchors_to_act, 0, "anchors not constant");
  for (BAD_ANCHOR = 0; BAD_ANCHOR < 4; BAD_ANCHOR++) expect_rejected(no_edit, 0, "anchor 0 / <0 / nan / inf");
  BAD_ANCHOR = -1;
  expect_rejected(grid_swap, 0, "grid anchors vs output");
  expect_rejected(per_channel, 0, "per-channel logits");
  expect_rejected(layout_plain, 0, "logits not NHWC");
  expect_rejected(out_short, 0, "output anchors");
  expect_rejected(out_rows, 0, "output [1, 5 + nc, ...]");
  expect_rejected(n_in, 2, "2 inputs for 2 grids");
  expect_rejected(n_in, 8, "8 inputs");
  SPLIT = 1, NA = 1, MODE = YRT_OBJ_EXP;
  expect_rejected(set_p, P(4, 0), "joint reading of a split head");
  expect_rejected(set_p, P(2, 2), "split classes vs channels");
  NA = 2, SPLIT = 0, MODE = YRT_OBJ_SIGMOID;
}

/* Every word of the node record set to edge values: rejected or harmless, never a crash. */
static void test_hostile_words(void **state) {
  (void)state;
  NA = 2, SPLIT = 0, MODE = YRT_OBJ_SIGMOID;
  uint32_t node;
  ids t;
  ytb *b = build(&node, &t); /* before node is read */
  assert_true(ytb_node_sweep(b, node, NULL, NULL) >= 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode_matches_reference),
      cmocka_unit_test(test_threads_agree),
      cmocka_unit_test(test_over_threshold),
      cmocka_unit_test(test_hostile_params),
      cmocka_unit_test(test_hostile_words),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
