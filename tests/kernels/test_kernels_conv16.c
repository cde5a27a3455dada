/* test_kernels_conv16.c — yk_conv16 (int16 activations x int8 weights, yk_conv16.h): the scalar
 * reference against a naive one written here (per-block sums in int64, each checked to fit int32:
 * the overflow bound the kernel relies on), and every packed variant the CPU has bit-exact
 * against the scalar reference over odd shapes (cin, cout, kernel, stride, pads, dilation, batch),
 * K across several blocks, saturating values (int16 extremes x int8 extremes, bias at its
 * bound, output clamps), with and without bias and LUT, and random row-range splits. */
#include "kt_common.h"
#include "yk_conv16.h"

static void ref_conv16(const yk_conv16 *c, const int16_t *x, int8_t *y) {
  const int K = c->kh * c->kw * c->cin;
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
        const int8_t q = kt_ref_qv(f * c->scale[co], c->y_zp);
        y[((size_t)r * c->ow + ox) * c->cout + co] = c->lut ? c->lut[q + 128] : q;
      }
}

typedef struct shape {
  int n, h, w, cin, cout, kh, kw, sh, sw, pad_t, pad_l, dh, dw;
} shape;

/* data: 0 random, 1 all extremes of one sign (-32768 x -128: the largest products), 2 mixed extremes */
static void run_case(const shape *s, int data, int with_bias, int with_lut, int32_t y_zp, kt_rng *r) {
  yk_conv16 c = {0};
  c.n = s->n, c.h = s->h, c.w = s->w, c.cin = s->cin, c.cout = s->cout, c.kh = s->kh, c.kw = s->kw;
  c.sh = s->sh, c.sw = s->sw, c.pad_t = s->pad_t, c.pad_l = s->pad_l, c.dh = s->dh, c.dw = s->dw;
  c.oh = (s->h + 2 * s->pad_t - s->dh * (s->kh - 1) - 1) / s->sh + 1;
  c.ow = (s->w + 2 * s->pad_l - s->dw * (s->kw - 1) - 1) / s->sw + 1;
  c.y_zp = y_zp;
  const size_t nx = (size_t)s->n * s->h * s->w * s->cin, K = (size_t)s->kh * s->kw * s->cin;
  const size_t ny = (size_t)s->n * c.oh * c.ow * s->cout;
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
  assert_int_equal(yk_conv16_init(&c, NULL), 0);
  assert_int_equal(c.variant, YK_CONV16_SCALAR);
  yk_conv16_rows(&c, x, ys, 0, s->n * c.oh);
  ref_conv16(&c, x, yr);
  assert_memory_equal(ys, yr, ny);

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
      if (memcmp(yv, ys, ny) != 0) fail_msg("conv16 %s differs from scalar (cin %d cout %d k %dx%d data %d)", #sfx, s->cin, s->cout, s->kh, s->kw, data); \
      free(base);                                                                                    \
    }                                                                                                \
  })
#include "variants/conv16.inc"
#undef YK_CONV16_VARIANT
  free(x), free(w), free(ys), free(yv), free(yr), free(bias), free(scale);
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
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv16_shapes),
      cmocka_unit_test(test_conv16_refuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
