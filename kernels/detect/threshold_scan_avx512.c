/* threshold_scan_avx512.c — the anchors-over-threshold scan (threshold_scan_scalar.c) 64 bytes / 16
 * floats at a time, the tail under a mask, so only hits leave the vector loop. */
#include <immintrin.h>

#include "yk_variants.h"

size_t yk_detect_over_i8__avx512(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list) {
  const size_t total = n * (size_t)nc, c = (size_t)nc;
  const __m512i vt = _mm512_set1_epi8(t);
  size_t i = 0, k = 0;
  while (i < total) {
    const size_t left = total - i;
    const __mmask64 lanes = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
    const __mmask64 m = _mm512_mask_cmpgt_epi8_mask(lanes, _mm512_maskz_loadu_epi8(lanes, q + i), vt);
    if (!m) {
      i += 64;
      continue;
    }
    i = yk_detect_over_hit(i + (size_t)__builtin_ctzll(m), c, base, &list[k++]);
  }
  return k;
}

size_t yk_detect_over_f32__avx512(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list) {
  const size_t total = n * (size_t)nc, c = (size_t)nc;
  const __m512 vt = _mm512_set1_ps(t);
  size_t i = 0, k = 0;
  while (i < total) {
    const size_t left = total - i;
    const __mmask16 lanes = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
    /* not-less-than, unordered true: NaN is over, as in the reference */
    const __mmask16 m = _mm512_mask_cmp_ps_mask(lanes, _mm512_maskz_loadu_ps(lanes, x + i), vt, _CMP_NLT_UQ);
    if (!m) {
      i += 16;
      continue;
    }
    i = yk_detect_over_hit(i + (size_t)__builtin_ctz(m), c, base, &list[k++]);
  }
  return k;
}
