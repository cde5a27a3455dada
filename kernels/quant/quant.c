/* quant.c — dispatch for range / quantize / dequantize / requantize. */
#include "yk_variants.h"
/* NEON variants only on AArch64: ARMv7 NEON float math cannot match the scalar reference
 * bit for bit (see yk_variants_neon.h), so ARMv7 keeps the scalar code. */
#if YK_ARCH_AARCH64
#include "yk_variants_neon.h"
#endif

void yk_minmax_f32(const yk_isa *isa, const float *x, size_t n, float *lo, float *hi) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_minmax_f32__avx2(x, n, lo, hi);
    return;
  }
#endif
  (void)isa;
  yk_minmax_f32__scalar(x, n, lo, hi);
}

void yk_quantize_f32_i8(const yk_isa *isa, const float *x, int8_t *y, size_t n, float scale,
                        int32_t zp) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_quantize_f32_i8__avx2(x, y, n, scale, zp);
    return;
  }
#elif YK_ARCH_AARCH64
  if (isa && isa->neon) {
    yk_quantize_f32_i8__neon(x, y, n, scale, zp);
    return;
  }
#endif
  (void)isa;
  yk_quantize_f32_i8__scalar(x, y, n, scale, zp);
}

void yk_dequantize_i8_f32(const yk_isa *isa, const int8_t *x, float *y, size_t n, float scale,
                          int32_t zp) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_dequantize_i8_f32__avx2(x, y, n, scale, zp);
    return;
  }
#elif YK_ARCH_AARCH64
  if (isa && isa->neon) {
    yk_dequantize_i8_f32__neon(x, y, n, scale, zp);
    return;
  }
#endif
  (void)isa;
  yk_dequantize_i8_f32__scalar(x, y, n, scale, zp);
}

void yk_requant_i8(const yk_isa *isa, const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy,
                   size_t n) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_requant_i8__avx2(x, qx, y, qy, n);
    return;
  }
#elif YK_ARCH_AARCH64
  if (isa && isa->neon) {
    yk_requant_i8__neon(x, qx, y, qy, n);
    return;
  }
#endif
  (void)isa;
  yk_requant_i8__scalar(x, qx, y, qy, n);
}
