/* transpose_f32_tile_avx2.c — one tile of a 4-byte transpose (yk_transpose_f32_tile__scalar's
 * contract: y[i * ys + j] = x[i + j * xs]) in 8 x 8 blocks: 8 rows of x (consecutive j) are
 * loaded, three rounds of shuffles (unpack dwords, unpack qwords, swap 128-bit halves) give the 8
 * columns, each stored as a row of y: 8 full-width stores per 64 elements instead of 64 scalar
 * ones (the Detect decode's anchor-major -> class-major turn of float scores wrote 2.8 MB a frame
 * at 640 one float at a time). Bits are moved, never computed on; the edges go through the scalar
 * tile. */
#include <immintrin.h>

#include "yk_variants.h"

static inline void block8(const uint32_t *x, int64_t xs, uint32_t *y, int64_t ys) {
  __m256 r[8], t[8];
  for (int j = 0; j < 8; j++) r[j] = _mm256_loadu_ps((const float *)(const void *)(x + j * xs));
  for (int k = 0; k < 4; k++) {
    t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  /* t[2k] = (x0 of row 2k, row 2k+1, x1 .., ..) per 128-bit half; pair rows 4h.. with 4h + 2.. */
  for (int h = 0; h < 2; h++) {
    const __m256d a = _mm256_castps_pd(t[4 * h]), b = _mm256_castps_pd(t[4 * h + 2]);
    const __m256d c = _mm256_castps_pd(t[4 * h + 1]), d = _mm256_castps_pd(t[4 * h + 3]);
    r[4 * h] = _mm256_castpd_ps(_mm256_unpacklo_pd(a, b));     /* column 0 | 4, rows 4h..4h+3 */
    r[4 * h + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(a, b)); /* column 1 | 5 */
    r[4 * h + 2] = _mm256_castpd_ps(_mm256_unpacklo_pd(c, d)); /* column 2 | 6 */
    r[4 * h + 3] = _mm256_castpd_ps(_mm256_unpackhi_pd(c, d)); /* column 3 | 7 */
  }
  for (int i = 0; i < 4; i++) {
    _mm256_storeu_ps((float *)(void *)(y + i * ys), _mm256_permute2f128_ps(r[i], r[4 + i], 0x20));
    _mm256_storeu_ps((float *)(void *)(y + (i + 4) * ys), _mm256_permute2f128_ps(r[i], r[4 + i], 0x31));
  }
}

void yk_transpose_f32_tile__avx2(const uint32_t *x, int64_t xs, uint32_t *y, int64_t ys, int64_t m, int64_t n) {
  const int64_t ib = m / 8 * 8, jb = n / 8 * 8;
  for (int64_t i = 0; i < ib; i += 8)
    for (int64_t j = 0; j < jb; j += 8) block8(x + i + j * xs, xs, y + i * ys + j, ys);
  if (jb < n) yk_transpose_f32_tile__scalar(x + jb * xs, xs, y + jb, ys, ib, n - jb);
  if (ib < m) yk_transpose_f32_tile__scalar(x + ib, xs, y + ib * ys, ys, m - ib, n);
}
