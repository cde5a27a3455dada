/*
 * yk_avx2_inline.h — internal AVX2 helpers; include only from *_avx2.c files (needs -mavx2).
 * Each is the vector twin of a helper in yk_inline.h and must stay bit-exact with it.
 */
#ifndef YOLORT_YK_AVX2_INLINE_H
#define YOLORT_YK_AVX2_INLINE_H

#include <immintrin.h>

#include "yk_inline.h"

/* yk_qclamp + round half even (default MXCSR) + zp; int32 lanes, not yet saturated. */
static inline __m256i yk_avx2_quant_i32(__m256 v, __m256i vzp) {
  v = _mm256_max_ps(v, _mm256_set1_ps(-YK_QCLAMP));
  v = _mm256_min_ps(v, _mm256_set1_ps(YK_QCLAMP));
  return _mm256_add_epi32(_mm256_cvtps_epi32(v), vzp);
}

/* yk_qconv_requant (yk_qconv.h) on 8 int32 sums, no zero point yet: (float)acc * scale rounded
 * half to even (default MXCSR). min(v, hi) (hi = 127 - y_zp) keeps cvt from overflowing upward;
 * a downward overflow gives INT_MIN, which saturating packs turn into -128 like the reference's
 * clamp (rounding commutes with a clamp to integer bounds). Shared by the conv's 256-bit output
 * stage (conv/qconv_nhwc_avx2.h) and the int8 MatMul. */
static inline __attribute__((always_inline)) __m256i yk_avx2_requant8(__m256i acc, __m256 scale, __m256 hi) {
  return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc), scale), hi));
}

/* Saturating pack of 2 x 8 int32 lanes (elements 0..7, 8..15) to 16 int8 in order. */
static inline __m128i yk_avx2_pack16(__m256i a, __m256i b) {
  __m128i a16 = _mm_packs_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
  __m128i b16 = _mm_packs_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
  return _mm_packs_epi16(a16, b16);
}

/* 8 int8 at p -> 8 int32 minus zp, as float. */
static inline __m256 yk_avx2_load8_dq(const int8_t *p, __m256i vzp) {
  __m256i v = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
  return _mm256_cvtepi32_ps(_mm256_sub_epi32(v, vzp));
}

#endif /* YOLORT_YK_AVX2_INLINE_H */
