/* test_runtime_detect.c — YRT_OP_DETECT_DECODE on a hand-built two-scale model (scale 0 int8
 * logits through the 256-entry tables, scale 1 float logits), checked against a double-precision
 * decode; and hostile parameters, operands and shapes that the loader must reject (or, for
 * random words, at least survive: this runs under ASan in CI). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ops/detect_decode.h"
#include "session_internal.h"
#include "yolort.h"
#include "yrt_test_builder.h"

enum { RMAX = 16, NC = 3, H0 = 4, H1 = 2, N = H0 * H0 + H1 * H1 };
static const float SC = 0.07f;
static int R = 16;   /* reg_max: 16, or 1 (no DFL: the box logits are the distances) */
static int XYXY = 0; /* 1: corner rows */
static float SB = 0.11f; /* box scale: 0.11 skips the softmax max (s*255 <= 80), 0.5 does not */
static const int32_t ZB = 5, ZC = -9;

typedef void (*edit_fn)(ytb *b, uint32_t node, const uint32_t *t, int arg);

/* Inputs (f32 NHWC): box0 [1,4,4,64], cls0 [1,4,4,3] quantized to int8; box1 [1,2,2,64],
 * cls1 [1,2,2,3] used as float. Tensor ids in t: box0_f, cls0_f, box1, cls1, box0_q, cls0_q,
 * proj, y. */
static ytb *build(uint32_t *node, uint32_t *t) {
  ytb *b = ytb_new();
  const int32_t db0[4] = {1, H0, H0, 4 * R}, dc0[4] = {1, H0, H0, NC}, db1[4] = {1, H1, H1, 4 * R},
                dc1[4] = {1, H1, H1, NC}, dp[1] = {R}, dy[3] = {1, 4 + NC, N};
  t[0] = ytb_tensor(b, "box0_f", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, db0);
  t[1] = ytb_tensor(b, "cls0_f", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, dc0);
  t[2] = ytb_tensor(b, "box1", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, db1);
  t[3] = ytb_tensor(b, "cls1", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, dc1);
  t[4] = ytb_act_i8(b, "box0", 4, db0, SB, ZB);
  t[5] = ytb_act_i8(b, "cls0", 4, dc0, SC, ZC);
  float proj[RMAX];
  for (int j = 0; j < R; j++) proj[j] = (float)j;
  t[6] = ytb_const(b, "proj", YRT_F32, 1, dp, proj);
  t[7] = ytb_tensor(b, "output0", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 3, dy);
  for (int k = 0; k < 4; k++) ytb_input(b, t[k]);
  ytb_output(b, t[7]);
  ytb_node(b, YRT_OP_QUANTIZE, "q0", 1, &t[0], t[4], NULL, 0, NULL, 0);
  ytb_node(b, YRT_OP_QUANTIZE, "q1", 1, &t[1], t[5], NULL, 0, NULL, 0);
  const uint32_t in[5] = {t[4], t[2], t[5], t[3], t[6]};
  const int32_t p[7] = {2, R, NC, 8, 16, 0, XYXY};
  *node = ytb_node(b, YRT_OP_DETECT_DECODE, "detect", 5, in, t[7], p, 7, NULL, 0);
  ytb_meta(b, 32, 32, NC, "");
  return b;
}

static float logit(int k, int i) { return (float)((i * 7919 + k * 104729) % 211 - 105) * 0.045f; }

/* Double-precision decode of one side / score from float logits. */
static double dfl_ref(const float *x) {
  if (R == 1) return x[0];
  double mx = x[0], sum = 0, acc = 0;
  for (int j = 1; j < R; j++) mx = fmax(mx, x[j]);
  for (int j = 0; j < R; j++) {
    const double e = exp(x[j] - mx);
    sum += e;
    acc += e * j;
  }
  return acc / sum;
}

static float deq(float v, float s, int32_t z) {
  long q = lrintf(v / s) + z;
  q = q < -128 ? -128 : q > 127 ? 127 : q;
  return (float)(q - z) * s;
}

static void decode_matches_reference(float box_scale) {
  SB = box_scale;
  uint32_t node, t[8];
  ytb_loaded l;
  yrt_error err;
  if (ytb_load(build(&node, t), 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  const int hh[2] = {H0, H1}, stride[2] = {8, 16};
  static float in[4][H0 * H0 * 4 * RMAX];
  for (int k = 0; k < 4; k++) {
    const int n = hh[k / 2] * hh[k / 2] * (k % 2 ? NC : 4 * R);
    float *dst = yrt_session_input_nhwc(l.s, k);
    assert_non_null(dst);
    for (int i = 0; i < n; i++) dst[i] = in[k][i] = logit(k, i);
  }
  if (yrt_session_run(l.s, &err) != YRT_OK) fail_msg("run: %s", err.msg);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  assert_int_equal(v.count, (size_t)(4 + NC) * N);
  double worst_box = 0, worst_score = 0;
  int a = 0;
  for (int s = 0; s < 2; s++)
    for (int cell = 0; cell < hh[s] * hh[s]; cell++, a++) {
      float bx[4 * RMAX], cl[NC];
      for (int c = 0; c < 4 * R; c++) bx[c] = s ? in[2][cell * 4 * R + c] : deq(in[0][cell * 4 * R + c], SB, ZB);
      for (int c = 0; c < NC; c++) cl[c] = s ? in[3][cell * NC + c] : deq(in[1][cell * NC + c], SC, ZC);
      double d[4];
      for (int k = 0; k < 4; k++) d[k] = dfl_ref(bx + k * R);
      const double ax = cell % hh[s] + 0.5, ay = cell / hh[s] + 0.5;
      const double want[4] = {XYXY ? (ax - d[0]) * stride[s] : (ax - d[0] + ax + d[2]) / 2 * stride[s],
                              XYXY ? (ay - d[1]) * stride[s] : (ay - d[1] + ay + d[3]) / 2 * stride[s],
                              XYXY ? (ax + d[2]) * stride[s] : (d[0] + d[2]) * stride[s],
                              XYXY ? (ay + d[3]) * stride[s] : (d[1] + d[3]) * stride[s]};
      for (int k = 0; k < 4; k++) worst_box = fmax(worst_box, fabs(v.data[k * N + a] - want[k]));
      for (int c = 0; c < NC; c++)
        worst_score = fmax(worst_score, fabs(v.data[(4 + c) * N + a] - 1.0 / (1.0 + exp(-(double)cl[c]))));
    }
  print_message("detect_decode vs double: boxes %.3g px, scores %.3g\n", worst_box, worst_score);
  assert_true(worst_box < 2e-4);
  assert_true(worst_score < 1e-6);
  ytb_unload(&l);
}

static void test_decode_matches_reference(void **state) {
  (void)state;
  decode_matches_reference(0.11f);
  decode_matches_reference(0.5f);
  /* Heads without DFL (YOLO26): distances straight from the logits, in both row formats. */
  R = 1;
  decode_matches_reference(0.11f);
  XYXY = 1;
  decode_matches_reference(0.11f);
  R = 16;
  decode_matches_reference(0.5f);
  XYXY = 0;
}

/* The threshold-aware decode yrt_session_detect uses (issue 16 item 4), on both the int8 (table)
 * and float scales: every anchor whose best score passes conf is listed and decoded exactly as the
 * full decode (packed: listed anchor j in column j of [4 + nc][n]), and an unlisted anchor never
 * passes conf. */
static void test_decode_over_threshold(void **state) {
  (void)state;
  uint32_t node, t[8];
  ytb_loaded l;
  yrt_error err;
  if (ytb_load(build(&node, t), 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  const int hh[2] = {H0, H1};
  for (int k = 0; k < 4; k++) {
    const int n = hh[k / 2] * hh[k / 2] * (k % 2 ? NC : 4 * R);
    float *dst = yrt_session_input_nhwc(l.s, k);
    for (int i = 0; i < n; i++) dst[i] = logit(k, i);
  }
  assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  static float full[(4 + NC) * N];
  memcpy(full, v.data, sizeof full);
  yrt_plan without; /* the graph without the decode node, as yrt_session_detect's plan */
  assert_int_equal(yrt_plan_leave_out(l.s, &l.s->every, node, &without, &err), YRT_OK);
  const float confs[] = {0.0f, 0.2f, 0.5f, 0.8f, 0.95f, 1.0f};
  for (size_t c = 0; c < sizeof confs / sizeof *confs; c++) {
    for (size_t i = 0; i < v.count; i++) v.data[i] = NAN;
    assert_int_equal(yrt_session_run_plan(l.s, &without, &err), YRT_OK);
    for (size_t i = 0; i < v.count; i++) assert_true(isnan(v.data[i])); /* the decode was left out */
    int32_t list[N];
    const size_t n = yrt_detect_decode_over(l.s, &l.s->exec[node], confs[c], list);
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
    assert_int_equal(li, n); /* increasing, in range */
    print_message("conf %.2f: %zu of %d anchors decoded\n", (double)confs[c], n, N);
    if (confs[c] >= 0.8f) assert_true(n < N);
  }
  yrt_plan_free(&without);
  ytb_unload(&l);
}

/* ---- hostile edits */

static void set_p(ytb *b, uint32_t node, const uint32_t *t, int arg) {
  (void)t;
  ytb_node_rec(b, node)->p[arg >> 16] = (int32_t)(int16_t)(arg & 0xFFFF);
}
static void proj_to_act(ytb *b, uint32_t node, const uint32_t *t, int arg) {
  (void)arg;
  ytb_node_rec(b, node)->in[4] = t[2];
}
static void swap_grid(ytb *b, uint32_t node, const uint32_t *t, int arg) {
  (void)arg;
  ytb_node_rec(b, node)->in[0] = t[4];
  ytb_node_rec(b, node)->in[1] = t[0]; /* box1 slot gets a 4x4 float input */
  (void)node;
}
static void cls_as_box(ytb *b, uint32_t node, const uint32_t *t, int arg) {
  (void)arg;
  ytb_node_rec(b, node)->in[2] = t[4]; /* class slot gets 64 channels */
}
static void per_channel(ytb *b, uint32_t node, const uint32_t *t, int arg) {
  (void)node, (void)arg;
  float sc[NC] = {0.1f, 0.2f, 0.3f};
  ytb_set_channel_scales(b, t[5], 3, sc, NC);
}
static void layout_plain(ytb *b, uint32_t node, const uint32_t *t, int arg) {
  (void)node, (void)arg;
  ytb_tensor_rec(b, t[2])->layout = YRT_LAYOUT_PLAIN;
}
static void out_i8(ytb *b, uint32_t node, const uint32_t *t, int arg) {
  (void)node, (void)arg;
  yrt_tensor_rec *y = ytb_tensor_rec(b, t[7]);
  y->dtype = YRT_I8;
  y->nbytes /= 4;
  y->scale = 1.0f;
}
static void out_short(ytb *b, uint32_t node, const uint32_t *t, int arg) {
  (void)node, (void)arg;
  yrt_tensor_rec *y = ytb_tensor_rec(b, t[7]);
  y->dims[2] = N - 1;
  y->nbytes = (uint64_t)(4 + NC) * (N - 1) * 4;
}
static void n_in(ytb *b, uint32_t node, const uint32_t *t, int arg) {
  (void)t;
  ytb_node_rec(b, node)->n_in = (uint32_t)arg;
}

static void expect_rejected(edit_fn f, int arg, const char *what) {
  uint32_t node, t[8];
  ytb *b = build(&node, t);
  f(b, node, t, arg);
  ytb_loaded l;
  yrt_error err;
  err.msg[0] = 0;
  yrt_status st = ytb_load(b, 0, &l, &err);
  if (st == YRT_OK) fail_msg("%s: accepted", what);
  assert_string_equal(l.step, "load");
  print_message("%-28s -> %s\n", what, err.msg);
  ytb_unload(&l);
}

#define P(idx, v) (((idx) << 16) | ((v) & 0xFFFF))

static void test_hostile_params(void **state) {
  (void)state;
  SB = 0.11f;
  expect_rejected(set_p, P(0, 0), "scales 0");
  expect_rejected(set_p, P(0, 4), "scales 4");
  expect_rejected(set_p, P(0, 1), "scales 1 with 5 inputs");
  expect_rejected(set_p, P(0, -1), "scales -1");
  expect_rejected(set_p, P(1, 0), "reg_max 0");
  expect_rejected(set_p, P(1, 65), "reg_max 65");
  expect_rejected(set_p, P(1, 8), "reg_max vs channels");
  expect_rejected(set_p, P(1, -16), "reg_max -16");
  expect_rejected(set_p, P(6, 2), "xyxy 2");
  expect_rejected(set_p, P(2, 0), "classes 0");
  expect_rejected(set_p, P(2, 2000), "classes 2000");
  expect_rejected(set_p, P(2, 4), "classes vs channels");
  expect_rejected(set_p, P(3, 0), "stride 0");
  expect_rejected(set_p, P(4, -16), "stride -16");
  expect_rejected(set_p, P(4, 5000), "stride 5000");
  expect_rejected(proj_to_act, 0, "projection not constant");
  expect_rejected(swap_grid, 0, "box/class grids differ");
  expect_rejected(cls_as_box, 0, "class channels");
  expect_rejected(per_channel, 0, "per-channel logits");
  expect_rejected(layout_plain, 0, "logits not NHWC");
  expect_rejected(out_i8, 0, "int8 output");
  expect_rejected(out_short, 0, "output anchors");
  expect_rejected(n_in, 3, "3 inputs for 2 scales");
  expect_rejected(n_in, 8, "8 inputs");
}

/* Hostile words over the detect node's record: rejected or harmless, never a crash. */
static void test_hostile_words(void **state) {
  (void)state;
  uint32_t node, t[8];
  ytb *b = build(&node, t);
  size_t size;
  uint8_t *img = ytb_serialize(b, &size);
  ytb_free(b);
  uint64_t len, off = ytb_section(img, YRT_SEC_NODES, &len);
  off += (uint64_t)node * sizeof(yrt_node_rec);
  uint8_t *buf = aligned_alloc(64, (size + 63) / 64 * 64);
  assert_non_null(buf);
  const uint32_t vals[] = {0u, 1u, 2u, 3u, 4u, 5u, 7u, 8u, 16u, 64u, 65u, 1024u, 4096u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
  int accepted = 0;
  for (uint64_t w = off; w < off + sizeof(yrt_node_rec); w += 4)
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
      memcpy(buf, img, size);
      memcpy(buf + w, &vals[k], 4);
      ytb_fix_crc(buf, size);
      yrt_model *m = NULL;
      yrt_session *s = NULL;
      yrt_error err;
      if (yrt_model_load_memory(buf, size, 0, &m, &err) != YRT_OK) continue;
      accepted++;
      const yrt_session_options one = {.num_threads = 1}; /* many sessions: no pool each */
      if (yrt_session_create(m, &one, &s, &err) == YRT_OK) {
        yrt_session_run(s, &err);
        yrt_session_free(s);
      }
      yrt_model_free(m);
    }
  print_message("%d hostile node words accepted (harmless ones, e.g. unused params)\n", accepted);
  free(buf);
  free(img);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode_matches_reference),
      cmocka_unit_test(test_decode_over_threshold),
      cmocka_unit_test(test_hostile_params),
      cmocka_unit_test(test_hostile_words),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
