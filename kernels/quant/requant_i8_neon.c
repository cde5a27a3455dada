/* requant_i8_neon.c — int8 -> int8 requantization in fp32, 16 values per step (AArch64; ARMv7
 * keeps the scalar reference, see yk_variants.h). */
#include "yk_variants.h"

#if YK_ARCH_AARCH64
#include "yk_neon_inline.h"

void yk_requant_i8__neon(const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy, size_t n) {
  const float s = qx.scale / qy.scale; /* once, in float, as the reference */
  const float32x4_t vs = vdupq_n_f32(s);
  const int32x4_t zx = vdupq_n_s32(qx.zero_point), zy = vdupq_n_s32(qy.zero_point);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    float32x4_t v[4];
    yk_neon_i8_to_f32(vld1q_s8(x + i), zx, v);
    vst1q_s8(y + i, yk_neon_pack_q(yk_neon_round_q(vmulq_f32(v[0], vs)),
                                   yk_neon_round_q(vmulq_f32(v[1], vs)),
                                   yk_neon_round_q(vmulq_f32(v[2], vs)),
                                   yk_neon_round_q(vmulq_f32(v[3], vs)), zy));
  }
  for (; i < n; i++) y[i] = yk_quant_val((float)((int32_t)x[i] - qx.zero_point) * s, qy.zero_point);
}
#endif
