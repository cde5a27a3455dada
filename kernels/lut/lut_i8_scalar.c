/* lut_i8_scalar.c — reference int8 table lookup. */
#include "yk_variants.h"

void yk_lut_i8__scalar(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]) {
  for (size_t i = 0; i < n; i++) y[i] = lut[(uint8_t)(x[i] + 128)];
}
