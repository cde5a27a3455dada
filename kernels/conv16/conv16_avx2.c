/* conv16_avx2.c — yk_conv16 on AVX2: 8 channels a ymm, an int16 activation pair broadcast per
 * step, vpmaddwd against the (k, k+1) weight pairs (|sum| <= 2^23: never saturates), vpaddd. */
#include <immintrin.h>

#include "conv16_driver.h"

static void uk_avx2(const int16_t *patch, const int16_t *w, int kn, const int32_t *bias, float *f) {
  __m256i a0 = bias ? _mm256_loadu_si256((const __m256i *)(const void *)bias) : _mm256_setzero_si256();
  __m256i a1 = a0, a2 = a0, a3 = a0;
  const int32_t *p0 = (const int32_t *)(const void *)patch;
  const int32_t *p1 = p0 + YK_CONV16_KBLK / 2, *p2 = p1 + YK_CONV16_KBLK / 2, *p3 = p2 + YK_CONV16_KBLK / 2;
  for (int s = 0; s < kn / 2; s++) {
    const __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)(w + (size_t)s * 16u));
    a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_set1_epi32(p0[s]), wv));
    a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_set1_epi32(p1[s]), wv));
    a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_set1_epi32(p2[s]), wv));
    a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_set1_epi32(p3[s]), wv));
  }
  const __m256i a[YK_CONV16_MR] = {a0, a1, a2, a3};
  for (int m = 0; m < YK_CONV16_MR; m++) {
    __m256 v = _mm256_cvtepi32_ps(a[m]);
    if (!bias) v = _mm256_add_ps(_mm256_loadu_ps(f + m * 8), v);
    _mm256_storeu_ps(f + m * 8, v);
  }
}

void yk_conv16_rows__avx2(const yk_conv16 *c, const int16_t *x, int8_t *y, int row0, int row1) {
  yk_conv16_drive(c, x, y, row0, row1, uk_avx2);
}
