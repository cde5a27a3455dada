/* add_i8_fixed_avx512.c — the fixed-point int8 Add, 32 bytes a step: the (a, b) int16 pairs times
 * (ma, mb) by one vpmaddwd, plus bias, shifted (halves to even), saturated to int16 then int8
 * (as the scalar's single clamp: saturation is monotone). Tails are masked; pixels of c <= 16 go two a step. */
#include <immintrin.h>

#include "yk_variants.h"

typedef struct fx {
  __m512i m, bias, low, zy, one;
  __m128i shift;
} fx;

/* s >> shift, less one on exact halves whose result minus zy is odd (yk_add_fixed1) */
static inline __m512i round_even(__m512i s, const fx *f) {
  const __m512i r = _mm512_sra_epi32(s, f->shift);
  const __mmask16 half = _mm512_testn_epi32_mask(s, f->low);
  return _mm512_mask_sub_epi32(r, half, r, _mm512_and_si512(_mm512_xor_si512(r, f->zy), f->one));
}

/* 32 int8 of a, b (as ymm) -> 32 int8 of y */
static inline __m256i step(__m256i a8, __m256i b8, const fx *f) {
  const __m512i a = _mm512_cvtepi8_epi16(a8), b = _mm512_cvtepi8_epi16(b8);
  const __m512i lo = _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpacklo_epi16(a, b), f->m), f->bias);
  const __m512i hi = _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpackhi_epi16(a, b), f->m), f->bias);
  return _mm512_cvtsepi16_epi8(_mm512_packs_epi32(round_even(lo, f), round_even(hi, f)));
}

void yk_add_i8_fixed_pixels__avx512(const int8_t *a, size_t as, const int8_t *b, size_t bs, int8_t *y, size_t ys,
                                    size_t pixels, size_t c, const yk_add_fixed *p) {
  fx f;
  f.m = _mm512_set1_epi32((int32_t)(((uint32_t)(uint16_t)p->mb << 16) | (uint16_t)p->ma));
  f.bias = _mm512_set1_epi32(p->bias);
  f.shift = _mm_cvtsi32_si128(p->shift);
  f.low = _mm512_set1_epi32((1 << p->shift) - 1);
  f.zy = _mm512_set1_epi32(p->zy);
  f.one = _mm512_set1_epi32(1);
  if (as == c && bs == c && ys == c) { /* dense: one run */
    c *= pixels;
    pixels = 1;
  }
  if (c <= 16) {
    const __mmask16 m = (__mmask16)((1u << c) - 1u);
    size_t px = 0;
    for (; px + 2 <= pixels; px += 2) {
      const __m256i a8 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_maskz_loadu_epi8(m, a + px * as)),
                                                 _mm_maskz_loadu_epi8(m, a + (px + 1) * as), 1);
      const __m256i b8 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_maskz_loadu_epi8(m, b + px * bs)),
                                                 _mm_maskz_loadu_epi8(m, b + (px + 1) * bs), 1);
      const __m256i r = step(a8, b8, &f);
      _mm_mask_storeu_epi8(y + px * ys, m, _mm256_castsi256_si128(r));
      _mm_mask_storeu_epi8(y + (px + 1) * ys, m, _mm256_extracti128_si256(r, 1));
    }
    if (px < pixels) {
      const __m256i r = step(_mm256_castsi128_si256(_mm_maskz_loadu_epi8(m, a + px * as)),
                             _mm256_castsi128_si256(_mm_maskz_loadu_epi8(m, b + px * bs)), &f);
      _mm_mask_storeu_epi8(y + px * ys, m, _mm256_castsi256_si128(r));
    }
    return;
  }
  for (size_t px = 0; px < pixels; px++) {
    const int8_t *ap = a + px * as, *bp = b + px * bs;
    int8_t *yp = y + px * ys;
    size_t i = 0;
    for (; i + 32 <= c; i += 32)
      _mm256_storeu_si256((__m256i *)(void *)(yp + i),
                          step(_mm256_loadu_si256((const __m256i *)(const void *)(ap + i)),
                               _mm256_loadu_si256((const __m256i *)(const void *)(bp + i)), &f));
    if (i < c) {
      const __mmask32 m = (__mmask32)((1ull << (c - i)) - 1u);
      _mm256_mask_storeu_epi8(yp + i, m, step(_mm256_maskz_loadu_epi8(m, ap + i), _mm256_maskz_loadu_epi8(m, bp + i), &f));
    }
  }
}
