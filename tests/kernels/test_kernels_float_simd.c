/* test_kernels_float_simd.c — the float SIMD kernels (unary, softmax, matmul; AVX2 and
 * AVX-512) bit-exact against their scalar references on odd sizes, misaligned buffers, edge
 * and saturating inputs; and the accuracy of the shared exp/sigmoid (exp_f32_inline.h) against
 * double precision over a sweep. */
#include "kt_common.h"

typedef void (*unary_fn)(int, float, const float *, float *, size_t);
typedef void (*softmax_fn)(const float *, float *, size_t, size_t, size_t);
typedef void (*matmul_fn)(const float *, const float *, float *, size_t, size_t, size_t, size_t,
                          size_t, size_t);

typedef struct variant {
  const char *name;
  int have;
  unary_fn unary;
  softmax_fn softmax;
  matmul_fn matmul;
} variant;

/* Fills v[] with the SIMD variants this machine can run; returns how many. */
static int simd_variants(variant v[2]) {
  int n = 0;
#if YK_ARCH_X86_64
  yk_isa isa;
  yk_isa_detect(&isa);
  if (isa.avx2)
    v[n++] = (variant){"avx2", 1, yk_unary_f32__avx2, yk_softmax_f32__avx2, yk_matmul_f32__avx2};
  if (isa.avx512)
    v[n++] =
        (variant){"avx512", 1, yk_unary_f32__avx512, yk_softmax_f32__avx512, yk_matmul_f32__avx512};
#else
  (void)v;
#endif
  if (n == 0) print_message("no float SIMD variant on this CPU: bit-exact checks skipped\n");
  return n;
}

static void expect_same(const char *what, const float *want, const float *got, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t a, b;
    memcpy(&a, want + i, 4);
    memcpy(&b, got + i, 4);
    if (a != b)
      fail_msg("%s: [%zu] scalar %.9g (0x%08x) simd %.9g (0x%08x)", what, i, want[i], a, got[i], b);
  }
}

/* Edge inputs: zeros, tiny, around the exp clamps, huge (NaN-free by contract). */
static const float k_edges[] = {0.0f,    -0.0f,    1e-30f,   -1e-30f,   1e-45f,   -1e-45f,  0.5f,
                                -0.5f,   1.0f,     -1.0f,    20.0f,     -20.0f,   87.0f,    -87.0f,
                                -87.33f, -87.34f,  -87.4f,   88.37f,    88.38f,   88.73f,   89.0f,
                                -88.73f, -104.0f,  104.0f,   1000.0f,   -1000.0f, 1e30f,    -1e30f,
                                3.4e38f, -3.4e38f, 0.34657f, -0.34657f, 0.34658f, 1.03972f, 1e-7f,
                                -1e-7f,  -103.9f,  -103.97f, -104.0f,   -104.5f,  -150.0f,  -95.0f};
#define N_EDGES (sizeof(k_edges) / sizeof(k_edges[0]))

static void fill(kt_rng *r, float *x, size_t n, int mode) {
  for (size_t i = 0; i < n; i++) {
    switch (mode) {
      case 0: x[i] = kt_float(r, -8, 8); break;
      case 1: x[i] = kt_float(r, -120, 120); break;
      case 2: x[i] = k_edges[kt_u32(r) % N_EDGES]; break;
      default: x[i] = kt_float(r, -1, 1) * powf(10.0f, kt_float(r, -38, 38)); break;
    }
  }
}

/* ---------------- accuracy of the shared exp / sigmoid / SiLU */
static void test_exp_accuracy(void **state) {
  (void)state;
  enum { N = 1 << 20 };
  float *x = malloc(N * 4), *y = malloc(N * 4);
  assert_true(x && y);
  /* exp on [-87.3, 88.3] (inside the clamps): dense sweep plus floats of many binades */
  double worst = 0, worst_x = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < N; i++) {
      if (pass == 0)
        x[i] = -87.3f + (88.3f + 87.3f) * (float)i / (float)(N - 1);
      else {
        uint32_t u = 0x3f800000u - (uint32_t)i * 0x3f8u; /* down from 1.0 across many binades */
        memcpy(&x[i], &u, 4);
        if (i & 1) x[i] = -x[i];
      }
    }
    yk_unary_f32(NULL, YK_UNARY_EXP, 0, x, y, N);
    for (int i = 0; i < N; i++) {
      const double e = exp((double)x[i]), rel = fabs(y[i] - e) / e;
      if (rel > worst) worst = rel, worst_x = x[i];
    }
  }
  print_message("exp: max relative error %.3g (at x = %.9g)\n", worst, worst_x);
  assert_true(worst < 1e-6);
  /* denormal results (x below -87.34): within about one denormal step of the true value */
  for (int i = 0; i < N; i++) x[i] = -105.0f + 17.7f * (float)i / (float)(N - 1);
  yk_unary_f32(NULL, YK_UNARY_EXP, 0, x, y, N);
  for (int i = 0; i < N; i++) {
    const double e = exp((double)x[i]);
    if (!(fabs(y[i] - e) <= 0x1p-149 + 2e-7 * e))
      fail_msg("exp(%.9g) = %.9g, want %.9g", x[i], y[i], e);
  }

  /* sigmoid and SiLU: relative on [-87, 30], absolute beyond (results below ~1e-38) */
  double ws = 0, wsi = 0;
  for (int i = 0; i < N; i++) x[i] = -87.0f + 117.0f * (float)i / (float)(N - 1);
  yk_unary_f32(NULL, YK_UNARY_SIGMOID, 0, x, y, N);
  for (int i = 0; i < N; i++) {
    const double e = 1.0 / (1.0 + exp(-(double)x[i])), rel = fabs(y[i] - e) / e;
    if (rel > ws) ws = rel;
  }
  yk_unary_f32(NULL, YK_UNARY_SILU, 0, x, y, N);
  for (int i = 0; i < N; i++) {
    const double e = x[i] / (1.0 + exp(-(double)x[i]));
    if (e == 0) continue;
    const double rel = fabs(y[i] - e) / fabs(e);
    if (rel > wsi) wsi = rel;
  }
  print_message("sigmoid: max relative error %.3g, silu %.3g\n", ws, wsi);
  assert_true(ws < 1e-6 && wsi < 1e-6);
  const float far[] = {-88.0f, -100.0f, -1000.0f, -3.4e38f, 100.0f, 3.4e38f};
  float fy[6];
  yk_unary_f32(NULL, YK_UNARY_SIGMOID, 0, far, fy, 6);
  for (int i = 0; i < 4; i++) assert_true(fy[i] >= 0.0f && fy[i] < 2e-38f);
  assert_true(fy[4] == 1.0f && fy[5] == 1.0f);
  /* exp clamps instead of overflowing to inf, and flushes to 0 where it would be denormal */
  const float big[] = {88.5f, 1000.0f, -1000.0f};
  float by[3];
  yk_unary_f32(NULL, YK_UNARY_EXP, 0, big, by, 3);
  assert_true(isfinite(by[0]) && by[0] > 2e38f && isfinite(by[1]) && by[2] == 0.0f);
  free(x);
  free(y);
}

/* ---------------- unary */
static void test_unary_simd(void **state) {
  (void)state;
  variant v[2];
  const int nv = simd_variants(v);
  if (nv == 0) skip();
  const int kinds[] = {YK_UNARY_NONE,       YK_UNARY_RELU, YK_UNARY_SIGMOID, YK_UNARY_SILU,
                       YK_UNARY_LEAKY_RELU, YK_UNARY_TANH, YK_UNARY_EXP,     YK_UNARY_IDENTITY,
                       YK_UNARY_COS,        YK_UNARY_SIN};
  kt_rng r = {31};
  for (size_t s = 0; s < KT_NSIZES; s++)
    for (int mode = 0; mode < 4; mode++) {
      const size_t n = kt_sizes[s];
      void *bx, *bw, *bg;
      float *x = kt_alloc(n * 4 + 4, 4, &bx), *want = kt_alloc(n * 4 + 4, 8, &bw),
            *got = kt_alloc(n * 4 + 4, 12, &bg);
      assert_true(x && want && got);
      fill(&r, x, n, mode);
      for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        yk_unary_f32__scalar(kinds[k], 0.1f, x, want, n);
        for (int i = 0; i < nv; i++) {
          char what[64];
          snprintf(what, sizeof what, "unary %s kind %d n %zu mode %d", v[i].name, kinds[k], n,
                   mode);
          memset(got, 0x5A, n * 4 + 4);
          v[i].unary(kinds[k], 0.1f, x, got, n);
          expect_same(what, want, got, n);
          uint32_t guard;
          memcpy(&guard, got + n, 4);
          assert_int_equal(guard, 0x5A5A5A5Au); /* no write past the end */
          memcpy(got, x, n * 4);                /* in place */
          v[i].unary(kinds[k], 0.1f, got, got, n);
          expect_same(what, want, got, n);
        }
      }
      free(bx);
      free(bw);
      free(bg);
    }
}

/* ---------------- softmax */
static void test_softmax_simd(void **state) {
  (void)state;
  variant v[2];
  const int nv = simd_variants(v);
  if (nv == 0) skip();
  /* {outer, axis, inner}: rows (inner 1) of odd and exact lengths, DFL [.,16,1], attention
   * [.,400,1], and strided layouts with tails of every width */
  const size_t shapes[][3] = {{3, 1, 1},   {2, 2, 1},    {5, 7, 1},  {4, 15, 1},  {33, 16, 1},
                              {3, 17, 1},  {2, 31, 1},   {2, 32, 1}, {2, 33, 1},  {3, 400, 1},
                              {1, 401, 1}, {2, 16, 5},   {1, 7, 17}, {3, 33, 65}, {1, 4, 8},
                              {2, 3, 16},  {1, 16, 280}, {2, 1, 9},  {0, 5, 1},   {1, 80, 131}};
  kt_rng r = {32};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
    for (int mode = 0; mode < 5; mode++) {
      const size_t O = shapes[s][0], A = shapes[s][1], I = shapes[s][2], n = O * A * I;
      void *bx, *bw, *bg;
      float *x = kt_alloc(n * 4 + 4, 4, &bx), *want = kt_alloc(n * 4 + 4, 8, &bw),
            *got = kt_alloc(n * 4 + 4, 12, &bg);
      assert_true(x && want && got);
      if (mode < 4)
        fill(&r, x, n, mode == 3 ? 2 : mode);
      else
        for (size_t i = 0; i < n; i++) x[i] = 3.25f; /* all equal */
      if (mode == 1) /* large spreads: many exp(x - max) hit the low clamp */
        for (size_t i = 0; i < n; i++) x[i] *= 10.0f;
      yk_softmax_f32__scalar(x, want, O, A, I);
      /* sanity of the reference itself: each softmax sums to 1 */
      for (size_t o = 0; o < O; o++)
        for (size_t i = 0; i < I; i++) {
          double sum = 0;
          for (size_t a = 0; a < A; a++) sum += want[(o * A + a) * I + i];
          if (!(fabs(sum - 1.0) < 1e-5 + 2e-7 * (double)A))
            fail_msg("softmax sum %.9g shape %zu", sum, s);
        }
      for (int i = 0; i < nv; i++) {
        char what[80];
        snprintf(what, sizeof what, "softmax %s shape %zu (%zu,%zu,%zu) mode %d", v[i].name, s, O,
                 A, I, mode);
        memset(got, 0x5A, n * 4 + 4);
        v[i].softmax(x, got, O, A, I);
        expect_same(what, want, got, n);
        uint32_t guard;
        memcpy(&guard, got + n, 4);
        assert_int_equal(guard, 0x5A5A5A5Au);
        memcpy(got, x, n * 4); /* in place */
        v[i].softmax(got, got, O, A, I);
        expect_same(what, want, got, n);
      }
      free(bx);
      free(bw);
      free(bg);
    }
}

/* ---------------- matmul */
static void test_matmul_simd(void **state) {
  (void)state;
  variant v[2];
  const int nv = simd_variants(v);
  if (nv == 0) skip();
  /* {batch, M, K, N}: tiles of 8x32 / 6x16 with every tail, K = 0, attention-like shapes */
  const size_t dims[][4] = {{1, 1, 1, 1},     {2, 3, 5, 7},     {1, 8, 32, 32}, {1, 6, 16, 16},
                            {1, 9, 33, 47},   {2, 13, 17, 85},  {3, 17, 33, 9}, {1, 7, 0, 5},
                            {2, 50, 32, 400}, {1, 64, 400, 40}, {1, 5, 3, 1},   {2, 1, 20, 33}};
  kt_rng r = {33};
  for (size_t t = 0; t < sizeof(dims) / sizeof(dims[0]); t++)
    for (int mode = 0; mode < 3; mode++) {
      const size_t B = dims[t][0], M = dims[t][1], K = dims[t][2], N = dims[t][3];
      const int bcast = mode == 2;
      const size_t bs = bcast ? 0 : K * N, nb = bcast ? K * N : B * K * N;
      void *ba, *bb, *bw, *bg;
      float *a = kt_alloc(B * M * K * 4 + 4, 4, &ba), *b = kt_alloc(nb * 4 + 4, 8, &bb);
      float *want = kt_alloc(B * M * N * 4 + 4, 12, &bw),
            *got = kt_alloc(B * M * N * 4 + 4, 0, &bg);
      assert_true(a && b && want && got);
      /* mode 1: wide exponent range (products stay finite; rounding differs at every k) */
      const float ea = mode == 1 ? 17.0f : 0.0f;
      for (size_t i = 0; i < B * M * K; i++)
        a[i] = kt_float(&r, -1, 1) * powf(10.0f, kt_float(&r, -ea, ea));
      for (size_t i = 0; i < nb; i++)
        b[i] = kt_float(&r, -1, 1) * powf(10.0f, kt_float(&r, -ea, ea));
      yk_matmul_f32__scalar(a, b, want, B, M * K, bs, M, K, N);
      for (int i = 0; i < nv; i++) {
        char what[80];
        snprintf(what, sizeof what, "matmul %s (%zu,%zu,%zu,%zu) mode %d", v[i].name, B, M, K, N,
                 mode);
        memset(got, 0x5A, B * M * N * 4 + 4);
        v[i].matmul(a, b, got, B, M * K, bs, M, K, N);
        expect_same(what, want, got, B * M * N);
        uint32_t guard;
        memcpy(&guard, got + B * M * N, 4);
        assert_int_equal(guard, 0x5A5A5A5Au);
      }
      free(ba);
      free(bb);
      free(bw);
      free(bg);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exp_accuracy),
      cmocka_unit_test(test_unary_simd),
      cmocka_unit_test(test_softmax_simd),
      cmocka_unit_test(test_matmul_simd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
