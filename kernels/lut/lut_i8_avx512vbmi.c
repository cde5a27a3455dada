/* lut_i8_avx512vbmi.c — yk_lut_i8 64 bytes a step with vpermi2b (lut_vbmi.h): the AVX2 variant
 * needs 16 vpshufb and 15 blends per 32 bytes. Index x + 128 = raw byte ^ 0x80, so the table's
 * quarters are taken in the order 2, 3, 0, 1. */
#include "lut_vbmi.h"
#include "yk_variants.h"

void yk_lut_i8_pixels__avx512vbmi(const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                                  const int8_t lut[256]) {
  _Alignas(64) int8_t t[256];
  for (int b = 0; b < 256; b++) t[b] = lut[b ^ 0x80];
  const yk_lut4 l = yk_lut4_load(t); /* once a call: building it costs ~ a few hundred bytes' lookups */
  for (size_t p = 0; p < pixels; p++, x += xs, y += ys)
    for (size_t i = 0; i < c; i += 64) {
      const size_t left = c - i;
      const __mmask64 m = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
      const __m512i v = _mm512_maskz_loadu_epi8(m, x + i);
      _mm512_mask_storeu_epi8(y + i, m, yk_lut4_lookup(&l, v));
    }
}

void yk_lut_i8__avx512vbmi(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]) {
  yk_lut_i8_pixels__avx512vbmi(x, n, y, n, 1, n, lut);
}
