/* lut_i8_scalar.c — reference int8 table lookup, flat or over pixels of c values at strides. */
#include "yk_variants.h"

void yk_lut_i8_pixels__scalar(const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                              const int8_t lut[256]) {
  for (size_t p = 0; p < pixels; p++, x += xs, y += ys)
    for (size_t i = 0; i < c; i++) y[i] = lut[(uint8_t)(x[i] + 128)];
}

void yk_lut_i8__scalar(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]) {
  yk_lut_i8_pixels__scalar(x, n, y, n, 1, n, lut);
}
