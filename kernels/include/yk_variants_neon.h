/*
 * yk_variants_neon.h — internal: the ARM NEON microkernel variants (declared like the x86 ones
 * in yk_variants.h), each bit-exact with its <entry>__scalar reference.
 *
 * Which exist where, and why:
 *   both AArch64 and ARMv7: lut_i8, maxpool_nhwc_i8, detect_over_i8 (integer only).
 *   AArch64 only: detect_over_f32, quantize_f32_i8, dequantize_i8_f32, requant_i8 (and concat_i8, which copies or
 *   requantizes each input), dwconv3x3_i8, and the int8 convolution (yk_qconv.h). They compute in
 *   float, and ARMv7 NEON float arithmetic flushes denormals to zero and has no vector divide
 *   nor round-to-nearest-even conversion, so it cannot match the scalar (VFP, IEEE) reference
 *   bit for bit; ARMv7 keeps the scalar code for them.
 * AArch64 rounding matches yk_inline.h: clamp with FMAXNM/FMINNM (NaN -> -2^22, like
 * yk_qclamp), then FCVTNS (round half to even), + zp, saturating narrow to int8.
 */
#ifndef YOLORT_YK_VARIANTS_NEON_H
#define YOLORT_YK_VARIANTS_NEON_H

#include "yk_variants.h"

#if YK_ARCH_AARCH64 || YK_ARCH_ARMV7
void yk_lut_i8__neon(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]);
void yk_lut_i8_pixels__neon(const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                            const int8_t lut[256]);
void yk_maxpool_nhwc_i8__neon(const int8_t *x, int n, int h, int w, int c, int8_t *y, int oh,
                              int ow, const yk_pool_params *p);
size_t yk_detect_over_i8__neon(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list);
#endif

#if YK_ARCH_AARCH64
void yk_quantize_f32_i8__neon(const float *x, int8_t *y, size_t n, float scale, int32_t zp);
size_t yk_detect_over_f32__neon(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list);
void yk_dequantize_i8_f32__neon(const int8_t *x, float *y, size_t n, float scale, int32_t zp);
void yk_requant_i8__neon(const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy, size_t n);
void yk_concat_i8__neon(const int8_t *const *x, const yk_qparams *qx, const size_t *inner,
                        int n, size_t outer, int8_t *y, yk_qparams qy);
void yk_dwconv3x3_i8__neon(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                           const yk_dw_params *p);
#endif

#endif /* YOLORT_YK_VARIANTS_NEON_H */
