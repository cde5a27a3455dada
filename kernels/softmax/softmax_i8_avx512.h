/* softmax_i8_avx512.h — what the int8 softmax's 512-bit variants share: tail masks and the row
 * sum's halving tree (yk_softmax_f32's order). Include only from *_avx512*.c files. */
#ifndef YOLORT_SOFTMAX_I8_AVX512_H
#define YOLORT_SOFTMAX_I8_AVX512_H

#include <immintrin.h>
#include <stddef.h>

static inline __mmask16 yk_sm_tail16(size_t left) {
  return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
}

static inline __mmask64 yk_sm_tail64(size_t left) {
  return left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1u);
}

/* p[i] += p[i + w] for w = 8, 4, 2, 1 (yk_softmax_f32's tree); returns p[0]. */
static inline float yk_sm_tree16(__m512 v) {
  const __m256 s8 = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_movehdup_ps(s2)));
}

/* The largest (max != 0) or smallest of the 64 int8 lanes of v. */
static inline int yk_sm_reduce_i8(__m512i v, int max) {
  __m256i a = max ? _mm256_max_epi8(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1))
                  : _mm256_min_epi8(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  __m128i w = max ? _mm_max_epi8(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1))
                  : _mm_min_epi8(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
  w = max ? _mm_max_epi8(w, _mm_srli_si128(w, 8)) : _mm_min_epi8(w, _mm_srli_si128(w, 8));
  w = max ? _mm_max_epi8(w, _mm_srli_si128(w, 4)) : _mm_min_epi8(w, _mm_srli_si128(w, 4));
  w = max ? _mm_max_epi8(w, _mm_srli_si128(w, 2)) : _mm_min_epi8(w, _mm_srli_si128(w, 2));
  w = max ? _mm_max_epi8(w, _mm_srli_si128(w, 1)) : _mm_min_epi8(w, _mm_srli_si128(w, 1));
  return (int8_t)_mm_cvtsi128_si32(w);
}

#endif
