/* dequantize_i8_f32_neon.c — DequantizeLinear, 16 values per step (AArch64; ARMv7 NEON flushes
 * denormals, so it keeps the scalar reference). */
#include "yk_variants.h"

#if YK_ARCH_AARCH64
#include "yk_neon_inline.h"

void yk_dequantize_i8_f32__neon(const int8_t *x, float *y, size_t n, float scale, int32_t zp) {
  const float32x4_t s = vdupq_n_f32(scale);
  const int32x4_t z = vdupq_n_s32(zp);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    float32x4_t v[4];
    yk_neon_i8_to_f32(vld1q_s8(x + i), z, v);
    for (int k = 0; k < 4; k++) vst1q_f32(y + i + 4 * k, vmulq_f32(v[k], s));
  }
  for (; i < n; i++) y[i] = yk_dequantize1(x[i], scale, zp);
}
#endif
