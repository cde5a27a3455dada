/* lut_i8_f32_avx2.c — int8 -> float table lookup, 8 values per gather (vpgatherdd copies the
 * table's bits, so it equals the reference exactly). */
#include <immintrin.h>

#include "yk_variants.h"

void yk_lut_i8_f32__avx2(const int8_t *x, float *y, size_t n, const float lut[256]) {
  const __m256i bias = _mm256_set1_epi32(128);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(x + i));
    const __m256i u0 = _mm256_add_epi32(_mm256_cvtepi8_epi32(b), bias);
    const __m256i u1 = _mm256_add_epi32(_mm256_cvtepi8_epi32(_mm_srli_si128(b, 8)), bias);
    _mm256_storeu_ps(y + i, _mm256_i32gather_ps(lut, u0, 4));
    _mm256_storeu_ps(y + i + 8, _mm256_i32gather_ps(lut, u1, 4));
  }
  if (i < n) yk_lut_i8_f32__scalar(x + i, y + i, n - i, lut);
}
