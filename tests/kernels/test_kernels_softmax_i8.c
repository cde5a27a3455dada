/* test_kernels_softmax_i8.c — the int8 softmax rows (yk_softmax_i8): the scalar reference (the
 * float chain on scalar kernels) within one step of a double-precision softmax written here, and
 * the AVX-512 and AVX-512 VBMI variants bit-exact against it on every row length around the
 * vector and stack-row bounds, in place and misaligned, on flat rows, rows at the int8 ends, rows
 * spanning 1 .. 129 codes anywhere in the int8 range (the VBMI tables take spans up to 128, 64
 * codes per plane), scales that underflow the exp, saturating output scales and extreme zero
 * points; with a LUT before the softmax (monotone, as the attention's Mul, and scrambled). */
#include "kt_common.h"

typedef void (*sm_fn)(const int8_t *, int8_t *, size_t, size_t, const yk_softmax_i8_params *);

/* k = floor(1 / sy) * sy, the converter's QLinearSoftmax factor (lw_softmax_qlinear_k) */
#define PK(sx, zx, sy, zy) {sx, (float)(floorf(1.0f / (sy)) * (sy)), sy, zx, zy, NULL}
static int8_t lut_mono[256], lut_mixed[256]; /* filled by make_luts */
static const yk_softmax_i8_params pset[] = {
    {0.12733f, 0.999874f, 0.00357098f, -21, -128, lut_mono}, /* the attention's, Mul folded in */
    {0.05f, 1.0f, 1.0f / 256.0f, 3, -128, lut_mixed},
    {1.7f, 1.0f, 1.0f / 256.0f, 40, -128, lut_mono}, /* exp underflow: the max must be the LUT's */
    PK(0.0862f, -3, 1.0f / 255.0f, -128), /* the attention's kind of scales */
    {0.05f, 1.0f, 1.0f / 256.0f, 0, -128, NULL}, /* k == 1: no factor pass */
    PK(1.7f, 127, 0.0031f, -128),         /* exp underflows to 0 for most of a row */
    PK(1e-4f, -128, 0.002f, 5),           /* nearly flat rows */
    {0.1f, 1.0f, 1e-6f, 0, 100, NULL},      /* saturates at 127 */
    PK(0.3f, 0, 0.7f, 127),               /* y_zp at the top: p / s_y adds up past 127 */
    PK(0.02f, 64, 1.0f / 255.0f, -128),
};
#define NP (sizeof(pset) / sizeof(pset[0]))

static void make_luts(void) {
  kt_rng r = {99};
  for (int i = 0; i < 256; i++) {
    const int v = (int)lrintf((float)(i - 128) * 0.7f) + 5; /* x 0.7, requantized: monotone */
    lut_mono[i] = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
    lut_mixed[i] = (int8_t)kt_int(&r, -128, 127);
  }
}

static void naive(const int8_t *x0, int8_t *y, size_t rows, size_t len, const yk_softmax_i8_params *p) {
  int8_t *x = malloc(rows * len + 1);
  assert_non_null(x);
  for (size_t i = 0; i < rows * len; i++) x[i] = p->lut ? p->lut[(uint8_t)(x0[i] + 128)] : x0[i];
  for (size_t r = 0; r < rows; r++) {
    const int8_t *xr = x + r * len;
    double mx = -1e30, sum = 0;
    for (size_t j = 0; j < len; j++) mx = fmax(mx, kt_ref_dq(xr[j], p->x_scale, p->x_zp));
    for (size_t j = 0; j < len; j++) sum += exp(kt_ref_dq(xr[j], p->x_scale, p->x_zp) - mx);
    for (size_t j = 0; j < len; j++) {
      const double e = exp(kt_ref_dq(xr[j], p->x_scale, p->x_zp) - mx) / sum;
      y[r * len + j] = kt_ref_qv((float)(e * p->k / p->y_scale), p->y_zp);
    }
  }
  free(x);
}

/* Row contents: 0 random, 1 random with runs of the int8 ends, 2 flat, 3 one spike, 4 a window
 * of 1 .. 129 codes (its ends present) anywhere in the int8 range, 5 a window of 63 .. 66 or
 * 127 .. 129 codes at an int8 end. */
#define NKIND 6
static void fill(kt_rng *r, int8_t *x, size_t n, int kind) {
  kt_fill_i8(r, x, n);
  if (kind >= 4) {
    static const int w5[] = {63, 64, 65, 66, 127, 128, 129};
    const int w = kind == 4 ? kt_int(r, 1, 129) : w5[kt_u32(r) % 7];
    const int lo = kind == 4 ? kt_int(r, -128, 128 - w) : (kt_u32(r) & 1 ? -128 : 128 - w);
    for (size_t i = 0; i < n; i++) x[i] = (int8_t)kt_int(r, lo, lo + w - 1);
    if (n > 1) {
      x[kt_u32(r) % n] = (int8_t)lo;
      x[kt_u32(r) % n] = (int8_t)(lo + w - 1);
    }
  }
  if (kind == 1)
    for (size_t i = 0; i < n; i += 1 + kt_u32(r) % 5) x[i] = (int8_t)(kt_u32(r) & 1 ? 127 : -128);
  if (kind == 2) memset(x, (int8_t)kt_int(r, -128, 127), n);
  if (kind == 3) {
    memset(x, -128, n);
    if (n) x[kt_u32(r) % n] = 127;
  }
}

/* fn on rows x len (skewed, in place when inplace) against ref; tol: allowed step difference. */
static void one(sm_fn fn, sm_fn ref, kt_rng *r, size_t rows, size_t len, int kind, size_t skew,
                int inplace, const yk_softmax_i8_params *p, int tol) {
  const size_t n = rows * len;
  void *bx, *by, *bz;
  int8_t *x = kt_alloc(n + 1, skew, &bx), *y = kt_alloc(n + 1, (skew * 5) % 64, &by), *z = kt_alloc(n + 1, 0, &bz);
  assert_non_null(x), assert_non_null(y), assert_non_null(z);
  for (size_t i = 0; i < rows; i++) fill(r, x + i * len, len, (kind + (int)i) % NKIND);
  memset(y, 0x5A, n + 1);
  memset(z, 0x5A, n + 1);
  ref(x, z, rows, len, p);
  if (inplace) {
    memcpy(y, x, n);
    fn(y, y, rows, len, p);
  } else {
    fn(x, y, rows, len, p);
  }
  for (size_t i = 0; i <= n; i++)
    if (abs(y[i] - z[i]) > (i < n ? tol : 0))
      fail_msg("rows %zu len %zu kind %d sx %g zx %d sy %g zy %d k %g: element %zu is %d, expected %d", rows,
               len, kind, (double)p->x_scale, (int)p->x_zp, (double)p->y_scale, (int)p->y_zp, (double)p->k, i,
               y[i], z[i]);
  free(bx), free(by), free(bz);
}

static const size_t lens[] = {1, 2, 15, 16, 17, 31, 33, 63, 64, 65, 100, 127, 129, 400, 401, 1000, 2047, 4095, 4096};
#define NL (sizeof(lens) / sizeof(lens[0]))

static void test_scalar_ref(void **state) {
  (void)state;
  make_luts();
  kt_rng r = {31};
  for (size_t p = 0; p < NP; p++)
    for (size_t l = 0; l < NL; l++) one(yk_softmax_i8__scalar, naive, &r, 3, lens[l], (int)(l % NKIND), 0, 0, &pset[p], 1);
}

#if YK_ARCH_X86_64
/* Every length, parameter set and row kind, fn against the scalar reference. */
static void against_scalar(sm_fn fn) {
  kt_rng r = {4321};
  for (size_t p = 0; p < NP; p++)
    for (size_t l = 0; l < NL; l++)
      for (int kind = 0; kind < NKIND; kind++)
        one(fn, yk_softmax_i8__scalar, &r, 1 + (l + (size_t)kind) % 5, lens[l], kind, (l * 7 + p) % 64,
            (int)((l + p + (size_t)kind) % 3 == 0), &pset[p], 0);
  /* the attention's rows, 2 heads x 400 queries: wide rows and rows of a window */
  one(fn, yk_softmax_i8__scalar, &r, 800, 400, 0, 0, 0, &pset[0], 0);
  one(fn, yk_softmax_i8__scalar, &r, 800, 400, 4, 3, 0, &pset[0], 0);
  one(fn, yk_softmax_i8__scalar, &r, 800, 400, 4, 0, 1, &pset[2], 0);
}
#endif

static void test_avx512(void **state) {
  (void)state;
  make_luts();
#if YK_ARCH_X86_64
  yk_isa isa;
  yk_isa_detect(&isa);
  if (!isa.avx512) {
    print_message("no AVX-512: skipped\n");
    skip();
  }
  against_scalar(yk_softmax_i8__avx512);
#else
  skip();
#endif
}

static void test_avx512vbmi(void **state) {
  (void)state;
  make_luts();
#if YK_ARCH_X86_64
  yk_isa isa;
  yk_isa_detect(&isa);
  if (!isa.avx512 || !isa.avx512vbmi) {
    print_message("no AVX-512 VBMI: skipped\n");
    skip();
  }
  against_scalar(yk_softmax_i8__avx512vbmi);
#else
  skip();
#endif
}

static void test_dispatch(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  int8_t x[7 * 65], y[7 * 65], z[7 * 65];
  kt_rng r = {9};
  kt_fill_i8(&r, x, sizeof x);
  yk_softmax_i8(&isa, x, y, 7, 65, &pset[0]);
  yk_softmax_i8(NULL, x, z, 7, 65, &pset[0]);
  assert_memory_equal(y, z, sizeof y);
  memset(y, 0x11, sizeof y);
  yk_softmax_i8(&isa, x, y, 1, YK_SOFTMAX_I8_MAX_LEN + 1, &pset[0]); /* over the bound: untouched */
  assert_true(y[0] == 0x11 && y[sizeof y - 1] == 0x11);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scalar_ref),
      cmocka_unit_test(test_avx512),
      cmocka_unit_test(test_avx512vbmi),
      cmocka_unit_test(test_dispatch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
