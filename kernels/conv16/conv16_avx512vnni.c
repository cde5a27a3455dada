/* conv16_avx512vnni.c — yk_conv16 on AVX-512 VNNI: 16 channels a zmm, vpdpwssd (the wrapping
 * form: the block bound keeps every lane exact) of a broadcast activation pair by the weight pairs. */
#include <immintrin.h>

#include "conv16_driver.h"

static void uk_avx512vnni(const int16_t *patch, const int16_t *w, int kn, const int32_t *bias, float *f) {
  __m512i a[YK_CONV16_MR];
  const __m512i b = bias ? _mm512_loadu_si512(bias) : _mm512_setzero_si512();
  for (int m = 0; m < YK_CONV16_MR; m++) a[m] = b;
  const int32_t *p = (const int32_t *)(const void *)patch;
  for (int s = 0; s < kn / 2; s++) {
    const __m512i wv = _mm512_loadu_si512(w + (size_t)s * 32u);
    for (int m = 0; m < YK_CONV16_MR; m++)
      a[m] = _mm512_dpwssd_epi32(a[m], _mm512_set1_epi32(p[m * (YK_CONV16_KBLK / 2) + s]), wv);
  }
  for (int m = 0; m < YK_CONV16_MR; m++) {
    __m512 v = _mm512_cvtepi32_ps(a[m]);
    if (!bias) v = _mm512_add_ps(_mm512_loadu_ps(f + m * 16), v);
    _mm512_storeu_ps(f + m * 16, v);
  }
}

/* yk_conv16_out's clamp and round (vcvtps2dq: half to even) on 16 lanes, a masked store */
static void out_avx512(const float *f, const float *scale, int32_t y_zp, int8_t *y, int n) {
  __m512 v = _mm512_mul_ps(_mm512_loadu_ps(f), _mm512_loadu_ps(scale));
  v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps((float)(-128 - y_zp))), _mm512_set1_ps((float)(127 - y_zp)));
  const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(v), _mm512_set1_epi32(y_zp));
  _mm_mask_storeu_epi8(y, (__mmask16)((1u << n) - 1u), _mm512_cvtepi32_epi8(q));
}

void yk_conv16_rows__avx512vnni(const yk_conv16 *c, const int16_t *x, int8_t *y, int row0, int row1) {
  yk_conv16_drive(c, x, y, row0, row1, uk_avx512vnni, out_avx512);
}
