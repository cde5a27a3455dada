/* quant.c — range / quantize / dequantize / requantize: the variants yk_isa_select chose
 * (include/variants/quant.inc; NEON on AArch64 only, see yk_variants.h). */
#include "yk_variants.h"

void yk_minmax_f32(const yk_isa *isa, const float *x, size_t n, float *lo, float *hi) {
  YK_PICK(isa, minmax_f32)(x, n, lo, hi);
}

void yk_quantize_f32_i8(const yk_isa *isa, const float *x, int8_t *y, size_t n, float scale,
                        int32_t zp) {
  YK_PICK(isa, quantize_f32_i8)(x, y, n, scale, zp);
}

void yk_dequantize_i8_f32(const yk_isa *isa, const int8_t *x, float *y, size_t n, float scale,
                          int32_t zp) {
  YK_PICK(isa, dequantize_i8_f32)(x, y, n, scale, zp);
}

void yk_requant_i8(const yk_isa *isa, const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy,
                   size_t n) {
  YK_PICK(isa, requant_i8)(x, qx, y, qy, n);
}
