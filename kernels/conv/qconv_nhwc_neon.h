/* qconv_nhwc_neon.h — internal to kernels/conv: what the AArch64 NEON and NEON-dot variants of
 * the int8 NHWC convolution share: the output stage of one pixel's NZ columns of 4 channels.
 *
 * Packed layout (qconv_pack.c), one for both variants: 4 lanes, kr 4, int8 (bytes 4l..4l+3 of
 * a column = output channel l's 4 consecutive K bytes: the operand of SDOT-by-lane, and of SMULL
 * + SADALP without dot product); bias_adj = bias - x_zp * sum(w): activations are used as signed
 * int8 as they are, padded taps read x_zp bytes and so contribute x_zp * w - x_zp * w = 0, as in
 * the reference; segments padded to a multiple of 8 bytes (zero weights) so that the kernels step
 * 8 bytes at a time. The tile driver is every variant's (qconv_segments.h).
 */
#ifndef YOLORT_QCONV_NHWC_NEON_H
#define YOLORT_QCONV_NHWC_NEON_H

#include "qconv_segments.h"

#if YK_ARCH_AARCH64
#include <arm_neon.h>
#include <string.h>

#define YK_QN_MR_MAX 8

/* The reference's requantization on 4 channels: the same float multiply, the same clamp to
 * [lo, hi] (FMAX/FMIN equal the compare chain for every non-NaN value; acc * scale is never NaN
 * for a finite scale), FCVTNS rounds half to even, exactly, on that small range. */
static inline int32x4_t yk_qn_requant4(int32x4_t acc, const float *scale, float32x4_t lo,
                                       float32x4_t hi) {
  float32x4_t v = vmulq_f32(vcvtq_f32_s32(acc), vld1q_f32(scale));
  v = vminq_f32(vmaxq_f32(v, lo), hi);
  return vcvtnq_s32_f32(v);
}

/* Requantize, LUT and store one pixel's NZ columns (acc[z] = channels 4z..4z+3, bias included). */
static inline __attribute__((always_inline)) void yk_qn_output(const qconv_block_args *a, int m,
                                                               const int32x4_t *acc,
                                                               const int NZ) {
  if (a->yf) { /* float output: (float)acc * scale, 4 channels per store */
    float *yo = a->yf + (size_t)m * a->ystride;
    for (int z = 0; z < NZ; z++) {
      const int n = a->nch - 4 * z;
      if (n <= 0) break;
      const float32x4_t v = vmulq_f32(vcvtq_f32_s32(acc[z]), vld1q_f32(a->scale + 4 * z));
      if (n >= 4) {
        vst1q_f32(yo + 4 * z, v);
      } else {
        float t[4];
        vst1q_f32(t, v);
        memcpy(yo + 4 * z, t, sizeof(float) * (size_t)n);
      }
    }
    return;
  }
  const float32x4_t lo = vdupq_n_f32(a->lo), hi = vdupq_n_f32(a->hi);
  const int32x4_t zp = vdupq_n_s32(a->y_zp);
  int16x8_t h01, h23 = vdupq_n_s16(0);
  const int32x4_t q0 = yk_qn_requant4(acc[0], a->scale, lo, hi);
  const int32x4_t q1 = NZ > 1 ? yk_qn_requant4(acc[1], a->scale + 4, lo, hi) : vdupq_n_s32(0);
  /* results lie in [-128, 127] after + zp: the narrowing never saturates */
  h01 = vcombine_s16(vqmovn_s32(vaddq_s32(q0, zp)), vqmovn_s32(vaddq_s32(q1, zp)));
  if (NZ > 2) {
    const int32x4_t q2 = yk_qn_requant4(acc[2], a->scale + 8, lo, hi);
    const int32x4_t q3 = NZ > 3 ? yk_qn_requant4(acc[3], a->scale + 12, lo, hi) : vdupq_n_s32(0);
    h23 = vcombine_s16(vqmovn_s32(vaddq_s32(q2, zp)), vqmovn_s32(vaddq_s32(q3, zp)));
  }
  int8x16_t r = vcombine_s8(vqmovn_s16(h01), vqmovn_s16(h23));
  if (a->lut) {
    const uint8_t *t = (const uint8_t *)a->lut;
    const uint8x16_t idx = veorq_u8(vreinterpretq_u8_s8(r), vdupq_n_u8(128));
    uint8x16_t v = vqtbl4q_u8(vld1q_u8_x4(t), idx);
    v = vqtbx4q_u8(v, vld1q_u8_x4(t + 64), vsubq_u8(idx, vdupq_n_u8(64)));
    v = vqtbx4q_u8(v, vld1q_u8_x4(t + 128), vsubq_u8(idx, vdupq_n_u8(128)));
    v = vqtbx4q_u8(v, vld1q_u8_x4(t + 192), vsubq_u8(idx, vdupq_n_u8(192)));
    r = vreinterpretq_s8_u8(v);
  }
  int8_t *yo = a->y + (size_t)m * a->ystride;
  const int nch = a->nch < 4 * NZ ? a->nch : 4 * NZ;
  if (nch >= 16) {
    vst1q_s8(yo, r);
  } else if (nch == 8) {
    vst1_s8(yo, vget_low_s8(r));
  } else {
    int8_t t[16];
    vst1q_s8(t, r);
    memcpy(yo, t, (size_t)nch);
  }
}
#endif

#endif /* YOLORT_QCONV_NHWC_NEON_H */
