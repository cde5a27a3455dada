/* test_kernels_conv16.c — yk_conv16 (int16 activations x int8 weights, yk_conv16.h): the scalar
 * reference against a naive one written here (per-block sums in int64, each checked to fit int32:
 * the overflow bound the kernel relies on), and every packed variant the CPU has bit-exact
 * against the scalar reference over odd shapes (cin, cout, kernel, stride, pads, dilation, batch),
 * K across several blocks, saturating values (int16 extremes x int8 extremes, bias at its
 * bound, output clamps), with and without bias and LUT, and random row-range splits. */
#include <math.h>

#include "kt_common.h"
#include "yk_conv16.h"

/* The out16 stage in double with libm's exp: the scalar reference must be within one int16 step
 * of it (its exp is a polynomial); returns the exact value before rounding. */
static double ref_out16(double f, double scale, const yk_conv16 *c) {
  double v = f * scale;
  switch (c->act) {
    case YK_CONV16_ACT_RELU: v = v > 0 ? v : 0; break;
    case YK_CONV16_ACT_LEAKY_RELU: v = v >= 0 ? v : (double)c->act_alpha * v; break;
    case YK_CONV16_ACT_SIGMOID: v = 1.0 / (1.0 + exp(-v)); break;
    case YK_CONV16_ACT_SILU: v = v / (1.0 + exp(-v)); break;
    default: break;
  }
  v /= c->y_scale;
  return v < -32767 ? -32767 : (v > 32767 ? 32767 : v);
}

static void ref_conv16(const yk_conv16 *c, const int16_t *x, void *yv) {
  const int K = c->kh * c->kw * c->cin;
  int8_t *y = yv;
  int16_t *y16 = yv;
  for (int r = 0; r < c->n * c->oh; r++)
    for (int ox = 0; ox < c->ow; ox++)
      for (int co = 0; co < c->cout; co++) {
        float f = 0.0f;
        for (int k0 = 0; k0 < K; k0 += YK_CONV16_KBLK) {
          int64_t a = k0 == 0 && c->bias ? c->bias[co] : 0;
          for (int k = k0; k < K && k < k0 + YK_CONV16_KBLK; k++) {
            const int ky = k / (c->kw * c->cin), kx = k / c->cin % c->kw, ci = k % c->cin;
            const int iy = (r % c->oh) * c->sh - c->pad_t + ky * c->dh, ix = ox * c->sw - c->pad_l + kx * c->dw;
            if (iy < 0 || iy >= c->h || ix < 0 || ix >= c->w) continue;
            a += (int64_t)x[(((size_t)(r / c->oh) * c->h + iy) * c->w + ix) * c->cin + ci] *
                 c->weights[(size_t)co * K + k];
          }
          assert_true(a >= INT32_MIN && a <= INT32_MAX);
          f = k0 == 0 ? (float)a : f + (float)a;
        }
        const size_t at = ((size_t)r * c->ow + ox) * c->cout + co;
        if (c->out16) {
          /* one step from the libm value at most (half a step of rounding + the polynomial's error) */
          const double want = ref_out16(f, c->scale[co], c);
          if (fabs((double)y16[at] - want) > 0.5 + 1e-3 + fabs(want) * 1e-6)
            fail_msg("out16 act %d: %d, libm %.4f (f %g scale %g)", c->act, y16[at], want, f, c->scale[co]);
          continue;
        }
        const int8_t q = kt_ref_qv(f * c->scale[co], c->y_zp);
        y[at] = c->lut ? c->lut[q + 128] : q;
      }
}

typedef struct shape {
  int n, h, w, cin, cout, kh, kw, sh, sw, pad_t, pad_l, dh, dw;
} shape;

/* data: 0 random, 1 all extremes of one sign (-32768 x -128: the largest products), 2 mixed extremes */
/* act16 < 0: int8 output; else int16 output with that yk_conv16_act */
static void run_case16(const shape *s, int data, int with_bias, int with_lut, int32_t y_zp, int act16, kt_rng *r) {
  yk_conv16 c = {0};
  c.n = s->n, c.h = s->h, c.w = s->w, c.cin = s->cin, c.cout = s->cout, c.kh = s->kh, c.kw = s->kw;
  c.sh = s->sh, c.sw = s->sw, c.pad_t = s->pad_t, c.pad_l = s->pad_l, c.dh = s->dh, c.dw = s->dw;
  c.oh = (s->h + 2 * s->pad_t - s->dh * (s->kh - 1) - 1) / s->sh + 1;
  c.ow = (s->w + 2 * s->pad_l - s->dw * (s->kw - 1) - 1) / s->sw + 1;
  c.y_zp = y_zp;
  const size_t nx = (size_t)s->n * s->h * s->w * s->cin, K = (size_t)s->kh * s->kw * s->cin;
  const size_t esz = act16 >= 0 ? 2 : 1, ny = (size_t)s->n * c.oh * c.ow * s->cout * esz;
  int16_t *x = malloc(nx * sizeof *x);
  int8_t *w = malloc((size_t)s->cout * K), *ys = malloc(ny), *yv = malloc(ny), *yr = malloc(ny);
  int32_t *bias = malloc((size_t)s->cout * sizeof *bias);
  float *scale = malloc((size_t)s->cout * sizeof *scale);
  int8_t lut[256];
  assert_non_null(x), assert_non_null(w), assert_non_null(ys), assert_non_null(yv), assert_non_null(yr);
  assert_non_null(bias), assert_non_null(scale);
  for (size_t i = 0; i < nx; i++)
    x[i] = (int16_t)(data == 0 ? kt_int(r, -32768, 32767) : data == 1 ? -32768 : (kt_int(r, 0, 1) ? -32768 : 32767));
  for (size_t i = 0; i < (size_t)s->cout * K; i++)
    w[i] = (int8_t)(data == 0 ? kt_int(r, -128, 127) : data == 1 ? -128 : (kt_int(r, 0, 1) ? -128 : 127));
  for (int i = 0; i < s->cout; i++) {
    bias[i] = data ? (kt_int(r, 0, 1) ? YK_CONV16_BIAS_MAX : -YK_CONV16_BIAS_MAX) : kt_int(r, -(1 << 24), 1 << 24);
    /* small scales keep most outputs inside int8, large ones saturate */
    scale[i] = data ? kt_float(r, 1e-10f, 1e-7f) : kt_float(r, 1e-9f, 1e-6f) * (float)(kt_int(r, 0, 3) == 0 ? 1000 : 1);
  }
  for (int i = 0; i < 256; i++) lut[i] = (int8_t)kt_int(r, -128, 127);
  c.weights = w, c.bias = with_bias ? bias : NULL, c.scale = scale, c.lut = with_lut ? lut : NULL;
  if (act16 >= 0) {
    /* scale[c] is now s_x * s_w[c]; y_scale puts the outputs across the int16 range, or past it */
    c.out16 = 1, c.act = act16, c.act_alpha = 0.1f, c.lut = NULL, c.y_zp = 0;
    for (int i = 0; i < s->cout; i++) scale[i] = data ? kt_float(r, 1e-9f, 1e-8f) : kt_float(r, 1e-9f, 1e-7f);
    c.y_scale = kt_float(r, 1e-4f, 1e-3f) * (kt_int(r, 0, 3) == 0 ? 0.01f : 1.0f);
  }
  assert_int_equal(yk_conv16_init(&c, NULL), 0);
  assert_int_equal(c.variant, YK_CONV16_SCALAR);
  yk_conv16_rows(&c, x, ys, 0, s->n * c.oh);
  ref_conv16(&c, x, act16 >= 0 ? ys : yr); /* out16: checks ys against libm */
  if (act16 < 0) assert_memory_equal(ys, yr, ny);

  yk_isa host;
  yk_isa_detect(&host);
  yk_isa_select(&host);
#define YK_CONV16_VARIANT(E, v, sfx, on, lanes, kr, cond)                                            \
  on(if (v != YK_CONV16_SCALAR) {                                                                    \
    const yk_isa *isa = &host;                                                                       \
    (void)isa;                                                                                       \
    if (cond) {                                                                                      \
      yk_conv16 d = c;                                                                               \
      assert_int_equal(yk_conv16_set_variant(&d, v), 0);                                             \
      void *base;                                                                                    \
      void *mem = kt_alloc(d.packed_bytes, 0, &base);                                                \
      assert_non_null(mem);                                                                          \
      yk_conv16_pack(&d, mem);                                                                       \
      memset(yv, 0x5A, ny);                                                                          \
      const int rows = s->n * c.oh;                                                                  \
      for (int r0 = 0; r0 < rows;) { /* random row splits equal one call */                         \
        const int step = kt_int(r, 1, 3), r1 = r0 + step < rows ? r0 + step : rows;                  \
        yk_conv16_rows(&d, x, yv, r0, r1);                                                           \
        r0 = r1;                                                                                     \
      }                                                                                              \
      if (memcmp(yv, ys, ny) != 0) fail_msg("conv16 %s differs from scalar (cin %d cout %d k %dx%d data %d act16 %d)", #sfx, s->cin, s->cout, s->kh, s->kw, data, act16); \
      free(base);                                                                                    \
    }                                                                                                \
  })
#include "variants/conv16.inc"
#undef YK_CONV16_VARIANT
  free(x), free(w), free(ys), free(yv), free(yr), free(bias), free(scale);
}

static void run_case(const shape *s, int data, int with_bias, int with_lut, int32_t y_zp, kt_rng *r) {
  run_case16(s, data, with_bias, with_lut, y_zp, -1, r);
}

static void test_conv16_shapes(void **state) {
  (void)state;
  kt_rng r = {0x1616};
  static const shape shapes[] = {
      {1, 17, 19, 3, 16, 3, 3, 2, 2, 1, 1, 1, 1},  /* the stem: 3x3 s2 over the image */
      {2, 9, 11, 3, 13, 3, 3, 2, 2, 1, 1, 1, 1},   /* batch 2, odd cout */
      {1, 7, 13, 5, 17, 1, 1, 1, 1, 0, 0, 1, 1},   /* 1x1 */
      {1, 8, 9, 7, 33, 3, 3, 1, 1, 1, 1, 2, 2},    /* dilation 2 */
      {1, 6, 7, 29, 9, 3, 3, 1, 1, 2, 0, 1, 1},    /* K = 261: two blocks, odd tail */
      {1, 5, 6, 64, 24, 3, 3, 2, 2, 1, 1, 1, 1},   /* K = 576: three blocks */
      {1, 4, 5, 256, 7, 1, 1, 1, 1, 0, 0, 1, 1},   /* K exactly one block */
      {1, 3, 3, 1, 1, 5, 5, 1, 1, 2, 2, 1, 1},     /* taps mostly padding, cin 1, cout 1 */
      {1, 2, 10, 2, 40, 1, 3, 1, 3, 0, 1, 1, 1},   /* 1x3, stride 3 */
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (int data = 0; data < 3; data++) {
      run_case(&shapes[i], data, 1, 0, 0, &r);
      run_case(&shapes[i], data, 0, 1, kt_int(&r, -128, 127), &r);
      run_case(&shapes[i], data, 1, 1, data ? 127 : -128, &r);
    }
}

/* The int16 output stage: every activation, every variant bit-exact against the scalar
 * reference, which is within one int16 step of libm's value; outputs saturating at +-32767. */
static void test_conv16_out16(void **state) {
  (void)state;
  kt_rng r = {0x1617};
  static const shape shapes[] = {
      {1, 17, 19, 3, 16, 3, 3, 2, 2, 1, 1, 1, 1},  /* the stem */
      {2, 9, 11, 16, 21, 3, 3, 2, 2, 1, 1, 1, 1},  /* model.1-like, batch 2, odd cout */
      {1, 7, 13, 33, 35, 1, 1, 1, 1, 0, 0, 1, 1},  /* 1x1, odd cin / cout */
      {1, 6, 7, 29, 9, 3, 3, 1, 1, 2, 0, 1, 1},    /* K = 261: two blocks */
      {1, 3, 3, 1, 1, 5, 5, 1, 1, 2, 2, 1, 1},     /* cout 1 */
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (int act = YK_CONV16_ACT_NONE; act <= YK_CONV16_ACT_SILU; act++)
      for (int data = 0; data < 3; data++) run_case16(&shapes[i], data, data != 1 || act & 1, 0, 0, act, &r);
}

static void test_conv16_out16_edges(void **state) {
  (void)state;
  /* the stage alone on values around the exp clamp, zero, NaN-free extremes, both signs */
  const float fs[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-30f, -1e-30f, 86.9f, -86.9f, 87.1f, -87.1f, 200.0f, -200.0f,
                      3e38f, -3e38f, 0.5f, -0.5f, 16383.5f, 32767.0f, -32767.5f, 1e5f, -1e5f};
  const int n = (int)(sizeof fs / sizeof fs[0]);
  float scale[sizeof fs / sizeof fs[0]];
  int16_t y[sizeof fs / sizeof fs[0]], y1[sizeof fs / sizeof fs[0]];
  for (int i = 0; i < n; i++) scale[i] = 1.0f;
  for (int act = YK_CONV16_ACT_NONE; act <= YK_CONV16_ACT_SILU; act++)
    for (int k = 0; k < 3; k++) {
      const yk_conv16 c = {.out16 = 1, .act = act, .act_alpha = 0.1f, .y_scale = k == 0 ? 1.0f : k == 1 ? 1.0f / 256 : 64.0f};
      yk_conv16_out16(fs, scale, &c, y, n);
      for (int i = 0; i < n; i++) {
        yk_conv16_out16(fs + i, scale + i, &c, y1 + i, 1); /* the vector body and its scalar tail agree */
        assert_int_equal(y1[i], y[i]);
        const double want = ref_out16(fs[i], 1.0, &c);
        if (fabs((double)y[i] - want) > 0.5 + 1e-3 + fabs(want) * 1e-6)
          fail_msg("act %d y_scale %g: f %g -> %d, libm %.4f", act, c.y_scale, fs[i], y[i], want);
      }
    }
}

static void test_conv16_refuses(void **state) {
  (void)state;
  const int8_t w[9] = {0};
  const float scale[1] = {1.0f};
  int32_t bias[1] = {YK_CONV16_BIAS_MAX + 1};
  yk_conv16 ok = {.n = 1, .h = 3, .w = 3, .cin = 1, .oh = 1, .ow = 1, .cout = 1, .kh = 3, .kw = 3, .sh = 1,
                  .sw = 1, .dh = 1, .dw = 1, .weights = w, .scale = scale};
  yk_conv16 c = ok;
  assert_int_equal(yk_conv16_init(&c, NULL), 0);
  c = ok, c.bias = bias;
  assert_int_equal(yk_conv16_init(&c, NULL), -1); /* bias + a full block would overflow int32 */
  c = ok, c.y_zp = 128;
  assert_int_equal(yk_conv16_init(&c, NULL), -1);
  c = ok, c.cout = YK_CONV16_MAX_COUT + 1;
  assert_int_equal(yk_conv16_init(&c, NULL), -1);
  c = ok, c.scale = NULL;
  assert_int_equal(yk_conv16_init(&c, NULL), -1);
  c = ok, c.sh = 0;
  assert_int_equal(yk_conv16_init(&c, NULL), -1);
  c = ok;
  assert_int_equal(yk_conv16_set_variant(&c, 99), -1);
  /* int16 output: no zero point, no LUT, a known act, a usable scale */
  yk_conv16 o = ok;
  o.out16 = 1, o.act = YK_CONV16_ACT_SILU, o.y_scale = 0.01f;
  c = o;
  assert_int_equal(yk_conv16_init(&c, NULL), 0);
  c = o, c.y_zp = 1;
  assert_int_equal(yk_conv16_init(&c, NULL), -1);
  c = o, c.lut = (const int8_t *)w;
  assert_int_equal(yk_conv16_init(&c, NULL), -1);
  c = o, c.act = 99;
  assert_int_equal(yk_conv16_init(&c, NULL), -1);
  c = o, c.y_scale = 0.0f;
  assert_int_equal(yk_conv16_init(&c, NULL), -1);
  c = o, c.y_scale = INFINITY;
  assert_int_equal(yk_conv16_init(&c, NULL), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv16_shapes),
      cmocka_unit_test(test_conv16_out16),
      cmocka_unit_test(test_conv16_out16_edges),
      cmocka_unit_test(test_conv16_refuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
