/* conv16_avx512vnni.c — yk_conv16 on AVX-512 VNNI: 16 channels a zmm, vpdpwssd (the wrapping
 * form: the block bound keeps every lane exact) of a broadcast activation pair by the weight pairs. */
#include <immintrin.h>

#include "conv16_driver.h"

#define C16_UK uk_avx512vnni
#define C16_VI __m512i
#define C16_VF __m512
#define C16_LANES 16
#define C16_LOADI(q) _mm512_loadu_si512(q)
#define C16_ZEROI() _mm512_setzero_si512()
#define C16_LOADW(q) _mm512_loadu_si512(q)
#define C16_DOT(acc, pair, wv) _mm512_dpwssd_epi32((acc), _mm512_set1_epi32(pair), (wv))
#define C16_CVT(v) _mm512_cvtepi32_ps(v)
#define C16_LOADF(q) _mm512_loadu_ps(q)
#define C16_ADDF(x, y) _mm512_add_ps((x), (y))
#define C16_STOREF(q, v) _mm512_storeu_ps((q), (v))
#include "conv16_uk_x86.h"

/* yk_conv16_out's clamp and round (vcvtps2dq: half to even) on 16 lanes, a masked store */
static void out_avx512(const float *f, const float *scale, int32_t y_zp, int8_t *y, int n) {
  __m512 v = _mm512_mul_ps(_mm512_loadu_ps(f), _mm512_loadu_ps(scale));
  v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps((float)(-128 - y_zp))), _mm512_set1_ps((float)(127 - y_zp)));
  const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(v), _mm512_set1_epi32(y_zp));
  _mm_mask_storeu_epi8(y, (__mmask16)((1u << n) - 1u), _mm512_cvtepi32_epi8(q));
}

void yk_conv16_rows__avx512vnni(const yk_conv16 *c, const int16_t *x, void *y, int row0, int row1) {
  yk_conv16_drive(c, x, y, row0, row1, uk_avx512vnni, out_avx512);
}
