/* test_runtime_views.c — tensor views (zero-copy Concat / Split): a hand-built int8 graph where a
 * conv writes into a Concat's buffer, a Split half of it is read in place by a conv, another conv
 * writes the Concat's second half, and the Concat copies nothing. Its output equals the same
 * graph with dense tensors, bit for bit, on 1 and 2 threads; hostile view records (holder out of
 * range, self, nested, channels past the holder, wrong offset or quantization, a view where no
 * kernel takes one, overlapping a live view) are rejected at load. A second graph has a bottleneck's
 * residual Add reading a Split half in place and writing its Concat slot (int8 binary on views),
 * run by the runtime inside the conv before it (each task adds its rows): equal to the Add kept
 * apart by a copy in between. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "op_table.h"
#include "ops/op_run.h"
#include "yolort.h"
#include "yrt_test_builder.h"

enum { H = 6, W = 5, C = 8, NOUT = H * W * 4 };

/* Tensor indices of the graph, in creation order (records are edited by index). */
enum { T_X, T_Q, T_WA, T_WC, T_WB, T_WD, T_A, T_SV, T_C, T_B, T_P, T_D, T_OUT };

/* The graph's input, output, META, and (views) vt[0..2] placed inside p at channels 0, 4, 8. */
static void *finish(ytb *b, uint32_t x, uint32_t out, uint32_t p, const uint32_t vt[3], int views, size_t *size) {
  ytb_input(b, x);
  ytb_output(b, out);
  ytb_meta(b, W, H, 4, "");
  if (views) {
    const uint64_t po = ytb_tensor_rec(b, p)->offset;
    const uint32_t ch[3] = {0, 4, 8};
    for (int k = 0; k < 3; k++) {
      yrt_tensor_rec *r = ytb_tensor_rec(b, vt[k]);
      r->view_holder = p + 1;
      r->view_channel = ch[k];
      r->offset = po + ch[k];
    }
  }
  void *img = ytb_serialize(b, size);
  ytb_free(b);
  return img;
}

static void *build(int views, size_t *size) {
  ytb *b = ytb_new();
  int8_t wa[C * 9 * C], wc[C * 9 * 4], wb[C * C], wd[4 * 2 * C];
  for (int i = 0; i < (int)sizeof wa; i++) wa[i] = (int8_t)((i * 53) % 255 - 127);
  for (int i = 0; i < (int)sizeof wc; i++) wc[i] = (int8_t)((i * 29) % 251 - 125);
  for (int i = 0; i < (int)sizeof wb; i++) wb[i] = (int8_t)((i * 71) % 241 - 120);
  for (int i = 0; i < (int)sizeof wd; i++) wd[i] = (int8_t)((i * 17) % 233 - 116);
  int32_t dx[4] = {1, H, W, C}, dwa[4] = {C, 3, 3, C}, dwc[4] = {C, 3, 3, 4}, dwb[4] = {C, 1, 1, C};
  int32_t dwd[4] = {4, 1, 1, 2 * C}, dsv[4] = {1, H, W, 4}, dp[4] = {1, H, W, 2 * C}, dd[4] = {1, H, W, 4};
  const float sp = 0.05f;
  const int32_t zp = -3;
  uint32_t x = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, dx);
  uint32_t q = ytb_act_i8(b, "q", 4, dx, 1.0f / 64, 2);
  uint32_t ta = ytb_const(b, "wa", YRT_I8, 4, dwa, wa), tc = ytb_const(b, "wc", YRT_I8, 4, dwc, wc);
  uint32_t tb = ytb_const(b, "wb", YRT_I8, 4, dwb, wb), td = ytb_const(b, "wd", YRT_I8, 4, dwd, wd);
  ytb_set_q(b, ta, 0.01f, 0);
  ytb_set_q(b, tc, 0.02f, 0);
  ytb_set_q(b, tb, 0.015f, 0);
  ytb_set_q(b, td, 0.01f, 0);
  uint32_t a = ytb_act_i8(b, "a", 4, dx, sp, zp), sv = ytb_act_i8(b, "sv", 4, dsv, sp, zp);
  uint32_t c = ytb_act_i8(b, "c", 4, dx, 0.07f, 1), bb = ytb_act_i8(b, "b", 4, dx, sp, zp);
  uint32_t p = ytb_act_i8(b, "p", 4, dp, sp, zp), d = ytb_act_i8(b, "d", 4, dd, 0.1f, 0);
  uint32_t out = ytb_tensor(b, "out", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, dd);
  assert_int_equal(out, T_OUT);
  int32_t cp[YRT_NODE_PARAMS];
  ytb_node(b, YRT_OP_QUANTIZE, "quant", 1, &x, q, NULL, 0, NULL, 0);
  ytb_conv_params(cp, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, YRT_UNARY_NONE, -1);
  uint32_t in_a[2] = {q, ta};
  ytb_node(b, YRT_OP_CONV2D, "conv_a", 2, in_a, a, cp, YRT_NODE_PARAMS, NULL, 0);
  int32_t sl[12] = {0, 0, 0, 4, 0, 0, 1, 1, 1, 1, 1, 1}; /* channels [4, 8): a Split half */
  ytb_node(b, YRT_OP_SLICE, "split", 1, &a, sv, sl, 12, NULL, 0);
  uint32_t in_c[2] = {sv, tc};
  ytb_node(b, YRT_OP_CONV2D, "conv_c", 2, in_c, c, cp, YRT_NODE_PARAMS, NULL, 0);
  ytb_conv_params(cp, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, YRT_UNARY_NONE, -1);
  uint32_t in_b[2] = {c, tb};
  ytb_node(b, YRT_OP_CONV2D, "conv_b", 2, in_b, bb, cp, YRT_NODE_PARAMS, NULL, 0);
  uint32_t in_p[2] = {a, bb};
  int32_t axis3 = 3;
  ytb_node(b, YRT_OP_CONCAT, "concat", 2, in_p, p, &axis3, 1, NULL, 0);
  uint32_t in_d[2] = {p, td};
  ytb_node(b, YRT_OP_CONV2D, "conv_d", 2, in_d, d, cp, YRT_NODE_PARAMS, NULL, 0);
  ytb_node(b, YRT_OP_DEQUANTIZE, "dequant", 1, &d, out, NULL, 0, NULL, 0);
  const uint32_t vt[3] = {a, sv, bb}; /* channels 0-7, 4-7, 8-15 of p */
  return finish(b, x, out, p, vt, views, size);
}

static void *aligned_copy(const void *img, size_t size) {
  void *buf = aligned_alloc(64, (size + 63) & ~(size_t)63);
  assert_non_null(buf);
  memcpy(buf, img, size);
  return buf;
}

/* The model's output for a fixed input, run through op table ops (NULL: the built-in one);
 * *add_idle (when not NULL): 1 when the node named "add" is left nothing to do (taken over). */
static void run_model_ops(const void *img, size_t size, int threads, const yrt_op_table *ops, float *y,
                          int *add_idle) {
  yrt_error err;
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  if (yrt_model_load_memory_ops(img, size, 1, ops ? ops : yrt_builtin_ops(), &m, &err) != YRT_OK)
    fail_msg("load: %s", err.msg);
  yrt_session_options o;
  memset(&o, 0, sizeof o);
  o.num_threads = threads;
  if (yrt_session_create(m, &o, &s, &err) != YRT_OK) fail_msg("session: %s", err.msg);
  float x[H * W * C];
  for (int i = 0; i < H * W * C; i++) x[i] = (float)((i * 37) % 61) / 30.0f - 1.0f;
  assert_int_equal(yrt_session_set_input(s, 0, x, H * W * C, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
  assert_int_equal((int)v.count, NOUT);
  memcpy(y, v.data, sizeof(float) * NOUT);
  for (uint32_t i = 0; add_idle && i < s->n_exec; i++)
    if (!strcmp(yrt_session_node_name(s, (int)i), "add")) *add_idle = s->exec[i].run == yrt_run_nothing;
  yrt_session_free(s);
  yrt_model_free(m);
}

static void run_model(const void *img, size_t size, int threads, float *y) {
  run_model_ops(img, size, threads, NULL, y, NULL);
}

/* The graph with views gives the dense one's output bit for bit, on 1 and 2 threads; returns the
 * views image (caller frees). */
static void *expect_views_equal_dense(void *(*make)(int, size_t *), size_t *sv) {
  size_t sd;
  void *iv = make(1, sv), *id = make(0, &sd);
  float yv[NOUT], yd[NOUT], y2[NOUT];
  run_model(id, sd, 1, yd);
  run_model(iv, *sv, 1, yv);
  run_model(iv, *sv, 2, y2);
  assert_memory_equal(yv, yd, sizeof yd);
  assert_memory_equal(y2, yd, sizeof yd);
  int distinct = 0; /* not a degenerate output */
  for (int i = 1; i < NOUT; i++) distinct |= yd[i] != yd[0];
  assert_true(distinct);
  free(id);
  return iv;
}

static void views_equal_dense(void **state) {
  (void)state;
  size_t sv;
  free(expect_views_equal_dense(build, &sv));
}

/* Overwrite n bytes at field offset `field` of tensor t's record, fix the CRC, expect a load error. */
static void expect_reject(const void *img, size_t size, uint32_t t, size_t field, const void *val, size_t n,
                          const char *what) {
  uint64_t tlen;
  const uint64_t toff = ytb_section(img, YRT_SEC_TENSORS, &tlen);
  uint8_t *buf = aligned_copy(img, size);
  memcpy(buf + toff + (size_t)t * sizeof(yrt_tensor_rec) + field, val, n);
  ytb_fix_crc(buf, size);
  yrt_error err;
  err.msg[0] = 0;
  yrt_model *m = NULL;
  if (yrt_model_load_memory(buf, size, 0, &m, &err) == YRT_OK) fail_msg("accepted: %s", what);
  print_message("%-34s -> %s\n", what, err.msg);
  free(buf);
}

static uint64_t rec_offset(const void *img, uint32_t t) {
  uint64_t tlen, off;
  const uint64_t toff = ytb_section(img, YRT_SEC_TENSORS, &tlen);
  memcpy(&off, (const uint8_t *)img + toff + (size_t)t * sizeof(yrt_tensor_rec) + offsetof(yrt_tensor_rec, offset),
         8);
  return off;
}

static void hostile_views(void **state) {
  (void)state;
  size_t size;
  void *img = build(1, &size);
  const size_t VH = offsetof(yrt_tensor_rec, view_holder), VC = offsetof(yrt_tensor_rec, view_channel);
  const size_t OFF = offsetof(yrt_tensor_rec, offset), ZP = offsetof(yrt_tensor_rec, zero_point);
  const uint32_t out_of_range = 999, self = T_A + 1, holder_is_view = T_A + 1, nine = 9, one = 1, five = 5;
  const uint32_t eight = 8;
  const int32_t zp0 = 0;
  expect_reject(img, size, T_A, VH, &out_of_range, 4, "holder out of range");
  expect_reject(img, size, T_A, VH, &self, 4, "a view of itself");
  expect_reject(img, size, T_P, VH, &holder_is_view, 4, "holder itself a view");
  expect_reject(img, size, T_D, VC, &one, 4, "view_channel without a holder");
  expect_reject(img, size, T_B, VC, &nine, 4, "channels past the holder");
  const uint64_t b_off = rec_offset(img, T_B) + 1;
  expect_reject(img, size, T_B, OFF, &b_off, 8, "offset off its channel");
  expect_reject(img, size, T_B, ZP, &zp0, 4, "quantization unlike the holder's");
  /* sv at channel 5 (offset moved along): the slice would not be in place */
  {
    uint64_t tlen;
    const uint64_t toff = ytb_section(img, YRT_SEC_TENSORS, &tlen);
    uint8_t *buf = aligned_copy(img, size);
    const uint64_t o5 = rec_offset(img, T_P) + 5;
    memcpy(buf + toff + T_SV * sizeof(yrt_tensor_rec) + VC, &five, 4);
    memcpy(buf + toff + T_SV * sizeof(yrt_tensor_rec) + OFF, &o5, 8);
    expect_reject(buf, size, T_SV, VC, &five, 4, "slice view not where it slices");
    free(buf);
  }
  /* a at channel 8 over b: the concat's slot is not in place (and the two views collide) */
  {
    uint64_t tlen;
    const uint64_t toff = ytb_section(img, YRT_SEC_TENSORS, &tlen);
    uint8_t *buf = aligned_copy(img, size);
    const uint64_t o8 = rec_offset(img, T_P) + 8;
    memcpy(buf + toff + T_A * sizeof(yrt_tensor_rec) + OFF, &o8, 8);
    expect_reject(buf, size, T_A, VC, &eight, 4, "concat input view off its slot");
    free(buf);
  }
  /* c (dense, read by conv_b while a still lives in p) moved into p's bytes */
  const uint64_t p_off = rec_offset(img, T_P);
  expect_reject(img, size, T_C, OFF, &p_off, 8, "dense tensor over a live view");
  /* d made a view of p: conv_d would read and write one buffer */
  const uint32_t p_holder = T_P + 1;
  expect_reject(img, size, T_D, VH, &p_holder, 4, "conv writing the holder it reads");
  free(img);
}

/* C3k2's bottleneck: a = conv(q) in p[0:8], sv = a[4:8] in place, e = conv(sv) dense, s = sv + e
 * (int8 Add) in p[8:12], p = Concat(a, s) copying nothing, d = conv(p). */
enum { R_X, R_Q, R_WA, R_WE, R_WD, R_A, R_SV, R_E, R_S, R_P, R_D, R_OUT };

/* apart: a copy (RESHAPE) of e between conv_e and the Add, so the runtime cannot run the Add in
 * conv_e's tasks (the conv row's absorb_next): the reference of that fusion. */
static void *build_add_with(int views, int apart, size_t *size) {
  ytb *b = ytb_new();
  int8_t wa[C * C], we[4 * 9 * 4], wd[4 * 12];
  for (int i = 0; i < (int)sizeof wa; i++) wa[i] = (int8_t)((i * 53) % 255 - 127);
  for (int i = 0; i < (int)sizeof we; i++) we[i] = (int8_t)((i * 29) % 251 - 125);
  for (int i = 0; i < (int)sizeof wd; i++) wd[i] = (int8_t)((i * 17) % 233 - 116);
  int32_t dx[4] = {1, H, W, C}, dwa[4] = {C, 1, 1, C}, dwe[4] = {4, 3, 3, 4}, dwd[4] = {4, 1, 1, 12};
  int32_t d4[4] = {1, H, W, 4}, dp[4] = {1, H, W, 12};
  const float sp = 0.05f;
  const int32_t zp = -3;
  uint32_t x = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, dx);
  uint32_t q = ytb_act_i8(b, "q", 4, dx, 1.0f / 64, 2);
  uint32_t ta = ytb_const(b, "wa", YRT_I8, 4, dwa, wa), te = ytb_const(b, "we", YRT_I8, 4, dwe, we);
  uint32_t td = ytb_const(b, "wd", YRT_I8, 4, dwd, wd);
  ytb_set_q(b, ta, 0.01f, 0);
  ytb_set_q(b, te, 0.02f, 0);
  ytb_set_q(b, td, 0.01f, 0);
  uint32_t a = ytb_act_i8(b, "a", 4, dx, sp, zp), sv = ytb_act_i8(b, "sv", 4, d4, sp, zp);
  uint32_t e = ytb_act_i8(b, "e", 4, d4, 0.03f, 5), sm = ytb_act_i8(b, "s", 4, d4, sp, zp);
  uint32_t p = ytb_act_i8(b, "p", 4, dp, sp, zp), d = ytb_act_i8(b, "d", 4, d4, 0.1f, 0);
  uint32_t out = ytb_tensor(b, "out", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, d4);
  assert_int_equal(out, R_OUT);
  int32_t cp[YRT_NODE_PARAMS];
  ytb_node(b, YRT_OP_QUANTIZE, "quant", 1, &x, q, NULL, 0, NULL, 0);
  ytb_conv_params(cp, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, YRT_UNARY_NONE, -1);
  uint32_t in_a[2] = {q, ta};
  ytb_node(b, YRT_OP_CONV2D, "conv_a", 2, in_a, a, cp, YRT_NODE_PARAMS, NULL, 0);
  int32_t sl[12] = {0, 0, 0, 4, 0, 0, 1, 1, 1, 1, 1, 1};
  ytb_node(b, YRT_OP_SLICE, "split", 1, &a, sv, sl, 12, NULL, 0);
  ytb_conv_params(cp, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, YRT_UNARY_NONE, -1);
  uint32_t in_e[2] = {sv, te};
  ytb_node(b, YRT_OP_CONV2D, "conv_e", 2, in_e, e, cp, YRT_NODE_PARAMS, NULL, 0);
  uint32_t in_s[2] = {sv, e};
  if (apart) {
    in_s[1] = ytb_act_i8(b, "e_copy", 4, d4, 0.03f, 5);
    ytb_node(b, YRT_OP_RESHAPE, "copy", 1, &e, in_s[1], NULL, 0, NULL, 0);
  }
  int32_t kadd = YRT_BIN_ADD;
  ytb_node(b, YRT_OP_BINARY, "add", 2, in_s, sm, &kadd, 1, NULL, 0);
  uint32_t in_p[2] = {a, sm};
  int32_t axis3 = 3;
  ytb_node(b, YRT_OP_CONCAT, "concat", 2, in_p, p, &axis3, 1, NULL, 0);
  ytb_conv_params(cp, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, YRT_UNARY_NONE, -1);
  uint32_t in_d[2] = {p, td};
  ytb_node(b, YRT_OP_CONV2D, "conv_d", 2, in_d, d, cp, YRT_NODE_PARAMS, NULL, 0);
  ytb_node(b, YRT_OP_DEQUANTIZE, "dequant", 1, &d, out, NULL, 0, NULL, 0);
  const uint32_t vt[3] = {a, sv, sm}; /* channels 0-7, 4-7, 8-11 of p */
  return finish(b, x, out, p, vt, views, size);
}
static void *build_add(int views, size_t *size) { return build_add_with(views, 0, size); }

static void add_views_equal_dense(void **state) {
  (void)state;
  size_t sv, sa;
  void *iv = expect_views_equal_dense(build_add, &sv);
  /* the Add run in conv_e's tasks (views and dense, 1 and 2 threads) equals it run on its own */
  void *ia = build_add_with(1, 1, &sa);
  float ya[NOUT], yv[NOUT];
  run_model(ia, sa, 1, ya);
  run_model(iv, sv, 2, yv);
  assert_memory_equal(yv, ya, sizeof ya);
  free(ia);
  /* e (dense, 4 channels) made a view of p where s sits: the Add's output and input collide */
  const uint32_t p_holder = R_P + 1, eight = 8;
  const uint64_t o8 = rec_offset(iv, R_P) + 8;
  uint64_t tlen;
  const uint64_t toff = ytb_section(iv, YRT_SEC_TENSORS, &tlen);
  uint8_t *buf = aligned_copy(iv, sv);
  memcpy(buf + toff + R_E * sizeof(yrt_tensor_rec) + offsetof(yrt_tensor_rec, view_holder), &p_holder, 4);
  memcpy(buf + toff + R_E * sizeof(yrt_tensor_rec) + offsetof(yrt_tensor_rec, offset), &o8, 8);
  const float sp = 0.05f; /* p's quantization, so only the overlap is wrong */
  const int32_t zp = -3;
  memcpy(buf + toff + R_E * sizeof(yrt_tensor_rec) + offsetof(yrt_tensor_rec, scale), &sp, 4);
  memcpy(buf + toff + R_E * sizeof(yrt_tensor_rec) + offsetof(yrt_tensor_rec, zero_point), &zp, 4);
  expect_reject(buf, sv, R_E, offsetof(yrt_tensor_rec, view_channel), &eight, 4, "binary input over its output");
  free(buf);
  free(iv);
}

/* absorb_next is the only way a conv reaches the Add after it: with the built-in rows the Add
 * runs in conv_e's tasks (where our kernel runs conv_e); a table whose conv row lacks the column
 * runs it as a node of its own, to the same bits. */
static void absorb_next_is_a_row_column(void **state) {
  (void)state;
  size_t sz;
  void *img = build_add(1, &sz);
  yrt_op_def rows[YRT_OP_COUNT_];
  memcpy(rows, yrt_builtin_ops()->rows, sizeof rows);
  rows[YRT_OP_CONV2D].absorb_next = NULL;
  const yrt_op_table t = {rows, YRT_OP_COUNT_};
  float y1[NOUT], y2[NOUT];
  int idle1 = -1, idle2 = -1;
  run_model_ops(img, sz, 2, NULL, y1, &idle1);
  run_model_ops(img, sz, 2, &t, y2, &idle2);
  assert_true(idle1 == 0 || idle1 == 1); /* 1 when conv_e runs on our kernel (not XNNPACK) */
  print_message("absorb_next: the Add run in conv_e's tasks: %d\n", idle1);
  assert_int_equal(idle2, 0);
  assert_memory_equal(y1, y2, sizeof y1);
  free(img);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(views_equal_dense),
      cmocka_unit_test(add_views_equal_dense),
      cmocka_unit_test(absorb_next_is_a_row_column),
      cmocka_unit_test(hostile_views),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
