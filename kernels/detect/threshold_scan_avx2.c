/* threshold_scan_avx2.c — the anchors-over-threshold scan (threshold_scan_scalar.c) 32 bytes / 8
 * floats at a time; the first hit of a vector goes to the reference's step, which lists its
 * anchor and says where the next anchor starts. */
#include <immintrin.h>

#include "yk_variants.h"

size_t yk_detect_over_i8__avx2(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list) {
  const size_t total = n * (size_t)nc, c = (size_t)nc;
  const __m256i vt = _mm256_set1_epi8(t);
  size_t i = 0, k = 0;
  while (i + 32 <= total) {
    const unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_cmpgt_epi8(_mm256_loadu_si256((const __m256i *)(q + i)), vt));
    if (!m) {
      i += 32;
      continue;
    }
    i = yk_detect_over_hit(i + (size_t)__builtin_ctz(m), c, base, &list[k++]);
  }
  return k + yk_detect_over_i8_from(q, i, total, c, t, base, list + k);
}

size_t yk_detect_over_f32__avx2(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list) {
  const size_t total = n * (size_t)nc, c = (size_t)nc;
  const __m256 vt = _mm256_set1_ps(t);
  size_t i = 0, k = 0;
  while (i + 8 <= total) {
    /* not-less-than, unordered true: NaN is over, as in the reference */
    const unsigned m = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), vt, _CMP_NLT_UQ));
    if (!m) {
      i += 8;
      continue;
    }
    i = yk_detect_over_hit(i + (size_t)__builtin_ctz(m), c, base, &list[k++]);
  }
  return k + yk_detect_over_f32_from(x, i, total, c, t, base, list + k);
}
