/*
 * yk_avx512_inline.h — internal AVX-512 (F + BW) helpers of the int8 output stages; include only
 * from files built with -mavx512f -mavx512bw. The vector twin of yk_qconv_requant (yk_qconv.h),
 * shared by the conv's 512-bit variants (conv/qconv_out_avx512.h) and the int8 MatMul
 * (matmul/qmatmul_i8_avx512vnni.c), so both requantize in one way.
 */
#ifndef YOLORT_YK_AVX512_INLINE_H
#define YOLORT_YK_AVX512_INLINE_H

#include <immintrin.h>

/* (float)acc * scale, rounded half to even, as int32 (no zero point yet). min(v, hi) keeps cvt
 * from overflowing upward (hi = 127 - y_zp); a downward overflow gives INT_MIN, which the
 * saturating packs of yk_avx512_pack64 turn into -128 like yk_qconv_requant's clamp. */
static inline __attribute__((always_inline)) __m512i yk_avx512_requant16(__m512i acc, __m512 scale,
                                                                          __m512 hi) {
  return _mm512_cvtps_epi32(_mm512_min_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale), hi));
}

/* 4 zmm of requantized int32 to 64 int8 with y_zp added (zp16: y_zp in every int16 lane): two
 * saturating packs with a saturating int16 add in between, which equals the reference's clamp
 * for any int8 y_zp. The packs work per 128-bit lane: byte 16 L + 4 j + e of the result is
 * element 4 L + e of q[j]. */
static inline __attribute__((always_inline)) __m512i yk_avx512_pack64(__m512i q0, __m512i q1,
                                                                       __m512i q2, __m512i q3,
                                                                       __m512i zp16) {
  const __m512i ab = _mm512_adds_epi16(_mm512_packs_epi32(q0, q1), zp16);
  const __m512i cd = _mm512_adds_epi16(_mm512_packs_epi32(q2, q3), zp16);
  return _mm512_packs_epi16(ab, cd);
}

#endif /* YOLORT_YK_AVX512_INLINE_H */
