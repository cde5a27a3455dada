/* lut_i8_f32_scalar.c — reference int8 -> float table lookup (a float function of a
 * dequantized int8 tensor, e.g. SiLU, in one pass). */
#include "yk_variants.h"

void yk_lut_i8_f32__scalar(const int8_t *x, float *y, size_t n, const float lut[256]) {
  for (size_t i = 0; i < n; i++) y[i] = lut[(uint8_t)(x[i] + 128)];
}
