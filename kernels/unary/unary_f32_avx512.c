/* unary_f32_avx512.c — float activations, 16 lanes; bit-exact with yk_unary_f32__scalar
 * (same exp/sigmoid operation sequence, see exp_f32_inline.h). Tails use masked loads/stores.
 * Tanh and identity go to the scalar reference. In place allowed. */
#include "exp_f32_avx512_inline.h"
#include "yk_variants.h"

static inline __m512 apply(int kind, __m512 alpha, __m512 x) {
  switch (kind) {
    case YK_UNARY_RELU: return _mm512_max_ps(x, _mm512_setzero_ps()); /* x > 0 ? x : 0 */
    case YK_UNARY_LEAKY_RELU: {
      const __mmask16 ge = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
      return _mm512_mask_blend_ps(ge, _mm512_mul_ps(alpha, x), x);
    }
    case YK_UNARY_SIGMOID: return yk_sigmoid_f32_avx512(x);
    case YK_UNARY_SILU: return _mm512_mul_ps(x, yk_sigmoid_f32_avx512(x));
    default: return yk_exp_f32_avx512(x); /* YK_UNARY_EXP */
  }
}

/* kind is a compile-time constant after inlining into each case below, so the switch in
 * apply() disappears from the loop. */
static inline void run(int kind, float alpha, const float *x, float *y, size_t n) {
  const __m512 va = _mm512_set1_ps(alpha);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a = apply(kind, va, _mm512_loadu_ps(x + i));
    const __m512 b = apply(kind, va, _mm512_loadu_ps(x + i + 16));
    _mm512_storeu_ps(y + i, a);
    _mm512_storeu_ps(y + i + 16, b);
  }
  for (; i < n; i += 16) {
    const size_t left = n - i;
    const __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
    _mm512_mask_storeu_ps(y + i, m, apply(kind, va, _mm512_maskz_loadu_ps(m, x + i)));
  }
}

void yk_unary_f32__avx512(int kind, float alpha, const float *x, float *y, size_t n) {
  switch (kind) {
    case YK_UNARY_RELU: run(YK_UNARY_RELU, alpha, x, y, n); break;
    case YK_UNARY_LEAKY_RELU: run(YK_UNARY_LEAKY_RELU, alpha, x, y, n); break;
    case YK_UNARY_SIGMOID: run(YK_UNARY_SIGMOID, alpha, x, y, n); break;
    case YK_UNARY_SILU: run(YK_UNARY_SILU, alpha, x, y, n); break;
    case YK_UNARY_EXP: run(YK_UNARY_EXP, alpha, x, y, n); break;
    default: yk_unary_f32__scalar(kind, alpha, x, y, n); break; /* tanh, copies; checks kind */
  }
}
