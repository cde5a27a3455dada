/* quantize_f32_i8_scalar.c — reference QuantizeLinear: sat(round_half_even(x / s) + zp). */
#include "yk_inline.h"
#include "yk_variants.h"

void yk_quantize_f32_i8__scalar(const float *x, int8_t *y, size_t n, float scale, int32_t zp) {
  for (size_t i = 0; i < n; i++) y[i] = yk_quantize1(x[i], scale, zp);
}
