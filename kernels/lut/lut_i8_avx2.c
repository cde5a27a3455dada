/* lut_i8_avx2.c — 256-entry byte table lookup, 32 bytes per step.
 * Index u = x + 128: the low nibble selects within each 16-byte sub-table (vpshufb on all 16
 * sub-tables), then a 4-level blend tree on bits 4..7 of u picks the sub-table. */
#include <immintrin.h>

#include "yk_variants.h"

void yk_lut_i8_pixels__avx2(const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                            const int8_t lut[256]) {
  __m256i t[16];
  for (int k = 0; k < 16; k++)
    t[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(lut + 16 * k)));
  const __m256i bias = _mm256_set1_epi8((char)0x80);
  const __m256i nib = _mm256_set1_epi8(0x0F);
  for (size_t p = 0; p < pixels; p++, x += xs, y += ys) {
    size_t i = 0;
    for (; i + 32 <= c; i += 32) {
      __m256i u = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + i)), bias);
      __m256i lo = _mm256_and_si256(u, nib);
      /* blendv tests each byte's bit 7: shift bit b of u up to bit 7 (16-bit shifts keep
       * the bit inside its byte for shifts <= 7). */
      __m256i m4 = _mm256_slli_epi16(u, 3), m5 = _mm256_slli_epi16(u, 2), m6 = _mm256_slli_epi16(u, 1);
      __m256i r[8];
      for (int j = 0; j < 8; j++)
        r[j] = _mm256_blendv_epi8(_mm256_shuffle_epi8(t[2 * j], lo),
                                  _mm256_shuffle_epi8(t[2 * j + 1], lo), m4);
      for (int j = 0; j < 4; j++) r[j] = _mm256_blendv_epi8(r[2 * j], r[2 * j + 1], m5);
      for (int j = 0; j < 2; j++) r[j] = _mm256_blendv_epi8(r[2 * j], r[2 * j + 1], m6);
      _mm256_storeu_si256((__m256i *)(void *)(y + i), _mm256_blendv_epi8(r[0], r[1], u));
    }
    if (i < c) yk_lut_i8__scalar(x + i, y + i, c - i, lut);
  }
}

void yk_lut_i8__avx2(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]) {
  yk_lut_i8_pixels__avx2(x, n, y, n, 1, n, lut);
}
