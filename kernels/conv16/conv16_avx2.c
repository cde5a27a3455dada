/* conv16_avx2.c — yk_conv16 on AVX2: 8 channels a ymm, an int16 activation pair broadcast per
 * step, vpmaddwd against the (k, k+1) weight pairs (|sum| <= 2^23: never saturates), vpaddd;
 * YK_CONV16_MR pixels share each weight load. */
#include <immintrin.h>

#include "conv16_driver.h"

#define C16_UK uk_avx2
#define C16_VI __m256i
#define C16_VF __m256
#define C16_LANES 8
#define C16_LOADI(q) _mm256_loadu_si256((const __m256i *)(const void *)(q))
#define C16_ZEROI() _mm256_setzero_si256()
#define C16_LOADW(q) _mm256_loadu_si256((const __m256i *)(const void *)(q))
#define C16_DOT(acc, pair, wv) _mm256_add_epi32((acc), _mm256_madd_epi16(_mm256_set1_epi32(pair), (wv)))
#define C16_CVT(v) _mm256_cvtepi32_ps(v)
#define C16_LOADF(q) _mm256_loadu_ps(q)
#define C16_ADDF(x, y) _mm256_add_ps((x), (y))
#define C16_STOREF(q, v) _mm256_storeu_ps((q), (v))
#include "conv16_uk_x86.h"

/* yk_conv16_out's clamp and round (vcvtps2dq: half to even in the default MXCSR) on 8 lanes */
static void out_avx2(const float *f, const float *scale, int32_t y_zp, int8_t *y, int n) {
  __m256 v = _mm256_mul_ps(_mm256_loadu_ps(f), _mm256_loadu_ps(scale));
  v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps((float)(-128 - y_zp))), _mm256_set1_ps((float)(127 - y_zp)));
  const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), _mm256_set1_epi32(y_zp));
  const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  const __m128i b8 = _mm_packs_epi16(w16, w16);
  if (n == 8) {
    _mm_storel_epi64((__m128i *)(void *)y, b8);
    return;
  }
  int8_t t[16];
  _mm_storeu_si128((__m128i *)(void *)t, b8);
  for (int i = 0; i < n; i++) y[i] = t[i];
}

void yk_conv16_rows__avx2(const yk_conv16 *c, const int16_t *x, void *y, int row0, int row1) {
  yk_conv16_drive(c, x, y, row0, row1, uk_avx2, out_avx2);
}
