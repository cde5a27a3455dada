/* conv16_quant.c — yk_quantize_f32_i16 / yk_dequantize_i16_f32 (yk_conv16.h), portable: f32 to
 * the symmetric int16 activations of yk_conv16 and back. */
#include "yk_conv16.h"

void yk_quantize_f32_i16(const float *x, int16_t *y, size_t n, float scale) {
  for (size_t i = 0; i < n; i++) {
    float v = x[i] / scale;
    /* NaN compares false both times and ends at the low end, as yk_qclamp does */
    v = v > -32767.0f ? v : -32767.0f;
    v = v < 32767.0f ? v : 32767.0f;
    y[i] = (int16_t)yk_round_half_even(v);
  }
}

void yk_dequantize_i16_f32(const int16_t *x, float *y, size_t n, float scale) {
  for (size_t i = 0; i < n; i++) y[i] = (float)x[i] * scale;
}
