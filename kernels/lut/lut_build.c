/* lut_build.c — 256-entry int8 tables for elementwise functions, built in float with the exact
 * scalar quantize/dequantize of QDQ, so a LUT node equals the DQ -> f -> Q chain it replaces. */
#include "yk_inline.h"
#include "yk_variants.h"

int yk_lut_build_unary(int kind, float alpha, yk_qparams qx, yk_qparams qy, int8_t lut[256]) {
  if (!yk_unary_kind_valid(kind)) return -1;
  for (int u = 0; u < 256; u++) {
    float x = yk_dequantize1((int8_t)(u - 128), qx.scale, qx.zero_point);
    lut[u] = yk_quantize1(yk_unary_f32_1(kind, alpha, x), qy.scale, qy.zero_point);
  }
  return 0;
}

void yk_lut_build_binary_scalar(int kind, float c, int c_first, yk_qparams qx, yk_qparams qy,
                                int8_t lut[256]) {
  for (int u = 0; u < 256; u++) {
    const float x = yk_dequantize1((int8_t)(u - 128), qx.scale, qx.zero_point);
    lut[u] = yk_quantize1(c_first ? yk_binop_f32(kind, c, x) : yk_binop_f32(kind, x, c), qy.scale,
                          qy.zero_point);
  }
}

void yk_lut_build_silu_f32(yk_qparams qx, float lut[256]) {
  for (int u = 0; u < 256; u++) {
    const float x = yk_dequantize1((int8_t)(u - 128), qx.scale, qx.zero_point);
    lut[u] = x * yk_unary_f32_1(YK_UNARY_SIGMOID, 0.0f, x);
  }
}

void yk_lut_build_silu_qdq(yk_qparams qx, yk_qparams qs, yk_qparams qy, int8_t lut[256]) {
  for (int u = 0; u < 256; u++) {
    float x = yk_dequantize1((int8_t)(u - 128), qx.scale, qx.zero_point);
    int8_t s = yk_quantize1(yk_unary_f32_1(YK_UNARY_SIGMOID, 0.0f, x), qs.scale, qs.zero_point);
    float sf = yk_dequantize1(s, qs.scale, qs.zero_point);
    lut[u] = yk_quantize1(x * sf, qy.scale, qy.zero_point);
  }
}

void yk_lut_build_requant(yk_qparams qx, yk_qparams qy, int8_t lut[256]) {
  int8_t x[256];
  for (int u = 0; u < 256; u++) x[u] = (int8_t)(u - 128);
  yk_requant_i8__scalar(x, qx, lut, qy, 256);
}
