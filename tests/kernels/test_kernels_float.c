/* test_kernels_float.c — float kernels (binary with broadcasting, activations, softmax,
 * matmul) against double-precision references, and the int8 LUT builders against the QDQ
 * chain they replace. */
#include "kt_common.h"

static int64_t numel(const yk_shape *s) {
  int64_t n = 1;
  for (int k = 0; k < s->rank; k++) n *= s->d[k];
  return n;
}

/* ---------------- binary_f32 */
static void test_binary_f32(void **state) {
  (void)state;
  const yk_shape cases[][3] = {
      {{4, {1, 3, 5, 7}}, {4, {1, 3, 5, 7}}, {4, {1, 3, 5, 7}}},
      {{4, {2, 3, 5, 7}}, {4, {1, 3, 1, 7}}, {4, {2, 3, 5, 7}}},
      {{3, {1, 1, 1}}, {3, {4, 1, 9}}, {3, {4, 1, 9}}},
      {{3, {4, 1, 9}}, {3, {1, 6, 1}}, {3, {4, 6, 9}}},
      {{3, {1, 4, 8400}}, {3, {1, 1, 8400}}, {3, {1, 4, 8400}}}, /* anchors * strides */
  };
  kt_rng r = {21};
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
    for (int kind = 0; kind < 4; kind++) {
      const yk_shape *sa = &cases[c][0], *sb = &cases[c][1], *sy = &cases[c][2];
      const int64_t na = numel(sa), nb = numel(sb), ny = numel(sy);
      float *a = malloc((size_t)na * 4), *b = malloc((size_t)nb * 4), *y = malloc((size_t)ny * 4);
      assert_true(a && b && y);
      for (int64_t i = 0; i < na; i++) a[i] = kt_float(&r, -10, 10);
      for (int64_t i = 0; i < nb; i++) b[i] = kt_float(&r, 0.5f, 10);
      yk_binary_f32(NULL, kind, a, sa, b, sb, y, sy);
      for (int64_t i = 0; i < ny; i++) {
        int64_t rem = i, ia = 0, ib = 0, ma = 1, mb = 1;
        for (int k = sy->rank - 1; k >= 0; k--) {
          const int64_t cc = rem % sy->d[k];
          rem /= sy->d[k];
          ia += (sa->d[k] == 1 ? 0 : cc) * ma;
          ib += (sb->d[k] == 1 ? 0 : cc) * mb;
          ma *= sa->d[k];
          mb *= sb->d[k];
        }
        float e = kind == 0 ? a[ia] + b[ib] : kind == 1 ? a[ia] - b[ib] : kind == 2 ? a[ia] * b[ib] : a[ia] / b[ib];
        assert_true(y[i] == e);
      }
      free(a);
      free(b);
      free(y);
    }
}

/* ---------------- unary */
static double ref_unary(int kind, double alpha, double x) {
  switch (kind) {
    case YK_UNARY_RELU: return x > 0 ? x : 0;
    case YK_UNARY_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case YK_UNARY_SILU: return x / (1.0 + exp(-x));
    case YK_UNARY_LEAKY_RELU: return x >= 0 ? x : alpha * x;
    case YK_UNARY_TANH: return tanh(x);
    case YK_UNARY_EXP: return exp(x);
    case YK_UNARY_COS: return cos(x);
    case YK_UNARY_SIN: return sin(x);
    default: return x;
  }
}

static void test_unary(void **state) {
  (void)state;
  enum { N = 2001 };
  float *x = malloc(N * 4), *y = malloc(N * 4);
  assert_true(x && y);
  for (int kind = 0; kind < YK_UNARY_COUNT; kind++) {
    for (int i = 0; i < N; i++) x[i] = (float)(i - N / 2) * (kind == YK_UNARY_EXP ? 0.08f : 0.11f);
    x[0] = kind == YK_UNARY_EXP ? -87.0f : -1000.0f;
    yk_unary_f32(NULL, kind, 0.1f, x, y, N);
    for (int i = 0; i < N; i++) {
      const double e = ref_unary(kind, 0.1f, x[i]);
      /* sigmoid/silu/tanh/exp within a few float ulps relative, and tiny absolute near 0 */
      const double tol = 4.0 * 1.2e-7 * fabs(e) + 1e-37;
      if (!(fabs(y[i] - e) <= tol)) fail_msg("kind %d x=%g got %.9g want %.9g", kind, x[i], y[i], e);
    }
    /* in place */
    float z[5] = {-2, -0.5f, 0, 0.5f, 2}, w[5];
    yk_unary_f32(NULL, kind, 0.1f, z, w, 5);
    yk_unary_f32(NULL, kind, 0.1f, z, z, 5);
    assert_memory_equal(z, w, sizeof(z));
  }
  free(x);
  free(y);
}

/* A kind that is not a yk_unary_kind is refused, never run as an identity (or anything else):
 * the entry point and the LUT builder return -1 and leave their output alone. */
static void test_unary_unknown_kind(void **state) {
  (void)state;
  const int bad[] = {-1, YK_UNARY_COUNT, YK_UNARY_COUNT + 5, 1 << 20};
  const yk_isa none = {0};
  yk_isa host;
  yk_isa_detect(&host);
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    assert_false(yk_unary_kind_valid(bad[k]));
    float x[19], y[19], y0[19];
    for (int i = 0; i < 19; i++) x[i] = (float)i - 9.0f, y[i] = y0[i] = 1234.5f;
    assert_int_equal(yk_unary_f32(&none, bad[k], 0.1f, x, y, 19), -1);
    assert_int_equal(yk_unary_f32(&host, bad[k], 0.1f, x, y, 19), -1);
    assert_memory_equal(y, y0, sizeof y);
    int8_t lut[256], lut0[256];
    memset(lut, 7, sizeof lut);
    memcpy(lut0, lut, sizeof lut);
    assert_int_equal(yk_lut_build_unary(bad[k], 0.1f, (yk_qparams){0.1f, 0}, (yk_qparams){0.1f, 0}, lut), -1);
    assert_memory_equal(lut, lut0, sizeof lut);
  }
  for (int kind = 0; kind < YK_UNARY_COUNT; kind++) {
    float x[3] = {-1, 0, 1}, y[3];
    assert_true(yk_unary_kind_valid(kind));
    assert_int_equal(yk_unary_f32(&host, kind, 0.1f, x, y, 3), 0);
  }
}

/* ---------------- softmax */
static void test_softmax(void **state) {
  (void)state;
  const size_t shapes[][3] = {{1, 16, 4 * 70}, {3, 7, 1}, {2, 1, 5}, {1, 80, 131}, {4, 33, 65}};
  kt_rng r = {22};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
    const size_t O = shapes[s][0], A = shapes[s][1], I = shapes[s][2], n = O * A * I;
    float *x = malloc(n * 4), *y = malloc(n * 4);
    assert_true(x && y);
    for (size_t i = 0; i < n; i++) x[i] = kt_float(&r, -30, 30);
    yk_softmax_f32(NULL, x, y, O, A, I);
    for (size_t o = 0; o < O; o++)
      for (size_t i = 0; i < I; i++) {
        double mx = -1e300, sum = 0;
        /* Not fmax(double, float): that reduction crashes gcc 12's aarch64 vectorizer (ICE). */
        for (size_t a = 0; a < A; a++) {
          const double v = x[(o * A + a) * I + i];
          mx = v > mx ? v : mx;
        }
        for (size_t a = 0; a < A; a++) sum += exp(x[(o * A + a) * I + i] - mx);
        for (size_t a = 0; a < A; a++) {
          const double e = exp(x[(o * A + a) * I + i] - mx) / sum;
          const double got = y[(o * A + a) * I + i];
          if (!(fabs(got - e) <= (2e-7 * (double)A + 1e-6) * e + 1e-30)) fail_msg("softmax %zu: got %.9g want %.9g", s, got, e);
        }
      }
    free(x);
    free(y);
  }
}

/* ---------------- matmul */
static void test_matmul(void **state) {
  (void)state;
  const size_t dims[][4] = {{1, 1, 1, 1}, {2, 3, 5, 7}, {3, 17, 33, 9}, {1, 64, 16, 70}};
  kt_rng r = {23};
  for (size_t t = 0; t < sizeof(dims) / sizeof(dims[0]); t++)
    for (int bcast = 0; bcast < 2; bcast++) {
      const size_t B = dims[t][0], M = dims[t][1], K = dims[t][2], N = dims[t][3];
      float *a = malloc(B * M * K * 4), *b = malloc(B * K * N * 4), *y = malloc(B * M * N * 4);
      assert_true(a && b && y);
      for (size_t i = 0; i < B * M * K; i++) a[i] = kt_float(&r, -1, 1);
      for (size_t i = 0; i < B * K * N; i++) b[i] = kt_float(&r, -1, 1);
      const size_t bs = bcast ? 0 : K * N;
      yk_matmul_f32(NULL, a, b, y, B, M * K, bs, M, K, N);
      for (size_t bt = 0; bt < B; bt++)
        for (size_t i = 0; i < M; i++)
          for (size_t j = 0; j < N; j++) {
            double e = 0;
            for (size_t k = 0; k < K; k++) e += (double)a[bt * M * K + i * K + k] * b[bt * bs + k * N + j];
            assert_true(fabs(y[bt * M * N + i * N + j] - e) <= 1e-5 * (double)K);
          }
      free(a);
      free(b);
      free(y);
    }
}

/* ---------------- LUT builders */
static float ref_sigmoidf(float x) { return (float)(1.0 / (1.0 + exp(-(double)x))); }

static void test_lut_build(void **state) {
  (void)state;
  const yk_qparams qx[] = {{0.05f, -10}, {0.2f, 0}, {0.01f, 127}, {1.0f, -128}};
  const yk_qparams qy[] = {{0.04f, -100}, {0.1f, 5}, {0.5f, 0}};
  int8_t lut[256];
  for (size_t a = 0; a < 4; a++)
    for (size_t b = 0; b < 3; b++)
      for (int kind = 0; kind <= 7; kind++) {
        yk_lut_build_unary(kind, 0.1f, qx[a], qy[b], lut);
        for (int u = 0; u < 256; u++) {
          const float x = kt_ref_dq((int8_t)(u - 128), qx[a].scale, qx[a].zero_point);
          const float f = (float)ref_unary(kind, 0.1f, x);
          const int8_t e = kt_ref_q(f, qy[b].scale, qy[b].zero_point);
          /* exact except where f sits within float rounding of a quantization tie */
          if (lut[u] != e) {
            assert_true(abs(lut[u] - e) <= 1);
            const float v = f / qy[b].scale;
            assert_true(fabsf(v - floorf(v) - 0.5f) < 1e-4f * fmaxf(1.0f, fabsf(v)));
          }
        }
      }
  /* identity/relu are exact: the LUT of identity with qx == qy is the identity */
  yk_lut_build_unary(YK_UNARY_IDENTITY, 0, qx[0], qx[0], lut);
  for (int u = 0; u < 256; u++) assert_int_equal(lut[u], u - 128);

  /* SiLU as three QDQ stages, typical YOLO params (sigmoid output scale 1/255 or 1/256) */
  const yk_qparams qs[] = {{1.0f / 255.0f, -128}, {1.0f / 256.0f, -128}};
  for (size_t a = 0; a < 4; a++)
    for (size_t s = 0; s < 2; s++)
      for (size_t b = 0; b < 3; b++) {
        yk_lut_build_silu_qdq(qx[a], qs[s], qy[b], lut);
        for (int u = 0; u < 256; u++) {
          const float x = kt_ref_dq((int8_t)(u - 128), qx[a].scale, qx[a].zero_point);
          const int8_t sq = kt_ref_q(ref_sigmoidf(x), qs[s].scale, qs[s].zero_point);
          const float sf = kt_ref_dq(sq, qs[s].scale, qs[s].zero_point);
          const int8_t e = kt_ref_q(x * sf, qy[b].scale, qy[b].zero_point);
          /* a sigmoid 1-ulp difference at a tie can move s by 1 LSB and y by at most 1 */
          if (abs(lut[u] - e) > 1) fail_msg("silu lut[%d] = %d, want %d", u, lut[u], e);
        }
        /* QDQ SiLU is not plain SiLU: it must differ from the single-step LUT somewhere for
         * a coarse sigmoid scale, and agree with it to within a few LSB */
        int8_t plain[256];
        yk_lut_build_unary(YK_UNARY_SILU, 0, qx[a], qy[b], plain);
        for (int u = 0; u < 256; u++) assert_true(abs(lut[u] - plain[u]) <= 2 + (int)(qx[a].scale * 8 / qy[b].scale));
      }
}

/* A scalar-operand binary LUT equals the float chain the runtime runs without it: the
 * dequantize kernel, the float binary kernel with the scalar broadcast (either side), the
 * quantize kernel; every kind, both operand orders, constants that saturate and divide. */
static void test_lut_build_binary_scalar(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  const yk_qparams qx[] = {{0.05f, -10}, {0.2f, 0}, {0.0371f, 127}, {1.0f, -128}};
  const yk_qparams qy[] = {{0.04f, -100}, {0.1f, 5}, {0.003f, 0}};
  const float cs[] = {0.17677669f, -3.0f, 0.5f, 1e-3f, 250.0f};
  int8_t x[256], lut[256], want[256];
  float xf[256], yf[256];
  for (int u = 0; u < 256; u++) x[u] = (int8_t)(u - 128);
  const yk_shape full = {.rank = 1, .d = {256}}, one = {.rank = 1, .d = {1}};
  for (size_t a = 0; a < 4; a++)
    for (size_t b = 0; b < 3; b++)
      for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
        for (int kind = 0; kind < YK_BIN_COUNT; kind++)
          for (int first = 0; first < 2; first++) {
            yk_lut_build_binary_scalar(kind, cs[k], first, qx[a], qy[b], lut);
            yk_dequantize_i8_f32(&isa, x, xf, 256, qx[a].scale, qx[a].zero_point);
            if (first) yk_binary_f32(&isa, kind, &cs[k], &one, xf, &full, yf, &full);
            else yk_binary_f32(&isa, kind, xf, &full, &cs[k], &one, yf, &full);
            yk_quantize_f32_i8(&isa, yf, want, 256, qy[b].scale, qy[b].zero_point);
            assert_memory_equal(lut, want, 256);
          }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_lut_build_binary_scalar),
      cmocka_unit_test(test_binary_f32), cmocka_unit_test(test_unary), cmocka_unit_test(test_unary_unknown_kind),
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_matmul),     cmocka_unit_test(test_lut_build),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
