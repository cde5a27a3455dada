/* test_runtime_ops.c — every op executes through a session and gives the values a plain loop
 * computes (the kernels' numerics are tested bit-exact in tests/kernels; here the runtime's
 * shape/parameter plumbing is what is checked). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "yolort.h"
#include "yrt_test_builder.h"

typedef struct tdesc {
  int rank;
  int32_t d[6];
} tdesc;

static size_t numel(const tdesc *t) {
  size_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= (size_t)t->d[i];
  return n;
}

/* One f32 node: inputs are graph inputs (or constants when cdata[k] != NULL), output plain f32.
 * Runs and copies the output into out. */
static void run1(uint32_t op, int n_in, const tdesc *in, const float *const *data, const int *is_const,
                 const int32_t *cdata_i32, tdesc out, const int32_t *p, int np, const float *f, int nf,
                 float *result) {
  ytb *b = ytb_new();
  uint32_t ids[8];
  for (int k = 0; k < n_in; k++) {
    if (is_const && is_const[k] == 2)
      ids[k] = ytb_const(b, "idx", YRT_I32, in[k].rank, in[k].d, cdata_i32);
    else if (is_const && is_const[k])
      ids[k] = ytb_const(b, "c", YRT_F32, in[k].rank, in[k].d, data[k]);
    else {
      ids[k] = ytb_tensor(b, "in", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, in[k].rank, in[k].d);
      ytb_input(b, ids[k]);
    }
  }
  uint32_t y = ytb_tensor(b, "y", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, out.rank, out.d);
  ytb_node(b, op, "node", n_in, ids, y, p, np, f, nf);
  ytb_output(b, y);
  yrt_error err;
  ytb_loaded l;
  if (ytb_load(b, 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  yrt_session *s = l.s;
  int input = 0;
  for (int k = 0; k < n_in; k++)
    if (!(is_const && is_const[k])) assert_int_equal(yrt_session_set_input(s, input++, data[k], numel(&in[k]), &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
  assert_int_equal(v.count, numel(&out));
  memcpy(result, v.data, v.count * sizeof(float));
  ytb_unload(&l);
}

static void iota(float *x, size_t n) {
  for (size_t i = 0; i < n; i++) x[i] = (float)i - (float)n / 3.0f;
}

static void test_data_movement(void **state) {
  (void)state;
  float x[120], y[160];
  iota(x, 120);
  const float *d[1] = {x};
  /* slice [2,3,4,5] -> starts (1,0,3,4) steps (1,2,-1,-2) counts (1,2,3,3) */
  tdesc tx = {4, {2, 3, 4, 5}};
  int32_t sp[12] = {1, 0, 3, 4, 0, 0, 1, 2, -1, -2, 1, 1};
  run1(YRT_OP_SLICE, 1, &tx, d, NULL, NULL, (tdesc){4, {1, 2, 3, 3}}, sp, 12, NULL, 0, y);
  for (int b = 0; b < 2; b++)
    for (int c = 0; c < 3; c++)
      for (int w = 0; w < 3; w++) assert_true(y[(b * 3 + c) * 3 + w] == x[((1 * 3 + b * 2) * 4 + (3 - c)) * 5 + (4 - 2 * w)]);
  /* transpose [2,3,4,5] perm (2,0,3,1) -> [4,2,5,3] */
  int32_t perm[4] = {2, 0, 3, 1};
  run1(YRT_OP_TRANSPOSE, 1, &tx, d, NULL, NULL, (tdesc){4, {4, 2, 5, 3}}, perm, 4, NULL, 0, y);
  for (int i0 = 0; i0 < 4; i0++)
    for (int i1 = 0; i1 < 2; i1++)
      for (int i2 = 0; i2 < 5; i2++)
        for (int i3 = 0; i3 < 3; i3++)
          assert_true(y[((i0 * 2 + i1) * 5 + i2) * 3 + i3] == x[((i1 * 3 + i3) * 4 + i0) * 5 + i2]);
  /* reshape */
  run1(YRT_OP_RESHAPE, 1, &tx, d, NULL, NULL, (tdesc){2, {6, 20}}, NULL, 0, NULL, 0, y);
  assert_memory_equal(x, y, sizeof x);
  /* gather axis 2 with [3] = {3, -4, 1} -> [2,3,3,5] */
  int32_t gidx[3] = {3, -4, 1};
  tdesc gin[2] = {tx, {1, {3}}};
  const float *gd[2] = {x, NULL};
  int gconst[2] = {0, 2};
  int32_t axis2 = 2;
  run1(YRT_OP_GATHER, 2, gin, gd, gconst, gidx, (tdesc){4, {2, 3, 3, 5}}, &axis2, 1, NULL, 0, y);
  for (int a = 0; a < 6; a++)
    for (int k = 0; k < 3; k++)
      for (int w = 0; w < 5; w++) {
        int src = gidx[k] < 0 ? gidx[k] + 4 : gidx[k];
        assert_true(y[(a * 3 + k) * 5 + w] == x[(a * 4 + src) * 5 + w]);
      }
  /* concat axis 1: [2,3,4,5] + [2,1,4,5] */
  float x2[40];
  iota(x2, 40);
  tdesc cin[2] = {tx, {4, {2, 1, 4, 5}}};
  const float *cd[2] = {x, x2};
  int32_t axis1 = 1;
  run1(YRT_OP_CONCAT, 2, cin, cd, NULL, NULL, (tdesc){4, {2, 4, 4, 5}}, &axis1, 1, NULL, 0, y);
  for (int b = 0; b < 2; b++)
    for (int c = 0; c < 4; c++)
      for (int i = 0; i < 20; i++)
        assert_true(y[(b * 4 + c) * 20 + i] == (c < 3 ? x[(b * 3 + c) * 20 + i] : x2[b * 20 + i]));
}

/* Transposes whose leading axes stay in place (attention heads) run slab by slab on the session's
 * threads: large enough to be split, checked against a plain loop. */
static void test_transpose_slabs(void **state) {
  (void)state;
  enum { A = 2, B = 3, C = 40, D = 70, NX = A * B * C * D };
  float *x = malloc(NX * sizeof *x), *y = malloc(NX * sizeof *y);
  assert_non_null(x), assert_non_null(y);
  iota(x, NX);
  const float *d[1] = {x};
  /* [1, 6, 40, 70] perm (0, 1, 3, 2): 6 slabs, the last two axes swapped */
  tdesc t1 = {4, {1, A * B, C, D}};
  int32_t p1[4] = {0, 1, 3, 2};
  run1(YRT_OP_TRANSPOSE, 1, &t1, d, NULL, NULL, (tdesc){4, {1, A * B, D, C}}, p1, 4, NULL, 0, y);
  for (int h = 0; h < A * B; h++)
    for (int i = 0; i < D; i++)
      for (int j = 0; j < C; j++) assert_true(y[(h * D + i) * C + j] == x[(h * C + j) * D + i]);
  /* [2, 3, 40, 70] perm (0, 2, 1, 3): 2 slabs, the inner axis kept */
  tdesc t2 = {4, {A, B, C, D}};
  int32_t p2[4] = {0, 2, 1, 3};
  run1(YRT_OP_TRANSPOSE, 1, &t2, d, NULL, NULL, (tdesc){4, {A, C, B, D}}, p2, 4, NULL, 0, y);
  for (int a = 0; a < A; a++)
    for (int c = 0; c < C; c++)
      for (int b = 0; b < B; b++)
        for (int w = 0; w < D; w++) assert_true(y[((a * C + c) * B + b) * D + w] == x[((a * B + b) * C + c) * D + w]);
  free(x), free(y);
}

static void test_spatial(void **state) {
  (void)state;
  float x[2 * 5 * 6 * 3], y[2 * 10 * 12 * 3];
  iota(x, sizeof x / 4);
  const float *d[1] = {x};
  tdesc tx = {4, {2, 5, 6, 3}};
  float sc[2] = {2.0f, 2.0f};
  int32_t rp[2] = {0, 0};
  run1(YRT_OP_RESIZE_NEAREST, 1, &tx, d, NULL, NULL, (tdesc){4, {2, 10, 12, 3}}, rp, 2, sc, 2, y);
  for (int b = 0; b < 2; b++)
    for (int h = 0; h < 10; h++)
      for (int w = 0; w < 12; w++)
        for (int c = 0; c < 3; c++)
          assert_true(y[((b * 10 + h) * 12 + w) * 3 + c] == x[((b * 5 + h / 2) * 6 + w / 2) * 3 + c]);
  /* maxpool 3x3 s2 p1 -> [2,3,3,3] */
  int32_t pp[10] = {3, 3, 2, 2, 1, 1, 1, 1, 1, 1};
  run1(YRT_OP_MAXPOOL, 1, &tx, d, NULL, NULL, (tdesc){4, {2, 3, 3, 3}}, pp, 10, NULL, 0, y);
  for (int b = 0; b < 2; b++)
    for (int oh = 0; oh < 3; oh++)
      for (int ow = 0; ow < 3; ow++)
        for (int c = 0; c < 3; c++) {
          float mx = -INFINITY;
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
              int ih = oh * 2 - 1 + ky, iw = ow * 2 - 1 + kx;
              if (ih >= 0 && ih < 5 && iw >= 0 && iw < 6) mx = fmaxf(mx, x[((b * 5 + ih) * 6 + iw) * 3 + c]);
            }
          assert_true(y[((b * 3 + oh) * 3 + ow) * 3 + c] == mx);
        }
}

static void test_math(void **state) {
  (void)state;
  float a[24], bb[4], y[24];
  iota(a, 24);
  for (int i = 0; i < 4; i++) bb[i] = 0.5f + (float)i;
  /* binary with broadcast: [2,3,4] (op) [1,1,4] */
  tdesc tin[2] = {{3, {2, 3, 4}}, {3, {1, 1, 4}}};
  const float *d2[2] = {a, bb};
  for (int kind = YRT_BIN_ADD; kind <= YRT_BIN_DIV; kind++) {
    run1(YRT_OP_BINARY, 2, tin, d2, NULL, NULL, (tdesc){3, {2, 3, 4}}, &kind, 1, NULL, 0, y);
    for (int i = 0; i < 24; i++) {
      float e = kind == YRT_BIN_ADD ? a[i] + bb[i % 4] : kind == YRT_BIN_SUB ? a[i] - bb[i % 4]
              : kind == YRT_BIN_MUL ? a[i] * bb[i % 4] : a[i] / bb[i % 4];
      assert_float_equal(y[i], e, 1e-6);
    }
  }
  /* unary relu / sigmoid */
  const float *d1[1] = {a};
  int32_t k = YRT_UNARY_RELU;
  run1(YRT_OP_UNARY, 1, tin, d1, NULL, NULL, tin[0], &k, 1, NULL, 0, y);
  for (int i = 0; i < 24; i++) assert_true(y[i] == fmaxf(a[i], 0.0f));
  k = YRT_UNARY_SIGMOID;
  run1(YRT_OP_UNARY, 1, tin, d1, NULL, NULL, tin[0], &k, 1, NULL, 0, y);
  for (int i = 0; i < 24; i++) assert_float_equal(y[i], 1.0f / (1.0f + expf(-a[i])), 1e-5);
  /* softmax axis 1 of [2,3,4] */
  int32_t ax = 1;
  run1(YRT_OP_SOFTMAX, 1, tin, d1, NULL, NULL, tin[0], &ax, 1, NULL, 0, y);
  for (int o = 0; o < 2; o++)
    for (int in = 0; in < 4; in++) {
      float sum = 0;
      for (int j = 0; j < 3; j++) sum += expf(a[(o * 3 + j) * 4 + in]);
      for (int j = 0; j < 3; j++) assert_float_equal(y[(o * 3 + j) * 4 + in], expf(a[(o * 3 + j) * 4 + in]) / sum, 1e-5);
    }
  /* matmul [2,3,4] x const [1,4,2] -> [2,3,2] */
  float w[8];
  iota(w, 8);
  tdesc min[2] = {{3, {2, 3, 4}}, {3, {1, 4, 2}}};
  const float *md[2] = {a, w};
  int mconst[2] = {0, 1};
  run1(YRT_OP_MATMUL, 2, min, md, mconst, NULL, (tdesc){3, {2, 3, 2}}, NULL, 0, NULL, 0, y);
  for (int b = 0; b < 2; b++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 2; j++) {
        float e = 0;
        for (int q = 0; q < 4; q++) e += a[(b * 3 + i) * 4 + q] * w[q * 2 + j];
        assert_float_equal(y[(b * 3 + i) * 2 + j], e, 1e-4);
      }
}

/* int8 chain: f32 in -> QUANTIZE -> {concat with requant, add, maxpool, lut} -> i8 output
 * (dequantized by the session). Inputs on the quantization grid, so everything is exact. */
static void test_int8_chain(void **state) {
  (void)state;
  ytb *b = ytb_new();
  int32_t d4[4] = {1, 3, 3, 2}, dcat[4] = {1, 3, 3, 4}, dl[1] = {256};
  int8_t lut[256];
  for (int i = 0; i < 256; i++) lut[i] = (int8_t)(i / 2 - 64);
  uint32_t x = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 4, d4);
  uint32_t q = ytb_act_i8(b, "q", 4, d4, 0.5f, 1);
  uint32_t mp = ytb_act_i8(b, "mp", 4, d4, 0.5f, 1);
  uint32_t cat = ytb_act_i8(b, "cat", 4, dcat, 0.5f, 1);
  uint32_t add = ytb_act_i8(b, "add", 4, dcat, 1.0f, 0);
  uint32_t tl = ytb_const(b, "lut", YRT_I8, 1, dl, lut);
  uint32_t y = ytb_tensor(b, "y", YRT_I8, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 4, dcat);
  ytb_set_q(b, y, 1.0f, 0);
  ytb_node(b, YRT_OP_QUANTIZE, "q", 1, &x, q, NULL, 0, NULL, 0);
  int32_t pp[10] = {3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  ytb_node(b, YRT_OP_MAXPOOL, "mp", 1, &q, mp, pp, 10, NULL, 0);
  uint32_t ci[2] = {q, mp};
  int32_t axis = 3, kadd = YRT_BIN_ADD;
  ytb_node(b, YRT_OP_CONCAT, "cat", 2, ci, cat, &axis, 1, NULL, 0);
  uint32_t ai[2] = {cat, cat};
  ytb_node(b, YRT_OP_BINARY, "add", 2, ai, add, &kadd, 1, NULL, 0);
  uint32_t li[2] = {add, tl};
  ytb_node(b, YRT_OP_LUT, "lut", 2, li, y, NULL, 0, NULL, 0);
  ytb_input(b, x);
  ytb_output(b, y);
  yrt_error err;
  ytb_loaded l;
  if (ytb_load(b, 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  yrt_session *s = l.s;
  float xf[18];
  int qx[18];
  for (int i = 0; i < 18; i++) {
    qx[i] = (i * 7) % 11 - 5;
    xf[i] = (float)(qx[i] - 1) * 0.5f;
  }
  assert_int_equal(yrt_session_set_input(s, 0, xf, 18, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
  for (int hw = 0; hw < 9; hw++)
    for (int c = 0; c < 4; c++) {
      int h = hw / 3, w = hw % 3, val;
      if (c < 2) {
        val = qx[hw * 2 + c];
      } else {
        val = -128;
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++)
            if (h + dy >= 0 && h + dy < 3 && w + dx >= 0 && w + dx < 3 && qx[((h + dy) * 3 + w + dx) * 2 + c - 2] > val)
              val = qx[((h + dy) * 3 + w + dx) * 2 + c - 2];
      }
      int sum = val - 1; /* 2 * (q - zp) * 0.5 / 1.0 */
      int expect = lut[(uint8_t)(sum + 128)];
      assert_int_equal((int)lrintf(v.data[hw * 4 + c]), expect);
    }
  ytb_unload(&l);
}

/* Int8 MATMUL (QLinearMatMul) through a session: f32 inputs quantized by QUANTIZE nodes, b's
 * batch broadcast, i8 output (dequantized by the session); expected values from a plain loop
 * (exact int sums, times (sa * sb) / sy, round half even, + zp, saturated). With qa_scale,
 * qb_dtype, k or a per-channel a the model is hostile and only loading is checked: returns the
 * status, err set. */
typedef struct qmm_case {
  int32_t batch, m, k, n;
  float sa, sb, sy;
  uint32_t b_dtype;   /* YRT_I8, or YRT_F32 (a mixed node) */
  int a_per_channel;  /* 1: a gets per-channel scales */
} qmm_case;

static yrt_status qmm_model(const qmm_case *c, ytb_loaded *l, yrt_error *err) {
  ytb *b = ytb_new();
  int32_t da[3] = {c->batch, c->m, c->k}, db[3] = {1, c->k, c->n}, dy[3] = {c->batch, c->m, c->n};
  uint32_t xa = 0, qa;
  if (c->a_per_channel) { /* a constant with one scale per k */
    static const int8_t zeros[64] = {0};
    float sc[64];
    for (int i = 0; i < 64; i++) sc[i] = c->sa;
    qa = ytb_const(b, "qa", YRT_I8, 3, da, zeros);
    ytb_set_channel_scales(b, qa, 2, sc, (uint32_t)c->k);
  } else {
    xa = ytb_tensor(b, "xa", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 3, da);
    qa = ytb_tensor(b, "qa", YRT_I8, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 3, da);
    ytb_set_q(b, qa, c->sa, 3);
    ytb_node(b, YRT_OP_QUANTIZE, "qa", 1, &xa, qa, NULL, 0, NULL, 0);
    ytb_input(b, xa);
  }
  uint32_t xb = ytb_tensor(b, "xb", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 3, db), qb = xb;
  if (c->b_dtype == YRT_I8) {
    qb = ytb_tensor(b, "qb", YRT_I8, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 3, db);
    ytb_set_q(b, qb, c->sb, -128);
    ytb_node(b, YRT_OP_QUANTIZE, "qb", 1, &xb, qb, NULL, 0, NULL, 0);
  }
  ytb_input(b, xb);
  uint32_t y = ytb_tensor(b, "y", YRT_I8, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 3, dy);
  ytb_set_q(b, y, c->sy, -21);
  const uint32_t mi[2] = {qa, qb};
  ytb_node(b, YRT_OP_MATMUL, "attn/MatMul", 2, mi, y, NULL, 0, NULL, 0);
  ytb_output(b, y);
  return ytb_load(b, 0, l, err);
}

static void test_int8_matmul(void **state) {
  (void)state;
  const qmm_case c = {2, 5, 7, 9, 0.05f, 0.0036f, 0.002f, YRT_I8, 0};
  yrt_error err;
  ytb_loaded l;
  if (qmm_model(&c, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  float xa[2 * 5 * 7], xb[7 * 9];
  int ia[2 * 5 * 7], ib[7 * 9];
  for (int i = 0; i < 70; i++) {
    ia[i] = (i * 37) % 256 - 128; /* every int8 value class, saturating ones too */
    xa[i] = (float)(ia[i] - 3) * c.sa;
  }
  for (int i = 0; i < 63; i++) {
    ib[i] = (i * 91 + 5) % 256 - 128;
    xb[i] = (float)(ib[i] + 128) * c.sb;
  }
  assert_int_equal(yrt_session_set_input(l.s, 0, xa, 70, &err), YRT_OK);
  assert_int_equal(yrt_session_set_input(l.s, 1, xb, 63, &err), YRT_OK);
  assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  assert_int_equal(v.count, 2 * 5 * 9);
  const float k = c.sa * c.sb / c.sy;
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 9; j++) {
        int32_t acc = 0;
        for (int q = 0; q < 7; q++) acc += (ia[(t * 5 + i) * 7 + q] - 3) * (ib[q * 9 + j] + 128);
        long r = lrintf((float)acc * k) - 21;
        r = r < -128 ? -128 : r > 127 ? 127 : r;
        assert_int_equal((int)lrintf(v.data[(t * 5 + i) * 9 + j] / c.sy), (int)r + 21);
      }
  ytb_unload(&l);
  /* hostile nodes: refused at load with a message naming the node, never run */
  const qmm_case bad[] = {
      {1, 2, 3, 4, 0.05f, 0.0036f, 0.002f, YRT_F32, 0},            /* i8 x f32 */
      {1, 2, 3, 4, 3e38f, 3e38f, 1e-30f, YRT_I8, 0},               /* factor overflows to inf */
      {1, 2, 3, 4, 1e-30f, 1e-30f, 3e38f, YRT_I8, 0},              /* factor underflows to 0 */
      {1, 2, 3, 4, 0.05f, 0.0036f, 0.002f, YRT_I8, 1},             /* per-channel activation */
      {1, 1, YRT_MATMUL_I8_MAX_K + 1, 2, 0.05f, 0.0036f, 0.002f, YRT_I8, 0}, /* K over the bound */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const yrt_status st = qmm_model(&bad[i], &l, &err);
    if (st == YRT_OK) fail_msg("hostile int8 matmul %zu accepted", i);
    assert_string_equal(l.step, "load");
    if (!strstr(err.msg, "'attn/MatMul' (matmul)")) fail_msg("case %zu: %s", i, err.msg);
    ytb_unload(&l);
  }
}

/* The token-major int8 MATMUL (YRT_MATMUL_TOKENS, the attention's P x V^T): a [1, H, M, K] plain,
 * b and y NHWC with the heads side by side in the channels; c the channel count of b and y
 * (H N when well formed). Set and read through the session's NCHW views. */
static yrt_status qmm_tokens_model(int32_t c, ytb_loaded *l, yrt_error *err) {
  ytb *b = ytb_new();
  int32_t da[4] = {1, 2, 6, 4}, db[4] = {1, 2, 2, c}, dy[4] = {1, 3, 2, c};
  const uint32_t xa = ytb_tensor(b, "xa", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 4, da);
  const uint32_t qa = ytb_tensor(b, "qa", YRT_I8, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 4, da);
  ytb_set_q(b, qa, 0.05f, 3);
  ytb_node(b, YRT_OP_QUANTIZE, "qa", 1, &xa, qa, NULL, 0, NULL, 0);
  const uint32_t xb = ytb_tensor(b, "xb", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, db);
  const uint32_t qb = ytb_tensor(b, "qb", YRT_I8, YRT_TENSOR_ACT, YRT_LAYOUT_NHWC, 4, db);
  ytb_set_q(b, qb, 0.0036f, -128);
  ytb_node(b, YRT_OP_QUANTIZE, "qb", 1, &xb, qb, NULL, 0, NULL, 0);
  ytb_input(b, xa);
  ytb_input(b, xb);
  const uint32_t y = ytb_tensor(b, "y", YRT_I8, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, dy);
  ytb_set_q(b, y, 0.002f, -21);
  const uint32_t mi[2] = {qa, qb};
  const int32_t p = YRT_MATMUL_TOKENS;
  ytb_node(b, YRT_OP_MATMUL, "attn/MatMul_1", 2, mi, y, &p, 1, NULL, 0);
  ytb_output(b, y);
  return ytb_load(b, 0, l, err);
}

static void test_int8_matmul_tokens(void **state) {
  (void)state;
  yrt_error err;
  ytb_loaded l;
  if (qmm_tokens_model(6, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  enum { H = 2, M = 6, K = 4, N = 3 };
  float xa[H * M * K], xb[H * N * K]; /* b as NCHW: [H N channels][K tokens] */
  int ia[H * M * K], ib[H * N * K];
  for (int i = 0; i < H * M * K; i++) {
    ia[i] = (i * 37) % 256 - 128;
    xa[i] = (float)(ia[i] - 3) * 0.05f;
  }
  for (int i = 0; i < H * N * K; i++) {
    ib[i] = (i * 91 + 5) % 256 - 128;
    xb[i] = (float)(ib[i] + 128) * 0.0036f;
  }
  assert_int_equal(yrt_session_set_input(l.s, 0, xa, H * M * K, &err), YRT_OK);
  assert_int_equal(yrt_session_set_input(l.s, 1, xb, H * N * K, &err), YRT_OK);
  assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  assert_int_equal(v.count, H * N * M);
  const float k = 0.05f * 0.0036f / 0.002f;
  for (int hd = 0; hd < H; hd++)
    for (int n = 0; n < N; n++)
      for (int i = 0; i < M; i++) { /* y as NCHW: channel hd N + n, token i */
        int32_t acc = 0;
        for (int q = 0; q < K; q++) acc += (ia[(hd * M + i) * K + q] - 3) * (ib[(hd * N + n) * K + q] + 128);
        long r = lrintf((float)acc * k) - 21;
        r = r < -128 ? -128 : r > 127 ? 127 : r;
        assert_int_equal((int)lrintf(v.data[(hd * N + n) * M + i] / 0.002f), (int)r + 21);
      }
  ytb_unload(&l);
  /* channels that are not H N: refused at load, naming the node */
  if (qmm_tokens_model(7, &l, &err) == YRT_OK) fail_msg("token-major matmul with 7 channels for 2 heads accepted");
  if (!strstr(err.msg, "'attn/MatMul_1' (matmul)")) fail_msg("%s", err.msg);
  ytb_unload(&l);
}

/* An int8 SOFTMAX taking a table (in[1], codes' quantization f[1] / p[1]) against the LUT node +
 * SOFTMAX it replaces; tlen / cs: the table's length and the codes' scale (hostile when not 256
 * and > 0). */
static yrt_status smlut_model(int fused, int32_t tlen, float cs, ytb_loaded *l, yrt_error *err) {
  ytb *b = ytb_new();
  int32_t d[4] = {1, 2, 5, 70}, dt[1] = {tlen};
  int8_t t[300];
  for (int i = 0; i < 300; i++) t[i] = (int8_t)((i * 53 + 7) % 256 - 128); /* scrambled: not monotone */
  const uint32_t x = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_PLAIN, 4, d);
  const uint32_t q = ytb_tensor(b, "q", YRT_I8, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 4, d);
  ytb_set_q(b, q, 0.1f, 3);
  ytb_node(b, YRT_OP_QUANTIZE, "q", 1, &x, q, NULL, 0, NULL, 0);
  const uint32_t tab = ytb_const(b, "t", YRT_I8, 1, dt, t);
  const uint32_t y = ytb_tensor(b, "y", YRT_I8, YRT_TENSOR_OUTPUT, YRT_LAYOUT_PLAIN, 4, d);
  ytb_set_q(b, y, 1.0f / 256.0f, -128);
  const float sy = 1.0f / 256.0f, f[2] = {floorf(1.0f / sy) * sy, cs};
  if (fused) {
    const int32_t p[2] = {3, -21};
    const uint32_t in[2] = {q, tab};
    ytb_node(b, YRT_OP_SOFTMAX, "attn/Softmax", 2, in, y, p, 2, f, 2);
  } else {
    const uint32_t lq = ytb_tensor(b, "lq", YRT_I8, YRT_TENSOR_ACT, YRT_LAYOUT_PLAIN, 4, d);
    ytb_set_q(b, lq, cs, -21);
    const uint32_t in[2] = {q, tab};
    ytb_node(b, YRT_OP_LUT, "attn/Mul", 2, in, lq, NULL, 0, NULL, 0);
    const int32_t p = 3;
    ytb_node(b, YRT_OP_SOFTMAX, "attn/Softmax", 1, &lq, y, &p, 1, f, 1);
  }
  ytb_input(b, x);
  ytb_output(b, y);
  return ytb_load(b, 0, l, err);
}

static void test_int8_softmax_lut(void **state) {
  (void)state;
  enum { N = 2 * 5 * 70 };
  float x[N], out[2][N];
  for (int i = 0; i < N; i++) x[i] = (float)((i * 37) % 256 - 131) * 0.1f; /* every code, saturating too */
  for (int fused = 0; fused < 2; fused++) {
    yrt_error err;
    ytb_loaded l;
    if (smlut_model(fused, 256, 0.127f, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
    assert_int_equal(yrt_session_set_input(l.s, 0, x, N, &err), YRT_OK);
    assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
    yrt_tensor_view v;
    assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
    memcpy(out[fused], v.data, sizeof out[fused]);
    ytb_unload(&l);
  }
  assert_memory_equal(out[0], out[1], sizeof out[0]);
  /* a table that is not 256 int8, or codes without a positive scale: refused at load */
  const struct { int32_t tlen; float cs; } bad[] = {{255, 0.127f}, {256, 0.0f}, {256, NAN}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    yrt_error err;
    ytb_loaded l;
    if (smlut_model(1, bad[i].tlen, bad[i].cs, &l, &err) == YRT_OK) fail_msg("hostile softmax table %zu accepted", i);
    if (!strstr(err.msg, "'attn/Softmax' (softmax)")) fail_msg("case %zu: %s", i, err.msg);
    ytb_unload(&l);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_data_movement),
      cmocka_unit_test(test_transpose_slabs),
      cmocka_unit_test(test_spatial),
      cmocka_unit_test(test_math),
      cmocka_unit_test(test_int8_chain),
      cmocka_unit_test(test_int8_matmul),
      cmocka_unit_test(test_int8_matmul_tokens),
      cmocka_unit_test(test_int8_softmax_lut),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
