/* test_kernels_neon.c — every NEON variant against its scalar reference, bit for bit: odd
 * lengths (vector bodies and scalar tails), every int8 input, exact rounding ties, saturation,
 * inf/NaN/denormal floats, and pooling windows cut by padding or lying wholly in it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "yk.h"
#include "yk_variants.h"
#include "yk_dwconv.h"

typedef struct rng { uint64_t s; } rng;
static uint32_t rnext(rng *r) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(r->s >> 33);
}
static int8_t ri8(rng *r) { return (int8_t)(rnext(r) & 0xFF); }
static int rint_in(rng *r, int lo, int hi) { return lo + (int)(rnext(r) % (uint32_t)(hi - lo + 1)); }

/* Lengths around the 8/16-lane bodies and their tails. */
static const size_t k_lengths[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 1001};
#define N_LENGTHS (sizeof(k_lengths) / sizeof(k_lengths[0]))
#define MAXN 1001

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  assert_non_null(p);
  return p;
}

/* An int8 buffer that covers all 256 values first, then random ones. */
static void fill_i8(rng *r, int8_t *x, size_t n) {
  for (size_t i = 0; i < n; i++) x[i] = i < 256 ? (int8_t)(i - 128) : ri8(r);
}

static void have_neon(void) {
  yk_isa isa;
  yk_isa_detect(&isa);
  if (!isa.neon) {
    print_message("skipping: this CPU has no NEON\n");
    skip();
  }
}

static void lut_matches_scalar(void **state) {
  (void)state;
  have_neon();
  rng r = {1};
  int8_t lut[256];
  int8_t *x = xmalloc(MAXN), *y0 = xmalloc(MAXN), *y1 = xmalloc(MAXN);
  for (int t = 0; t < 4; t++) {
    for (int i = 0; i < 256; i++) lut[i] = t == 0 ? (int8_t)(255 - i) : ri8(&r);
    for (size_t li = 0; li < N_LENGTHS; li++) {
      const size_t n = k_lengths[li];
      fill_i8(&r, x, n);
      memset(y0, 0x55, MAXN);
      memset(y1, 0x55, MAXN);
      yk_lut_i8__scalar(x, y0, n, lut);
      yk_lut_i8__neon(x, y1, n, lut);
      assert_memory_equal(y0, y1, MAXN); /* also: nothing written past n */
      /* In place. */
      memcpy(y1, x, n);
      yk_lut_i8__neon(y1, y1, n, lut);
      assert_memory_equal(y0, y1, n);
    }
  }
  free(x);
  free(y0);
  free(y1);
}

static void maxpool_case(rng *r, int n, int h, int w, int c, const yk_pool_params *p) {
  const int dh = p->dh > 0 ? p->dh : 1, dw = p->dw > 0 ? p->dw : 1;
  const int oh = (h + p->pad_t + p->pad_b - dh * (p->kh - 1) - 1) / p->sh + 1;
  const int ow = (w + p->pad_l + p->pad_r - dw * (p->kw - 1) - 1) / p->sw + 1;
  if (oh < 1 || ow < 1) return;
  const size_t nx = (size_t)n * h * w * c, ny = (size_t)n * oh * ow * c;
  int8_t *x = xmalloc(nx), *y0 = xmalloc(ny), *y1 = xmalloc(ny);
  for (size_t i = 0; i < nx; i++) x[i] = ri8(r);
  memset(y0, 0x11, ny);
  memset(y1, 0x22, ny);
  yk_maxpool_nhwc_i8__scalar(x, n, h, w, c, y0, oh, ow, p);
  yk_maxpool_nhwc_i8__neon(x, n, h, w, c, y1, oh, ow, p);
  if (memcmp(y0, y1, ny) != 0)
    fail_msg("maxpool n%d h%d w%d c%d k%dx%d s%dx%d pad %d,%d,%d,%d d%dx%d differs", n, h, w, c,
             p->kh, p->kw, p->sh, p->sw, p->pad_t, p->pad_l, p->pad_b, p->pad_r, dh, dw);
  free(x);
  free(y0);
  free(y1);
}

static void maxpool_matches_scalar(void **state) {
  (void)state;
  have_neon();
  rng r = {2};
  static const int chans[] = {1, 7, 8, 9, 15, 16, 17, 24, 33, 64};
  /* YOLO11's SPPF: 5x5, stride 1, pad 2. */
  yk_pool_params sppf = {5, 5, 1, 1, 2, 2, 2, 2, 1, 1};
  maxpool_case(&r, 1, 10, 10, 64, &sppf);
  maxpool_case(&r, 2, 7, 9, 33, &sppf);
  for (int t = 0; t < 300; t++) {
    yk_pool_params p;
    p.kh = rint_in(&r, 1, 5);
    p.kw = rint_in(&r, 1, 5);
    p.sh = rint_in(&r, 1, 3);
    p.sw = rint_in(&r, 1, 3);
    /* Pads up to k + 1: some windows hold no valid tap at all. */
    p.pad_t = rint_in(&r, 0, p.kh + 1);
    p.pad_b = rint_in(&r, 0, p.kh + 1);
    p.pad_l = rint_in(&r, 0, p.kw + 1);
    p.pad_r = rint_in(&r, 0, p.kw + 1);
    p.dh = rint_in(&r, 0, 2); /* 0 means 1 */
    p.dw = rint_in(&r, 0, 2);
    maxpool_case(&r, rint_in(&r, 1, 2), rint_in(&r, 1, 9), rint_in(&r, 1, 9),
                 chans[rnext(&r) % (sizeof(chans) / sizeof(chans[0]))], &p);
  }
}

#if YK_ARCH_AARCH64
static const float k_scales[] = {0.5f, 0.25f, 1.0f / 255.0f, 0.0123f, 3.7f, 1e-3f, 1e-30f, 2e30f};
static const int32_t k_zps[] = {0, -128, 127, 5, -3};

/* Floats that hit the edges: ties at every power-of-two scale, huge, inf, NaN, denormal, -0. */
static void fill_f32(rng *r, float *x, size_t n, float scale) {
  static const float special[] = {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 126.5f,
                                  127.5f, -128.5f, -127.5f, 1e10f, -1e10f, 4194304.0f,
                                  -4194304.0f, 4194305.0f, 1e-40f, -1e-40f, 3.4e38f};
  const size_t ns = sizeof(special) / sizeof(special[0]);
  for (size_t i = 0; i < n; i++) {
    const uint32_t k = rnext(r) % 8;
    if (i < ns) x[i] = special[i] * scale;
    else if (k == 0) x[i] = INFINITY;
    else if (k == 1) x[i] = (rnext(r) & 1) ? -INFINITY : NAN;
    else if (k == 2) x[i] = ((float)rint_in(r, -300, 300) + 0.5f) * scale; /* ties */
    else x[i] = ((float)(int32_t)rnext(r) / 2147483648.0f) * 200.0f * scale;
  }
}

static void quantize_matches_scalar(void **state) {
  (void)state;
  rng r = {3};
  float *x = xmalloc(MAXN * sizeof(float));
  int8_t *y0 = xmalloc(MAXN), *y1 = xmalloc(MAXN);
  for (size_t si = 0; si < sizeof(k_scales) / sizeof(k_scales[0]); si++)
    for (size_t zi = 0; zi < sizeof(k_zps) / sizeof(k_zps[0]); zi++)
      for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t n = k_lengths[li];
        fill_f32(&r, x, n, k_scales[si]);
        memset(y0, 0x33, MAXN);
        memset(y1, 0x33, MAXN);
        yk_quantize_f32_i8__scalar(x, y0, n, k_scales[si], k_zps[zi]);
        yk_quantize_f32_i8__neon(x, y1, n, k_scales[si], k_zps[zi]);
        if (memcmp(y0, y1, MAXN) != 0)
          fail_msg("quantize scale %g zp %d n %zu differs", (double)k_scales[si], k_zps[zi], n);
      }
  free(x);
  free(y0);
  free(y1);
}

static void dequantize_matches_scalar(void **state) {
  (void)state;
  rng r = {4};
  static const float scales[] = {0.5f, 1.0f / 255.0f, 0.0123f, 1e-40f, 3e38f, -0.75f};
  int8_t *x = xmalloc(MAXN);
  float *y0 = xmalloc(MAXN * sizeof(float)), *y1 = xmalloc(MAXN * sizeof(float));
  for (size_t si = 0; si < sizeof(scales) / sizeof(scales[0]); si++)
    for (size_t zi = 0; zi < sizeof(k_zps) / sizeof(k_zps[0]); zi++)
      for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t n = k_lengths[li];
        fill_i8(&r, x, n);
        memset(y0, 0x44, MAXN * sizeof(float));
        memset(y1, 0x44, MAXN * sizeof(float));
        yk_dequantize_i8_f32__scalar(x, y0, n, scales[si], k_zps[zi]);
        yk_dequantize_i8_f32__neon(x, y1, n, scales[si], k_zps[zi]);
        if (memcmp(y0, y1, MAXN * sizeof(float)) != 0)
          fail_msg("dequantize scale %g zp %d n %zu differs", (double)scales[si], k_zps[zi], n);
      }
  free(x);
  free(y0);
  free(y1);
}

static void requant_matches_scalar(void **state) {
  (void)state;
  rng r = {5};
  /* Ratios: exact ties (0.5, 1.5), identity, shrink, saturating growth, tiny. */
  static const float sx[] = {0.5f, 0.75f, 0.02f, 0.013f, 1.0f, 1e-20f};
  static const float sy[] = {1.0f, 0.5f, 0.02f, 0.0171f, 0.001f, 1.0f};
  int8_t *x = xmalloc(MAXN), *y0 = xmalloc(MAXN), *y1 = xmalloc(MAXN);
  for (size_t si = 0; si < sizeof(sx) / sizeof(sx[0]); si++)
    for (size_t zi = 0; zi < sizeof(k_zps) / sizeof(k_zps[0]); zi++)
      for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t n = k_lengths[li];
        const yk_qparams qx = {sx[si], k_zps[zi]};
        const yk_qparams qy = {sy[si], k_zps[(zi + 2) % (sizeof(k_zps) / sizeof(k_zps[0]))]};
        fill_i8(&r, x, n);
        memset(y0, 0x66, MAXN);
        memset(y1, 0x66, MAXN);
        yk_requant_i8__scalar(x, qx, y0, qy, n);
        yk_requant_i8__neon(x, qx, y1, qy, n);
        if (memcmp(y0, y1, MAXN) != 0)
          fail_msg("requant %g/%g zp %d,%d n %zu differs", (double)qx.scale, (double)qy.scale,
                   qx.zero_point, qy.zero_point, n);
      }
  free(x);
  free(y0);
  free(y1);
}

/* Concat: copied inputs (params equal to the output's) and requantized ones, runs around the
 * 16-lane body, every input byte at least once. */
static void concat_matches_scalar(void **state) {
  (void)state;
  rng r = {9};
  const size_t inner[5] = {3, 33, 16, 1, 64};
  const yk_qparams qx[5] = {{0.5f, 3}, {0.25f, -128}, {0.1f, 0}, {0.013f, 7}, {0.75f, 127}};
  const yk_qparams qy = {0.1f, 0};
  const size_t outer = 37, tot = 3 + 33 + 16 + 1 + 64;
  int8_t *in[5], *y0 = xmalloc(outer * tot), *y1 = xmalloc(outer * tot);
  for (int i = 0; i < 5; i++) {
    in[i] = xmalloc(outer * inner[i]);
    fill_i8(&r, in[i], outer * inner[i]);
  }
  const int8_t *xs[5] = {in[0], in[1], in[2], in[3], in[4]};
  memset(y0, 0x11, outer * tot);
  memset(y1, 0x22, outer * tot);
  yk_concat_i8__scalar(xs, qx, inner, 5, outer, y0, qy);
  yk_concat_i8__neon(xs, qx, inner, 5, outer, y1, qy);
  assert_memory_equal(y0, y1, outer * tot);
  for (int i = 0; i < 5; i++) free(in[i]);
  free(y0);
  free(y1);
}

static void dwconv_case(rng *r, int n, int h, int w, int c, int stride, int pad, int32_t x_zp,
                        int32_t y_zp, int scale_kind, int use_bias, int use_lut) {
  const int oh = (h + 2 * pad - 3) / stride + 1, ow = (w + 2 * pad - 3) / stride + 1;
  if (oh < 1 || ow < 1) return;
  const size_t nx = (size_t)n * h * w * c, ny = (size_t)n * oh * ow * c;
  int8_t *x = xmalloc(nx), *wt = xmalloc((size_t)9 * c), *y0 = xmalloc(ny), *y1 = xmalloc(ny);
  int32_t *bias = xmalloc(sizeof(int32_t) * c);
  float *rs = xmalloc(sizeof(float) * c);
  int8_t lut[256];
  for (size_t i = 0; i < nx; i++) x[i] = ri8(r);
  for (int i = 0; i < 9 * c; i++) wt[i] = (i % 11 == 0) ? INT8_MIN : ri8(r);
  for (int i = 0; i < c; i++) {
    bias[i] = (int32_t)(rnext(r) % 20001) - 10000;
    /* 0: exact ties (powers of two); 1: typical; 2: saturating */
    rs[i] = scale_kind == 0 ? 1.0f / (float)(1 << (1 + rnext(r) % 4))
          : scale_kind == 1 ? 1e-4f + (float)(rnext(r) % 1000) * 1e-5f
                            : 0.5f + (float)(rnext(r) % 100);
  }
  for (int i = 0; i < 256; i++) lut[i] = ri8(r);
  const yk_dw_params p = {.n = n, .h = h, .w = w, .c = c, .oh = oh, .ow = ow, .stride = stride,
                          .pad_t = pad, .pad_l = pad, .x_zp = x_zp, .y_zp = y_zp,
                          .requant_scale = rs, .lut = use_lut ? lut : NULL};
  memset(y0, 0x11, ny);
  memset(y1, 0x22, ny);
  const yk_dwconv d = {.p = p, .weights = wt, .bias = use_bias ? bias : NULL};
  yk_dwconv_rows__scalar(&d, x, y0, 0, n * oh);
  yk_dwconv_rows__neon(&d, x, y1, 0, n * oh);
  if (memcmp(y0, y1, ny) != 0)
    fail_msg("dwconv n%d h%d w%d c%d s%d pad%d zp %d,%d scales %d bias %d lut %d differs", n, h,
             w, c, stride, pad, x_zp, y_zp, scale_kind, use_bias, use_lut);
  free(x);
  free(wt);
  free(y0);
  free(y1);
  free(bias);
  free(rs);
}

static void dwconv_matches_scalar(void **state) {
  (void)state;
  rng r = {6};
  static const int chans[] = {1, 15, 16, 17, 32, 33, 48, 80};
  static const int32_t zps[] = {-128, 0, 5, 127, 300};
  /* YOLO11-like layers first. */
  dwconv_case(&r, 1, 20, 20, 64, 1, 1, -128, -3, 1, 1, 1);
  dwconv_case(&r, 1, 21, 19, 80, 2, 1, 7, 0, 1, 1, 0);
  for (int t = 0; t < 200; t++)
    dwconv_case(&r, rint_in(&r, 1, 2), rint_in(&r, 1, 9), rint_in(&r, 1, 9),
                chans[rnext(&r) % (sizeof(chans) / sizeof(chans[0]))], rint_in(&r, 1, 2),
                rint_in(&r, 0, 1), zps[rnext(&r) % 5], zps[rnext(&r) % 4], rint_in(&r, 0, 2),
                rint_in(&r, 0, 1), rint_in(&r, 0, 1));
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lut_matches_scalar),
      cmocka_unit_test(maxpool_matches_scalar),
#if YK_ARCH_AARCH64
      cmocka_unit_test(quantize_matches_scalar),
      cmocka_unit_test(dequantize_matches_scalar),
      cmocka_unit_test(requant_matches_scalar),
      cmocka_unit_test(concat_matches_scalar),
      cmocka_unit_test(dwconv_matches_scalar),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
