/* conv16_neon.c — yk_conv16 on AArch64 NEON: 8 channels a column (two int32x4), one activation
 * broadcast per K value, SMLAL / SMLAL2 by the 8 int16-widened weights of that K. ARMv7 keeps the
 * scalar kernel (its NEON float is not IEEE and has no SMLAL2 / FCVTNS, see yk_variants.h). */
#include "yk.h"

#if YK_ARCH_AARCH64
#include <arm_neon.h>

#include "conv16_driver.h"

static void uk_neon(const int16_t *patch, const int16_t *w, int kn, const int32_t *bias, float *f) {
  int32x4_t lo[YK_CONV16_MR], hi[YK_CONV16_MR];
  const int32x4_t b0 = bias ? vld1q_s32(bias) : vdupq_n_s32(0), b1 = bias ? vld1q_s32(bias + 4) : vdupq_n_s32(0);
  for (int m = 0; m < YK_CONV16_MR; m++) lo[m] = b0, hi[m] = b1;
  for (int k = 0; k < kn; k++) {
    const int16x8_t wv = vld1q_s16(w + (size_t)k * 8u);
    for (int m = 0; m < YK_CONV16_MR; m++) {
      const int16_t xv = patch[m * YK_CONV16_KBLK + k];
      lo[m] = vmlal_n_s16(lo[m], vget_low_s16(wv), xv);
      hi[m] = vmlal_high_n_s16(hi[m], wv, xv);
    }
  }
  for (int m = 0; m < YK_CONV16_MR; m++) {
    float32x4_t v0 = vcvtq_f32_s32(lo[m]), v1 = vcvtq_f32_s32(hi[m]);
    if (!bias) v0 = vaddq_f32(vld1q_f32(f + m * 8), v0), v1 = vaddq_f32(vld1q_f32(f + m * 8 + 4), v1);
    vst1q_f32(f + m * 8, v0);
    vst1q_f32(f + m * 8 + 4, v1);
  }
}

/* yk_conv16_out's clamp and round (FCVTNS: half to even) on 8 lanes */
static void out_neon(const float *f, const float *scale, int32_t y_zp, int8_t *y, int n) {
  const float32x4_t lo = vdupq_n_f32((float)(-128 - y_zp)), hi = vdupq_n_f32((float)(127 - y_zp));
  const float32x4_t v0 = vminq_f32(vmaxq_f32(vmulq_f32(vld1q_f32(f), vld1q_f32(scale)), lo), hi);
  const float32x4_t v1 = vminq_f32(vmaxq_f32(vmulq_f32(vld1q_f32(f + 4), vld1q_f32(scale + 4)), lo), hi);
  const int32x4_t zp = vdupq_n_s32(y_zp);
  const int16x8_t w16 = vcombine_s16(vqmovn_s32(vaddq_s32(vcvtnq_s32_f32(v0), zp)), vqmovn_s32(vaddq_s32(vcvtnq_s32_f32(v1), zp)));
  const int8x8_t b8 = vqmovn_s16(w16);
  if (n == 8) {
    vst1_s8(y, b8);
    return;
  }
  int8_t t[8];
  vst1_s8(t, b8);
  for (int i = 0; i < n; i++) y[i] = t[i];
}

void yk_conv16_rows__neon(const yk_conv16 *c, const int16_t *x, void *y, int row0, int row1) {
  yk_conv16_drive(c, x, y, row0, row1, uk_neon, out_neon);
}

#endif
