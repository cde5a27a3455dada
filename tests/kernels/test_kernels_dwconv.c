/* test_kernels_dwconv.c — yk_dwconv (packed depthwise 3x3 int8 over row ranges): the scalar
 * rows reference against a naive one written here, and every SIMD variant the CPU has
 * bit-exact against the scalar reference, over odd channel counts and sizes, stride 1/2,
 * pad 0/1, saturating data/scales/zero points, with and without LUT and bias, and for
 * arbitrary row-range splits (identical to one full call; nothing written outside). */
#include "kt_common.h"
#include "yk_dwconv.h"

static void ref_dw(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                   const yk_dw_params *p) {
  for (int b = 0; b < p->n; b++)
    for (int oy = 0; oy < p->oh; oy++)
      for (int ox = 0; ox < p->ow; ox++)
        for (int c = 0; c < p->c; c++) {
          int64_t acc = bias ? bias[c] : 0;
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
              const int iy = oy * p->stride - p->pad_t + ky, ix = ox * p->stride - p->pad_l + kx;
              const int xv = (iy < 0 || iy >= p->h || ix < 0 || ix >= p->w)
                                 ? p->x_zp
                                 : x[(((size_t)b * p->h + iy) * p->w + ix) * p->c + c];
              acc += (int64_t)(xv - p->x_zp) * w[(ky * 3 + kx) * p->c + c];
            }
          const int8_t q = kt_ref_qv((float)acc * p->requant_scale[c], p->y_zp);
          y[(((size_t)b * p->oh + oy) * p->ow + ox) * p->c + c] = p->lut ? p->lut[q + 128] : q;
        }
}

typedef struct variant {
  const char *name;
  yk_isa isa;
  int want; /* expected yk_dwconv variant */
} variant;

static int variants(variant *v) {
  yk_isa host;
  yk_isa_detect(&host);
  int n = 0;
  v[n++] = (variant){"scalar", {0}, YK_DWCONV_SCALAR};
#if YK_ARCH_X86_64
  if (host.avx2) v[n++] = (variant){"avx2", {.avx2 = 1}, YK_DWCONV_AVX2};
  if (host.avx512) v[n++] = (variant){"avx512", {.avx2 = 1, .avx512 = 1}, YK_DWCONV_AVX512};
  if (host.avx512vnni && host.avx512vbmi)
    v[n++] = (variant){"avx512vnni", {.avx2 = 1, .avx512 = 1, .avx512vnni = 1, .avx512vbmi = 1},
                       YK_DWCONV_AVX512VNNI};
#elif YK_ARCH_AARCH64
  v[n++] = (variant){"neon", {.neon = 1}, YK_DWCONV_NEON};
#endif
  return n;
}

/* Run d over [0, rows) in random chunks (chunk 0: one call), into y. */
static void run_split(const yk_dwconv *d, const int8_t *x, int8_t *y, kt_rng *r, int chunked) {
  const int rows = d->p.n * d->p.oh;
  if (!chunked) {
    yk_dwconv_rows(d, x, y, 0, rows);
    return;
  }
  for (int r0 = 0; r0 < rows;) {
    int r1 = r0 + kt_int(r, 1, 3);
    if (r1 > rows) r1 = rows;
    yk_dwconv_rows(d, x, y, r0, r1);
    r0 = r1;
  }
}

static void check_case(kt_rng *r, const variant *vs, int nv, int C, int H, int W, int stride,
                       int pad, int32_t xzp, int32_t yzp, int data_kind) {
  const int N = 2;
  const int OH = (H + 2 * pad - 3) / stride + 1, OW = (W + 2 * pad - 3) / stride + 1;
  if (OH <= 0 || OW <= 0) return;
  const size_t nx = (size_t)N * H * W * C, ny = (size_t)N * OH * OW * C;
  void *bx, *bw, *bb, *bs, *b1, *b2, *b3;
  int8_t *x = kt_alloc(nx, 1, &bx), *w = kt_alloc((size_t)9 * C, 3, &bw);
  int32_t *bias = kt_alloc((size_t)C * 4, 4, &bb);
  float *scale = kt_alloc((size_t)C * 4, 12, &bs);
  int8_t *yr = kt_alloc(ny, 5, &b1), *ys = kt_alloc(ny, 7, &b2), *yv = kt_alloc(ny + 64, 0, &b3);
  assert_true(x && w && bias && scale && yr && ys && yv);
  kt_fill_i8(r, x, nx);
  kt_fill_i8(r, w, (size_t)9 * C);
  if (data_kind == 1) { /* extremes: inputs and weights at -128/127 */
    for (size_t i = 0; i < nx; i++) x[i] = (kt_u32(r) & 1) ? 127 : -128;
    for (int i = 0; i < 9 * C; i++) w[i] = (kt_u32(r) & 1) ? 127 : -128;
  } else if (data_kind == 2) { /* worst-case accumulator: every tap at the extreme, same sign */
    for (size_t i = 0; i < nx; i++) x[i] = xzp >= 0 ? -128 : 127;
    for (int i = 0; i < 9 * C; i++) w[i] = -128;
  }
  for (int c = 0; c < C; c++) {
    bias[c] = kt_int(r, -20000, 20000);
    switch (c % 8) { /* normal, ties (powers of 2), tiny, huge (saturating), inf, NaN */
      case 0: scale[c] = kt_float(r, 1e-4f, 2e-3f); break;
      case 1: scale[c] = 0.5f; break;
      case 2: scale[c] = 0.0078125f; break;
      case 3: scale[c] = 1e-30f; break;
      case 4: scale[c] = 1e30f; break;
      case 6: scale[c] = INFINITY; break;
      case 7: scale[c] = NAN; break;
      default: scale[c] = kt_float(r, 0.01f, 0.2f); break;
    }
  }
  int8_t lut[256];
  kt_fill_i8(r, lut, 256);
  for (int use_lut = 0; use_lut < 2; use_lut++)
    for (int use_bias = 0; use_bias < 2; use_bias++) {
      const yk_dw_params p = {N, H, W, C, OH, OW, stride, pad, pad, xzp, yzp, scale,
                              use_lut ? lut : NULL};
      const int32_t *bi = use_bias ? bias : NULL;
      ref_dw(x, w, bi, yr, &p);
      const yk_dwconv ref = {.p = p, .weights = w, .bias = bi};
      yk_dwconv_rows__scalar(&ref, x, ys, 0, N * OH);
      assert_memory_equal(yr, ys, ny);
      for (int vi = 0; vi < nv; vi++) {
        yk_dwconv d = {.p = p, .weights = w, .bias = bi};
        assert_int_equal(yk_dwconv_init(&d, &vs[vi].isa), 0);
        const int simd_zp = xzp >= -128 && xzp <= 127 && yzp >= -128 && yzp <= 127;
        assert_int_equal(d.variant, simd_zp ? vs[vi].want : YK_DWCONV_SCALAR);
        void *mem = NULL;
        assert_int_equal(posix_memalign(&mem, 64, d.packed_bytes ? d.packed_bytes : 64), 0);
        yk_dwconv_pack(&d, mem);
        for (int chunked = 0; chunked < 2; chunked++) {
          memset(yv, 0x5A, ny + 64);
          run_split(&d, x, yv, r, chunked);
          if (memcmp(ys, yv, ny) != 0)
            print_message("mismatch: %s C=%d %dx%d s=%d pad=%d zp=%d/%d data=%d lut=%d bias=%d chunked=%d\n",
                          vs[vi].name, C, H, W, stride, pad, xzp, yzp, data_kind, use_lut, use_bias,
                          chunked);
          assert_memory_equal(ys, yv, ny);
          for (int g = 0; g < 64; g++) assert_int_equal((uint8_t)yv[ny + (size_t)g], 0x5A);
        }
        free(mem);
      }
    }
  free(bx);
  free(bw);
  free(bb);
  free(bs);
  free(b1);
  free(b2);
  free(b3);
}

static void test_dwconv_rows(void **state) {
  (void)state;
  kt_rng r = {77};
  variant vs[5];
  const int nv = variants(vs);
  const int chans[] = {1, 3, 17, 63, 65, 80, 129, 256};
  const int sizes[][2] = {{1, 1}, {2, 3}, {7, 5}, {20, 20}, {4, 9}};
  const int32_t zps[][2] = {{0, 0}, {-128, 127}, {127, -128}, {-3, 5}, {127, 127}, {-128, -128}};
  int case_no = 0;
  for (size_t ci = 0; ci < sizeof(chans) / sizeof(chans[0]); ci++)
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
      for (int stride = 1; stride <= 2; stride++)
        for (int pad = 0; pad <= 1; pad++) {
          const int32_t *zp = zps[case_no % 6];
          check_case(&r, vs, nv, chans[ci], sizes[si][0], sizes[si][1], stride, pad, zp[0], zp[1],
                     case_no % 3);
          case_no++;
        }
}

/* Zero points outside int8 fall back to the scalar variant and stay exact. */
static void test_dwconv_rows_wide_zp(void **state) {
  (void)state;
  kt_rng r = {78};
  variant vs[5];
  const int nv = variants(vs);
  check_case(&r, vs, nv, 19, 6, 5, 1, 1, 300, -2, 0);
  check_case(&r, vs, nv, 19, 6, 5, 2, 1, 3, -200, 1);
}

static void test_dwconv_rows_bad_shape(void **state) {
  (void)state;
  float s = 1.0f;
  int8_t w[9] = {0};
  yk_dwconv d = {.p = {1, 4, 4, 1, 4, 4, 3, 1, 1, 0, 0, &s, NULL}, .weights = w};
  assert_int_equal(yk_dwconv_init(&d, NULL), -1);
  d.p.stride = 1;
  d.p.c = 0;
  assert_int_equal(yk_dwconv_init(&d, NULL), -1);
  d.p.c = 1;
  assert_int_equal(yk_dwconv_init(&d, NULL), 0);
  assert_int_equal(d.variant, YK_DWCONV_SCALAR);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dwconv_rows),
      cmocka_unit_test(test_dwconv_rows_wide_zp),
      cmocka_unit_test(test_dwconv_rows_bad_shape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
