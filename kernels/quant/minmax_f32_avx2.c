/* minmax_f32_avx2.c — range of a float tensor, 8 lanes as the scalar reference (vminps(v, l)
 * is `v < l ? v : l`, so NaNs are skipped and zeros keep their sign alike). The scalar code
 * (not vectorised by the compiler) was the slowest pass of a dynamically quantized conv. */
#include <immintrin.h>

#include "yk_variants.h"

void yk_minmax_f32__avx2(const float *x, size_t n, float *lo, float *hi) {
  float l[8], h[8];
  const float first = n ? x[0] : 0.0f;
  __m256 vl = _mm256_set1_ps(first == first ? first : 0.0f), vh = vl;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    vl = _mm256_min_ps(v, vl);
    vh = _mm256_max_ps(v, vh);
  }
  _mm256_storeu_ps(l, vl);
  _mm256_storeu_ps(h, vh);
  yk_minmax_f32_fold(x, i, n, l, h, lo, hi);
}
