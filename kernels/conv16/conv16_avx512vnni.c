/* conv16_avx512vnni.c — yk_conv16 on AVX-512 VNNI: 16 channels a zmm, vpdpwssd (the wrapping
 * form: the block bound keeps every lane exact) of a broadcast activation pair by the weight pairs. */
#include <immintrin.h>

#include "conv16_driver.h"

static void uk_avx512vnni(const int16_t *patch, const int16_t *w, int kn, const int32_t *bias, float *f) {
  __m512i a0 = bias ? _mm512_loadu_si512(bias) : _mm512_setzero_si512();
  __m512i a1 = a0, a2 = a0, a3 = a0;
  const int32_t *p0 = (const int32_t *)(const void *)patch;
  const int32_t *p1 = p0 + YK_CONV16_KBLK / 2, *p2 = p1 + YK_CONV16_KBLK / 2, *p3 = p2 + YK_CONV16_KBLK / 2;
  for (int s = 0; s < kn / 2; s++) {
    const __m512i wv = _mm512_loadu_si512(w + (size_t)s * 32u);
    a0 = _mm512_dpwssd_epi32(a0, _mm512_set1_epi32(p0[s]), wv);
    a1 = _mm512_dpwssd_epi32(a1, _mm512_set1_epi32(p1[s]), wv);
    a2 = _mm512_dpwssd_epi32(a2, _mm512_set1_epi32(p2[s]), wv);
    a3 = _mm512_dpwssd_epi32(a3, _mm512_set1_epi32(p3[s]), wv);
  }
  const __m512i a[YK_CONV16_MR] = {a0, a1, a2, a3};
  for (int m = 0; m < YK_CONV16_MR; m++) {
    __m512 v = _mm512_cvtepi32_ps(a[m]);
    if (!bias) v = _mm512_add_ps(_mm512_loadu_ps(f + m * 16), v);
    _mm512_storeu_ps(f + m * 16, v);
  }
}

void yk_conv16_rows__avx512vnni(const yk_conv16 *c, const int16_t *x, int8_t *y, int row0, int row1) {
  yk_conv16_drive(c, x, y, row0, row1, uk_avx512vnni);
}
