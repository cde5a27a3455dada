/* quantize_f32_i8_avx2.c — QuantizeLinear, 16 per step; true division like the scalar one. */
#include "yk_avx2_inline.h"
#include "yk_variants.h"

void yk_quantize_f32_i8__avx2(const float *x, int8_t *y, size_t n, float scale, int32_t zp) {
  const __m256 vs = _mm256_set1_ps(scale);
  const __m256i vzp = _mm256_set1_epi32(zp);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i a = yk_avx2_quant_i32(_mm256_div_ps(_mm256_loadu_ps(x + i), vs), vzp);
    __m256i b = yk_avx2_quant_i32(_mm256_div_ps(_mm256_loadu_ps(x + i + 8), vs), vzp);
    _mm_storeu_si128((__m128i *)(void *)(y + i), yk_avx2_pack16(a, b));
  }
  if (i < n) yk_quantize_f32_i8__scalar(x + i, y + i, n - i, scale, zp);
}
