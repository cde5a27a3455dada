/* dequantize_i8_f32_avx2.c — DequantizeLinear, 16 per step. */
#include "yk_avx2_inline.h"
#include "yk_variants.h"

void yk_dequantize_i8_f32__avx2(const int8_t *x, float *y, size_t n, float scale, int32_t zp) {
  const __m256 vs = _mm256_set1_ps(scale);
  const __m256i vzp = _mm256_set1_epi32(zp);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm256_storeu_ps(y + i, _mm256_mul_ps(yk_avx2_load8_dq(x + i, vzp), vs));
    _mm256_storeu_ps(y + i + 8, _mm256_mul_ps(yk_avx2_load8_dq(x + i + 8, vzp), vs));
  }
  if (i < n) yk_dequantize_i8_f32__scalar(x + i, y + i, n - i, scale, zp);
}
