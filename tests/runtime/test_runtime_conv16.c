/* test_runtime_conv16.c — the int16 activation path (W8A16, YRT_I16): an f32 input
 * QUANTIZEd to a symmetric int16 tensor, then a CONV2D reading it (i8 weights per channel, i32
 * bias, i8 output, optional LUT), through a session, against a reference written here (int16
 * quantize, then yk_conv16.h's arithmetic); and the hostile records the loader must refuse
 * (an int16 tensor with a zero point, per-channel scales, as a graph input; an int16 conv with
 * groups, an activation, a bias beyond its bound). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "yolort.h"
#include "yrt_test_builder.h"
#include "yk.h"

typedef struct case16 {
  int n, h, w, cin, cout, kh, kw, s, pad, lut;
} case16;

static uint32_t rng(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* hostile: 0 none; 1 x zero point 3; 2 groups 2 (cin, cout even); 3 relu; 4 bias over the bound */
static yrt_status build_and_run(const case16 *c, int hostile, yrt_error *err, int check) {
  const int oh = (c->h + 2 * c->pad - c->kh) / c->s + 1, ow = (c->w + 2 * c->pad - c->kw) / c->s + 1;
  const int groups = hostile == 2 ? 2 : 1;
  const size_t nx = (size_t)c->n * c->h * c->w * c->cin, K = (size_t)c->kh * c->kw * (c->cin / groups);
  uint32_t seed = 77u + (uint32_t)c->cin * 5u + (uint32_t)c->cout;
  const float sx = 1.0f / 32767.0f, sy = 0.02f;
  const int32_t zy = -7;
  float *xf = malloc(nx * 4), *sw = malloc((size_t)c->cout * 4);
  int16_t *xq = malloc(nx * 2);
  int8_t *w = malloc((size_t)c->cout * K), lut[256];
  int32_t *bias = malloc((size_t)c->cout * 4);
  assert_true(xf && sw && xq && w && bias);
  for (size_t i = 0; i < nx; i++) xf[i] = (float)(rng(&seed) % 2001) / 1000.0f - 1.0f; /* [-1, 1] */
  for (size_t i = 0; i < (size_t)c->cout * K; i++) w[i] = (int8_t)((int)(rng(&seed) % 255) - 127);
  for (int i = 0; i < c->cout; i++) {
    sw[i] = 0.0005f + (float)(rng(&seed) % 100) * 0.00005f;
    bias[i] = (int32_t)(rng(&seed) % 2000001) - 1000000;
  }
  if (hostile == 4) bias[0] = 1 << 30;
  for (int i = 0; i < 256; i++) lut[i] = (int8_t)((int)(rng(&seed) % 256) - 128);

  ytb *b = ytb_new();
  int32_t xd[4] = {c->n, c->h, c->w, c->cin}, wd[4] = {c->cout, c->kh, c->kw, c->cin / groups};
  int32_t yd[4] = {c->n, oh, ow, c->cout};
  uint32_t tx = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, xd);
  uint32_t tq = ytb_tensor(b, "xq", YRT_I16, YRT_TENSOR_ACT, YRT_LAYOUT_NHWC, 4, xd);
  ytb_set_q(b, tq, sx, hostile == 1 ? 3 : 0);
  uint32_t tw = ytb_const(b, "w", YRT_I8, 4, wd, w);
  ytb_set_q(b, tw, sw[0], 0);
  ytb_set_channel_scales(b, tw, 0, sw, (uint32_t)c->cout);
  int32_t p[YRT_NODE_PARAMS];
  ytb_conv_params(p, c->kh, c->kw, c->s, c->s, c->pad, c->pad, c->pad, c->pad, 1, 1, groups,
                  hostile == 3 ? YRT_UNARY_RELU : YRT_UNARY_NONE, -1);
  ytb_quantize_conv_i8(b, tx, tq, tw, bias, p, yd, sy, zy, lut, c->lut);
  ytb_loaded l;
  yrt_status st = ytb_load(b, 1, &l, err);
  if (st == YRT_OK) {
    memcpy(yrt_session_input_nhwc(l.s, 0), xf, nx * 4);
    st = yrt_session_run(l.s, err);
  }
  if (st == YRT_OK && check) {
    yrt_tensor_view v;
    assert_int_equal(yrt_session_output(l.s, 0, &v, err), YRT_OK);
    for (size_t i = 0; i < nx; i++) { /* the int16 quantize: symmetric, round half even */
      float q = xf[i] / sx;
      q = q > -32767.0f ? q : -32767.0f;
      q = q < 32767.0f ? q : 32767.0f;
      xq[i] = (int16_t)nearbyintf(q);
    }
    for (int bb = 0; bb < c->n; bb++)
      for (int oy = 0; oy < oh; oy++)
        for (int ox = 0; ox < ow; ox++)
          for (int co = 0; co < c->cout; co++) {
            float f = 0.0f; /* exact int32 blocks of 256 K values, summed in float */
            for (size_t k0 = 0; k0 < K; k0 += 256) {
              int64_t a = k0 == 0 ? bias[co] : 0;
              for (size_t k = k0; k < K && k < k0 + 256; k++) {
                const int ky = (int)(k / ((size_t)c->kw * c->cin)), kx = (int)(k / c->cin % c->kw), ci = (int)(k % c->cin);
                const int iy = oy * c->s - c->pad + ky, ix = ox * c->s - c->pad + kx;
                if (iy < 0 || iy >= c->h || ix < 0 || ix >= c->w) continue;
                a += (int64_t)xq[(((size_t)bb * c->h + iy) * c->w + ix) * c->cin + ci] * w[(size_t)co * K + k];
              }
              f = k0 == 0 ? (float)a : f + (float)a;
            }
            float vq = f * (sx * sw[co] / sy);
            vq = vq < (float)(-128 - zy) ? (float)(-128 - zy) : (vq > (float)(127 - zy) ? (float)(127 - zy) : vq);
            int8_t r = (int8_t)(nearbyintf(vq) + zy);
            if (c->lut) r = lut[(uint8_t)(r + 128)];
            const long got = lrintf(v.data[(((size_t)bb * c->cout + co) * oh + oy) * ow + ox] / sy) + zy;
            if (got != r)
              fail_msg("int16 conv cin %d cout %d k %d at (%d,%d,%d,%d): %ld vs ref %d", c->cin, c->cout, c->kh, bb,
                       oy, ox, co, got, r);
          }
  }
  ytb_unload(&l);
  free(xf), free(sw), free(xq), free(w), free(bias);
  return st;
}

static void test_conv16_session(void **state) {
  (void)state;
  static const case16 cases[] = {
      {1, 33, 31, 3, 16, 3, 3, 2, 1, 1}, /* the stem: 3x3 s2 over an RGB image, SiLU as a LUT */
      {2, 9, 10, 3, 13, 3, 3, 2, 1, 0},  /* batch 2, odd cout, no LUT */
      {1, 7, 8, 40, 24, 3, 3, 1, 1, 1},  /* K = 360: two exact blocks */
      {1, 6, 5, 17, 9, 1, 1, 1, 0, 0},   /* 1x1 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    yrt_error err = {{0}};
    if (build_and_run(&cases[i], 0, &err, 1) != YRT_OK) fail_msg("case %zu: %s", i, err.msg);
  }
}

static void test_conv16_hostile(void **state) {
  (void)state;
  const case16 c = {1, 9, 9, 4, 8, 3, 3, 2, 1, 1};
  static const char *const want[] = {NULL, "zero point", "groups", "activation", "bias[0]"};
  for (int h = 1; h <= 4; h++) {
    yrt_error err = {{0}};
    const yrt_status st = build_and_run(&c, h, &err, 0);
    if (st == YRT_OK) fail_msg("hostile %d loaded", h);
    if (!strstr(err.msg, want[h])) fail_msg("hostile %d: message '%s' lacks '%s'", h, err.msg, want[h]);
  }
}

/* int16 output: QUANTIZE -> CONV2D (i16 -> i16, act) -> DEQUANTIZE (i16 -> f32) as the output;
 * every value within one int16 step of the act computed in double on the exact sums (the kernel's
 * exp is a polynomial). hostile: 1 a LUT on it, 2 leaky relu (no slope in a CONV2D record). */
static yrt_status out16_run(int act, int hostile, yrt_error *err) {
  const int n = 1, h = 13, wd_ = 11, cin = 5, cout = 19, k = 3, st = 2, pad = 1;
  const int oh = (h + 2 * pad - k) / st + 1, ow = (wd_ + 2 * pad - k) / st + 1;
  const size_t nx = (size_t)n * h * wd_ * cin, K = (size_t)k * k * cin;
  uint32_t seed = 991u + (uint32_t)act;
  const float sx = 1.0f / 32767.0f, sy = act == YRT_UNARY_SIGMOID ? 1.0f / 32767.0f : 1.0f / 4096.0f;
  float xf[13 * 11 * 5], sw[19];
  int16_t xq[13 * 11 * 5];
  int8_t w[19 * 45], lut[256] = {0};
  int32_t bias[19];
  for (size_t i = 0; i < nx; i++) xf[i] = (float)(rng(&seed) % 2001) / 1000.0f - 1.0f;
  for (size_t i = 0; i < (size_t)cout * K; i++) w[i] = (int8_t)((int)(rng(&seed) % 255) - 127);
  for (int i = 0; i < cout; i++) {
    sw[i] = 0.01f + (float)(rng(&seed) % 100) * 0.001f;
    bias[i] = (int32_t)(rng(&seed) % 2000001) - 1000000;
  }
  ytb *b = ytb_new();
  int32_t xd[4] = {n, h, wd_, cin}, wdm[4] = {cout, k, k, cin}, bd[1] = {cout}, yd[4] = {n, oh, ow, cout}, ld[1] = {256};
  uint32_t tx = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, xd);
  uint32_t tq = ytb_tensor(b, "xq", YRT_I16, YRT_TENSOR_ACT, YRT_LAYOUT_NHWC, 4, xd);
  ytb_set_q(b, tq, sx, 0);
  uint32_t tw = ytb_const(b, "w", YRT_I8, 4, wdm, w);
  ytb_set_q(b, tw, sw[0], 0);
  ytb_set_channel_scales(b, tw, 0, sw, (uint32_t)cout);
  uint32_t tb = ytb_const(b, "b", YRT_I32, 1, bd, bias);
  uint32_t tl = ytb_const(b, "lut", YRT_I8, 1, ld, lut);
  ytb_set_q(b, tl, 0.1f, 0);
  uint32_t t16 = ytb_tensor(b, "y16", YRT_I16, YRT_TENSOR_ACT, YRT_LAYOUT_NHWC, 4, yd);
  ytb_set_q(b, t16, sy, 0);
  uint32_t ty = ytb_tensor(b, "y", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, yd);
  ytb_node(b, YRT_OP_QUANTIZE, "q", 1, &tx, tq, NULL, 0, NULL, 0);
  int32_t p[YRT_NODE_PARAMS];
  ytb_conv_params(p, k, k, st, st, pad, pad, pad, pad, 1, 1, 1, hostile == 2 ? YRT_UNARY_LEAKY_RELU : act,
                  hostile == 1 ? (int)tl : -1);
  uint32_t in[3] = {tq, tw, tb};
  ytb_node(b, YRT_OP_CONV2D, "conv", 3, in, t16, p, YRT_NODE_PARAMS, NULL, 0);
  ytb_node(b, YRT_OP_DEQUANTIZE, "dq", 1, &t16, ty, NULL, 0, NULL, 0);
  ytb_input(b, tx);
  ytb_output(b, ty);
  ytb_loaded l;
  yrt_status rs = ytb_load(b, 1, &l, err);
  if (rs == YRT_OK) {
    memcpy(yrt_session_input_nhwc(l.s, 0), xf, nx * 4);
    rs = yrt_session_run(l.s, err);
  }
  if (rs == YRT_OK && !hostile) {
    yrt_tensor_view v;
    assert_int_equal(yrt_session_output(l.s, 0, &v, err), YRT_OK);
    for (size_t i = 0; i < nx; i++) {
      float q = xf[i] / sx;
      q = q > -32767.0f ? q : -32767.0f;
      q = q < 32767.0f ? q : 32767.0f;
      xq[i] = (int16_t)nearbyintf(q);
    }
    int saturated = 0;
    for (int oy = 0; oy < oh; oy++)
      for (int ox = 0; ox < ow; ox++)
        for (int co = 0; co < cout; co++) {
          int64_t a = bias[co];
          for (size_t kk = 0; kk < K; kk++) {
            const int ky = (int)(kk / ((size_t)k * cin)), kx = (int)(kk / cin % k), ci = (int)(kk % cin);
            const int iy = oy * st - pad + ky, ix = ox * st - pad + kx;
            if (iy < 0 || iy >= h || ix < 0 || ix >= wd_) continue;
            a += (int64_t)xq[((size_t)iy * wd_ + ix) * cin + ci] * w[(size_t)co * K + kk];
          }
          double r = (double)(float)a * (double)(sx * sw[co]);
          if (act == YRT_UNARY_RELU) r = r > 0 ? r : 0;
          if (act == YRT_UNARY_SIGMOID) r = 1.0 / (1.0 + exp(-r));
          if (act == YRT_UNARY_SILU) r = r / (1.0 + exp(-r));
          r /= sy;
          r = r < -32767 ? -32767 : (r > 32767 ? 32767 : r);
          saturated += fabs(r) >= 32767;
          const double got = (double)v.data[((size_t)co * oh + oy) * ow + ox] / sy;
          if (fabs(got - r) > 0.5 + 1e-3 + fabs(r) * 1e-6)
            fail_msg("int16-output conv act %d at (%d,%d,%d): %.3f vs ref %.3f", act, oy, ox, co, got, r);
        }
    (void)saturated;
  }
  ytb_unload(&l);
  return rs;
}

static void test_conv16_out16(void **state) {
  (void)state;
  const int acts[] = {YRT_UNARY_NONE, YRT_UNARY_RELU, YRT_UNARY_SIGMOID, YRT_UNARY_SILU};
  for (int i = 0; i < 4; i++) {
    yrt_error err = {{0}};
    if (out16_run(acts[i], 0, &err) != YRT_OK) fail_msg("act %d: %s", acts[i], err.msg);
  }
  static const char *const want[] = {NULL, "LUT", "int16-output conv fuses"};
  for (int hh = 1; hh <= 2; hh++) {
    yrt_error err = {{0}};
    if (out16_run(YRT_UNARY_SILU, hh, &err) == YRT_OK) fail_msg("hostile out16 %d loaded", hh);
    if (!strstr(err.msg, want[hh])) fail_msg("hostile out16 %d: message '%s' lacks '%s'", hh, err.msg, want[hh]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv16_session),
      cmocka_unit_test(test_conv16_hostile),
      cmocka_unit_test(test_conv16_out16),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
