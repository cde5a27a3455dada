/* dequantize_i8_f32_scalar.c — reference DequantizeLinear: (q - zp) * s. */
#include "yk_inline.h"
#include "yk_variants.h"

void yk_dequantize_i8_f32__scalar(const int8_t *x, float *y, size_t n, float scale, int32_t zp) {
  for (size_t i = 0; i < n; i++) y[i] = yk_dequantize1(x[i], scale, zp);
}
