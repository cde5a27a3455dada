/* transpose_i8_tile_avx2.c — one tile of a byte transpose (yk_transpose_i8_tile__scalar's
 * contract: y[i * ys + j] = x[i + j * xs]) in 16 x 16 blocks: 16 rows of x (consecutive j) are
 * loaded, four rounds of unpacks (bytes, words, dwords, qwords) give the 16 columns, each stored
 * as a row of y. 80 vector operations per 256 bytes where the 8 x 8 word swaps took ~4 times as
 * many; the edges go through the scalar tile. */
#include <immintrin.h>

#include "yk_variants.h"

static inline void block16(const uint8_t *x, int64_t xs, uint8_t *y, int64_t ys) {
  __m128i r[16], t[16];
  for (int j = 0; j < 16; j++) r[j] = _mm_loadu_si128((const __m128i *)(const void *)(x + j * xs));
  /* round w: pairs (2k, 2k + 1) of the previous round, unpacked at 8 << w bits: after the last,
   * element i of row j ends in vector i */
  for (int k = 0; k < 8; k++) {
    t[2 * k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 4; k++)
    for (int h = 0; h < 2; h++) {
      r[4 * k + 2 * h] = _mm_unpacklo_epi16(t[4 * k + h], t[4 * k + 2 + h]);
      r[4 * k + 2 * h + 1] = _mm_unpackhi_epi16(t[4 * k + h], t[4 * k + 2 + h]);
    }
  for (int k = 0; k < 2; k++)
    for (int h = 0; h < 4; h++) {
      t[8 * k + 2 * h] = _mm_unpacklo_epi32(r[8 * k + h], r[8 * k + 4 + h]);
      t[8 * k + 2 * h + 1] = _mm_unpackhi_epi32(r[8 * k + h], r[8 * k + 4 + h]);
    }
  for (int h = 0; h < 8; h++) {
    r[2 * h] = _mm_unpacklo_epi64(t[h], t[8 + h]);
    r[2 * h + 1] = _mm_unpackhi_epi64(t[h], t[8 + h]);
  }
  for (int i = 0; i < 16; i++) _mm_storeu_si128((__m128i *)(void *)(y + i * ys), r[i]);
}

void yk_transpose_i8_tile__avx2(const uint8_t *x, int64_t xs, uint8_t *y, int64_t ys, int64_t m, int64_t n) {
  const int64_t mb = m / 16 * 16, nb = n / 16 * 16;
  for (int64_t i = 0; i < mb; i += 16)
    for (int64_t j = 0; j < nb; j += 16) block16(x + i + j * xs, xs, y + i * ys + j, ys);
  if (nb < n) yk_transpose_i8_tile__scalar(x + nb * xs, xs, y + nb, ys, mb, n - nb);
  if (mb < m) yk_transpose_i8_tile__scalar(x + mb, xs, y + mb * ys, ys, m - mb, n);
}
