/* unary_f32_avx2.c — float activations, 8 lanes (AVX2+FMA); bit-exact with
 * yk_unary_f32__scalar (same exp/sigmoid operation sequence, see exp_f32_inline.h). The tail
 * goes through a small zero-padded buffer. Tanh and identity go to the scalar reference. */
#include <string.h>

#include "exp_f32_avx2_inline.h"
#include "yk_variants.h"

static inline __m256 apply(int kind, __m256 alpha, __m256 x) {
  switch (kind) {
    case YK_UNARY_RELU: return _mm256_max_ps(x, _mm256_setzero_ps()); /* x > 0 ? x : 0 */
    case YK_UNARY_LEAKY_RELU: {
      const __m256 ge = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ);
      return _mm256_blendv_ps(_mm256_mul_ps(alpha, x), x, ge);
    }
    case YK_UNARY_SIGMOID: return yk_sigmoid_f32_avx2(x);
    case YK_UNARY_SILU: return _mm256_mul_ps(x, yk_sigmoid_f32_avx2(x));
    default: return yk_exp_f32_avx2(x); /* YK_UNARY_EXP */
  }
}

static inline void run(int kind, float alpha, const float *x, float *y, size_t n) {
  const __m256 va = _mm256_set1_ps(alpha);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = apply(kind, va, _mm256_loadu_ps(x + i));
    const __m256 b = apply(kind, va, _mm256_loadu_ps(x + i + 8));
    _mm256_storeu_ps(y + i, a);
    _mm256_storeu_ps(y + i + 8, b);
  }
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, apply(kind, va, _mm256_loadu_ps(x + i)));
  if (i < n) {
    float buf[8] = {0};
    memcpy(buf, x + i, (n - i) * sizeof(float));
    _mm256_storeu_ps(buf, apply(kind, va, _mm256_loadu_ps(buf)));
    memcpy(y + i, buf, (n - i) * sizeof(float));
  }
}

void yk_unary_f32__avx2(int kind, float alpha, const float *x, float *y, size_t n) {
  switch (kind) {
    case YK_UNARY_RELU: run(YK_UNARY_RELU, alpha, x, y, n); break;
    case YK_UNARY_LEAKY_RELU: run(YK_UNARY_LEAKY_RELU, alpha, x, y, n); break;
    case YK_UNARY_SIGMOID: run(YK_UNARY_SIGMOID, alpha, x, y, n); break;
    case YK_UNARY_SILU: run(YK_UNARY_SILU, alpha, x, y, n); break;
    case YK_UNARY_EXP: run(YK_UNARY_EXP, alpha, x, y, n); break;
    default: yk_unary_f32__scalar(kind, alpha, x, y, n); break; /* tanh, copies; checks kind */
  }
}
