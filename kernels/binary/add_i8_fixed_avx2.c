/* add_i8_fixed_avx2.c — the fixed-point int8 Add, 16 bytes a step (the AVX-512 file's step on
 * 256-bit vectors, halves to even likewise); tails scalar. */
#include <immintrin.h>

#include "yk_variants.h"

/* s >> shift, less one on exact halves whose result minus zy is odd (yk_add_fixed1) */
static inline __m256i round_even(__m256i s, __m128i shift, __m256i low, __m256i zy) {
  const __m256i r = _mm256_sra_epi32(s, shift);
  const __m256i half = _mm256_cmpeq_epi32(_mm256_and_si256(s, low), _mm256_setzero_si256());
  return _mm256_sub_epi32(r, _mm256_and_si256(half, _mm256_and_si256(_mm256_xor_si256(r, zy), _mm256_set1_epi32(1))));
}

void yk_add_i8_fixed_pixels__avx2(const int8_t *a, size_t as, const int8_t *b, size_t bs, int8_t *y, size_t ys,
                                  size_t pixels, size_t c, const yk_add_fixed *p) {
  const __m256i m = _mm256_set1_epi32((int32_t)(((uint32_t)(uint16_t)p->mb << 16) | (uint16_t)p->ma));
  const __m256i bias = _mm256_set1_epi32(p->bias);
  const __m128i shift = _mm_cvtsi32_si128(p->shift);
  const __m256i low = _mm256_set1_epi32((1 << p->shift) - 1), zy = _mm256_set1_epi32(p->zy);
  if (as == c && bs == c && ys == c) { /* dense: one run */
    c *= pixels;
    pixels = 1;
  }
  for (size_t px = 0; px < pixels; px++) {
    const int8_t *ap = a + px * as, *bp = b + px * bs;
    int8_t *yp = y + px * ys;
    size_t i = 0;
    for (; i + 16 <= c; i += 16) {
      const __m256i a16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(ap + i)));
      const __m256i b16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(bp + i)));
      const __m256i lo = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(a16, b16), m), bias);
      const __m256i hi = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(a16, b16), m), bias);
      const __m256i p16 = _mm256_packs_epi32(round_even(lo, shift, low, zy), round_even(hi, shift, low, zy));
      /* per 128-bit lane: elements 0..7 | 8..15, in order */
      _mm_storeu_si128((__m128i *)(void *)(yp + i),
                       _mm_packs_epi16(_mm256_castsi256_si128(p16), _mm256_extracti128_si256(p16, 1)));
    }
    if (i < c) yk_add_i8_fixed_pixels__scalar(ap + i, as, bp + i, bs, yp + i, ys, 1, c - i, p);
  }
}
