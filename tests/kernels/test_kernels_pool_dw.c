/* test_kernels_pool_dw.c — NHWC max pooling (f32, i8) and depthwise 3x3 int8 conv:
 * scalar vs a naive reference, AVX2 vs scalar bit-exact (odd channel counts, padding,
 * strides, dilation, zero-point extremes, saturating scales, LUT). */
#include "kt_common.h"
#include "yk_dwconv.h"

/* ---------------- maxpool */
typedef struct pcase {
  int n, h, w, c;
  yk_pool_params p;
} pcase;

static const pcase pcases[] = {
    {1, 7, 9, 33, {5, 5, 1, 1, 2, 2, 2, 2, 1, 1}},  /* SPPF */
    {2, 8, 8, 16, {3, 3, 2, 2, 1, 1, 1, 1, 1, 1}},
    {1, 6, 7, 3, {2, 2, 2, 2, 0, 0, 0, 0, 1, 1}},
    {1, 9, 9, 67, {3, 3, 1, 2, 0, 1, 2, 0, 2, 2}},   /* dilation, asymmetric pads */
    {1, 5, 5, 32, {3, 3, 1, 1, 1, 1, 1, 1, 1, 1}},
    {1, 1, 1, 1, {1, 1, 1, 1, 0, 0, 0, 0, 1, 1}},
    {1, 4, 3, 48, {3, 1, 1, 1, 1, 0, 1, 0, 1, 1}},
};

static int out_dim(int in, int k, int s, int p0, int p1, int d) {
  return (in + p0 + p1 - d * (k - 1) - 1) / s + 1;
}

static void ref_maxpool_i8(const int8_t *x, const pcase *pc, int8_t *y, int oh, int ow) {
  const yk_pool_params *p = &pc->p;
  for (int b = 0; b < pc->n; b++)
    for (int oy = 0; oy < oh; oy++)
      for (int ox = 0; ox < ow; ox++)
        for (int ch = 0; ch < pc->c; ch++) {
          int m = -1000;
          for (int ky = 0; ky < p->kh; ky++)
            for (int kx = 0; kx < p->kw; kx++) {
              int iy = oy * p->sh - p->pad_t + ky * p->dh, ix = ox * p->sw - p->pad_l + kx * p->dw;
              if (iy < 0 || iy >= pc->h || ix < 0 || ix >= pc->w) continue;
              int v = x[((b * pc->h + iy) * pc->w + ix) * pc->c + ch];
              if (v > m) m = v;
            }
          y[((b * oh + oy) * ow + ox) * pc->c + ch] = (int8_t)(m == -1000 ? -128 : m);
        }
}

/* Every int8 max pooling variant of include/variants/pool.inc this CPU runs (scalar included). */
static size_t maxpool_variants(const yk_isa *isa, yk_variant out[8]) {
  (void)isa; /* no condition reads it where the list has only the scalar row */
  const yk_variant all[] = {
#define YK_VARIANT YK_VARIANT_ROW
#include "variants/pool.inc"
#undef YK_VARIANT
  };
  return kt_variants_of(all, sizeof all / sizeof all[0], "maxpool_nhwc_i8", out);
}

static void test_maxpool(void **state) {
  (void)state;
  kt_rng r = {11};
  yk_isa host;
  yk_isa_detect(&host);
  yk_variant vs[8];
  const size_t nv = maxpool_variants(&host, vs);
  for (size_t t = 0; t < sizeof(pcases) / sizeof(pcases[0]); t++) {
    const pcase *pc = &pcases[t];
    const yk_pool_params *p = &pc->p;
    const int oh = out_dim(pc->h, p->kh, p->sh, p->pad_t, p->pad_b, p->dh);
    const int ow = out_dim(pc->w, p->kw, p->sw, p->pad_l, p->pad_r, p->dw);
    const size_t nx = (size_t)pc->n * pc->h * pc->w * pc->c, ny = (size_t)pc->n * oh * ow * pc->c;
    void *bx, *b1, *b2, *bf, *bg;
    int8_t *x = kt_alloc(nx, 1, &bx), *y1 = kt_alloc(ny, 2, &b1), *y2 = kt_alloc(ny, 3, &b2);
    float *xf = kt_alloc(nx * 4, 4, &bf), *yf = kt_alloc(ny * 4, 8, &bg);
    assert_true(x && y1 && y2 && xf && yf);
    kt_fill_i8(&r, x, nx);
    for (size_t i = 0; i < nx; i++) {
      if (kt_u32(&r) % 5 == 0) x[i] = (kt_u32(&r) & 1) ? 127 : -128;
      xf[i] = (float)x[i] * 0.37f;
    }
    ref_maxpool_i8(x, pc, y2, oh, ow);
    yk_maxpool_nhwc_i8__scalar(x, pc->n, pc->h, pc->w, pc->c, y1, oh, ow, p);
    assert_memory_equal(y1, y2, ny);
    yk_maxpool_nhwc_f32__scalar(xf, pc->n, pc->h, pc->w, pc->c, yf, oh, ow, p);
    for (size_t i = 0; i < ny; i++) assert_true(yf[i] == (float)y2[i] * 0.37f);
    for (size_t v = 0; v < nv; v++) {
      YK_FN_maxpool_nhwc_i8((*fn)) = (YK_FN_maxpool_nhwc_i8((*)))vs[v].fn;
      memset(y2, 0x55, ny);
      fn(x, pc->n, pc->h, pc->w, pc->c, y2, oh, ow, p);
      assert_memory_equal(y1, y2, ny);
    }
    free(bx);
    free(b1);
    free(b2);
    free(bf);
    free(bg);
  }
}

/* ---------------- dwconv3x3 */
static void ref_dw(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                   const yk_dw_params *p) {
  for (int b = 0; b < p->n; b++)
    for (int oy = 0; oy < p->oh; oy++)
      for (int ox = 0; ox < p->ow; ox++)
        for (int c = 0; c < p->c; c++) {
          int64_t acc = bias ? bias[c] : 0;
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
              int iy = oy * p->stride - p->pad_t + ky, ix = ox * p->stride - p->pad_l + kx;
              int xv = (iy < 0 || iy >= p->h || ix < 0 || ix >= p->w)
                           ? p->x_zp
                           : x[((b * p->h + iy) * p->w + ix) * p->c + c];
              acc += (int64_t)(xv - p->x_zp) * w[(ky * 3 + kx) * p->c + c];
            }
          int8_t q = kt_ref_qv((float)acc * p->requant_scale[c], p->y_zp);
          y[((b * p->oh + oy) * p->ow + ox) * p->c + c] = p->lut ? p->lut[q + 128] : q;
        }
}

static void test_dwconv(void **state) {
  (void)state;
  kt_rng r = {12};
  yk_isa isa;
  yk_isa_detect(&isa);
  const int chans[] = {1, 7, 16, 17, 33, 64, 67};
  const int sizes[][2] = {{1, 1}, {5, 7}, {8, 8}, {9, 3}};
  const int zps[][2] = {{0, 0}, {-128, 127}, {127, -128}, {-3, 5}};
  int case_no = 0;
  for (size_t ci = 0; ci < sizeof(chans) / sizeof(chans[0]); ci++)
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
      for (int stride = 1; stride <= 2; stride++)
        for (int pad = 0; pad <= 1; pad++) {
          const int C = chans[ci], H = sizes[si][0], W = sizes[si][1];
          const int OH = (H + 2 * pad - 3) / stride + 1, OW = (W + 2 * pad - 3) / stride + 1;
          if (OH <= 0 || OW <= 0) continue;
          case_no++;
          const int *zp = zps[case_no % 4];
          const size_t nx = (size_t)2 * H * W * C, ny = (size_t)2 * OH * OW * C;
          void *bx, *bw, *bb, *bs, *b1, *b2, *b3;
          int8_t *x = kt_alloc(nx, 1, &bx), *w = kt_alloc((size_t)9 * C, 3, &bw);
          int32_t *bias = kt_alloc((size_t)C * 4, 4, &bb);
          float *scale = kt_alloc((size_t)C * 4, 12, &bs);
          int8_t *y1 = kt_alloc(ny, 5, &b1), *y2 = kt_alloc(ny, 7, &b2), *y3 = kt_alloc(ny, 0, &b3);
          assert_true(x && w && bias && scale && y1 && y2 && y3);
          kt_fill_i8(&r, x, nx);
          kt_fill_i8(&r, w, (size_t)9 * C);
          for (int c = 0; c < C; c++) {
            bias[c] = kt_int(&r, -20000, 20000);
            /* mix of normal, tie-producing (power of 2) and saturating scales */
            switch (c % 4) {
              case 0: scale[c] = kt_float(&r, 1e-4f, 2e-3f); break;
              case 1: scale[c] = 0.5f; break;
              case 2: scale[c] = 0.0078125f; break;
              default: scale[c] = kt_float(&r, 0.01f, 0.2f); break;
            }
          }
          if (C > 2) { /* worst-case accumulator: all taps at the extremes */
            for (int k = 0; k < 9; k++) w[k * C] = -128;
            for (size_t i = 0; i < nx; i += (size_t)C) x[i] = zp[0] >= 0 ? -128 : 127;
          }
          int8_t lut[256];
          kt_fill_i8(&r, lut, 256);
          for (int use_lut = 0; use_lut < 2; use_lut++)
            for (int use_bias = 0; use_bias < 2; use_bias++) {
              yk_dw_params p = {2, H, W, C, OH, OW, stride, pad, pad, zp[0], zp[1], scale,
                                use_lut ? lut : NULL};
              const int32_t *bp = use_bias ? bias : NULL;
              ref_dw(x, w, bp, y3, &p);
              yk_dwconv d = {.p = p, .weights = w, .bias = bp};
              yk_dwconv_rows__scalar(&d, x, y1, 0, p.n * p.oh);
              assert_memory_equal(y1, y3, ny);
              /* the variant init picks for this CPU, on packed weights (every variant:
               * test_kernels_dwconv.c) */
              assert_int_equal(yk_dwconv_init(&d, &isa), 0);
              void *mem = NULL;
              assert_int_equal(posix_memalign(&mem, 64, d.packed_bytes ? d.packed_bytes : 64), 0);
              yk_dwconv_pack(&d, mem);
              memset(y2, 0x33, ny);
              yk_dwconv_rows(&d, x, y2, 0, p.n * p.oh);
              assert_memory_equal(y1, y2, ny);
              free(mem);
            }
          free(bx);
          free(bw);
          free(bb);
          free(bs);
          free(b1);
          free(b2);
          free(b3);
        }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_maxpool),
      cmocka_unit_test(test_dwconv),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
