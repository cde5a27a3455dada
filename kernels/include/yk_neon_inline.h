/*
 * yk_neon_inline.h — internal AArch64 NEON helpers: the vector twins of yk_inline.h's rounding.
 * Include only from *_neon.c / *_neondot.c files built for AArch64.
 */
#ifndef YOLORT_YK_NEON_INLINE_H
#define YOLORT_YK_NEON_INLINE_H

#include <arm_neon.h>

#include "yk_inline.h"

#if YK_ARCH_AARCH64
/* yk_qclamp then yk_round_half_even: FMAXNM/FMINNM return the number when the other operand is
 * NaN, so NaN -> -2^22 exactly as the scalar compare chain does; FCVTNS rounds half to even and
 * is exact on the clamped range. */
static inline int32x4_t yk_neon_round_q(float32x4_t v) {
  v = vmaxnmq_f32(v, vdupq_n_f32(-YK_QCLAMP));
  v = vminnmq_f32(v, vdupq_n_f32(YK_QCLAMP));
  return vcvtnq_s32_f32(v);
}

/* 16 rounded int32 (+ zp) -> 16 saturated int8. */
static inline int8x16_t yk_neon_pack_q(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d,
                                       int32x4_t zp) {
  const int16x8_t lo = vcombine_s16(vqmovn_s32(vaddq_s32(a, zp)), vqmovn_s32(vaddq_s32(b, zp)));
  const int16x8_t hi = vcombine_s16(vqmovn_s32(vaddq_s32(c, zp)), vqmovn_s32(vaddq_s32(d, zp)));
  return vcombine_s8(vqmovn_s16(lo), vqmovn_s16(hi));
}

/* int8 lanes 0-3 / 4-7 / 8-11 / 12-15 minus zp, as float. */
static inline void yk_neon_i8_to_f32(int8x16_t q, int32x4_t zp, float32x4_t out[4]) {
  const int16x8_t lo = vmovl_s8(vget_low_s8(q)), hi = vmovl_s8(vget_high_s8(q));
  out[0] = vcvtq_f32_s32(vsubq_s32(vmovl_s16(vget_low_s16(lo)), zp));
  out[1] = vcvtq_f32_s32(vsubq_s32(vmovl_s16(vget_high_s16(lo)), zp));
  out[2] = vcvtq_f32_s32(vsubq_s32(vmovl_s16(vget_low_s16(hi)), zp));
  out[3] = vcvtq_f32_s32(vsubq_s32(vmovl_s16(vget_high_s16(hi)), zp));
}
#endif

#endif /* YOLORT_YK_NEON_INLINE_H */
