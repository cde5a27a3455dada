/* quantize_f32_i8_neon.c — QuantizeLinear, 16 floats per step (AArch64: IEEE vector divide and
 * FCVTNS; ARMv7 keeps the scalar reference, see yk_variants.h). */
#include "yk_variants.h"

#if YK_ARCH_AARCH64
#include "yk_neon_inline.h"

void yk_quantize_f32_i8__neon(const float *x, int8_t *y, size_t n, float scale, int32_t zp) {
  const float32x4_t s = vdupq_n_f32(scale);
  const int32x4_t z = vdupq_n_s32(zp);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    /* Divide, never multiply by 1/scale: the reference divides. */
    const int32x4_t a = yk_neon_round_q(vdivq_f32(vld1q_f32(x + i), s));
    const int32x4_t b = yk_neon_round_q(vdivq_f32(vld1q_f32(x + i + 4), s));
    const int32x4_t c = yk_neon_round_q(vdivq_f32(vld1q_f32(x + i + 8), s));
    const int32x4_t d = yk_neon_round_q(vdivq_f32(vld1q_f32(x + i + 12), s));
    vst1q_s8(y + i, yk_neon_pack_q(a, b, c, d, z));
  }
  for (; i < n; i++) y[i] = yk_quantize1(x[i], scale, zp);
}
#endif
