/* dwconv_neon.c — depthwise 3x3 int8 NHWC convolution, 16 channels per step (AArch64).
 * Same arithmetic as the scalar reference (dwconv_ref.h: the pixel walk and the channel tail):
 * int32 accumulation of (x - x_zp) * w over in-image taps (exact in int16 products when x_zp
 * fits int8, which int8 activations' zero points do; other zero points take the scalar path), then FP32 requantization and the optional LUT.
 * ARMv7 keeps the scalar kernel (its NEON float is not IEEE, see yk_variants.h).
 * The rows form computes output rows [row0, row1) of the flattened n*oh rows. */
#include "yk_variants.h"

#if YK_ARCH_AARCH64
#include "dwconv_ref.h"
#include "yk_neon_inline.h"

void yk_dwconv_rows__neon(const yk_dwconv *d, const int8_t *x, int8_t *y, int row0, int row1) {
  const int8_t *w = d->weights;
  const int32_t *bias = d->bias;
  const yk_dw_params *p = &d->p;
  if (p->x_zp < INT8_MIN || p->x_zp > INT8_MAX) {
    yk_dwconv_rows__scalar(d, x, y, row0, row1);
    return;
  }
  const int C = p->c;
  const int16x8_t xzp = vdupq_n_s16((int16_t)p->x_zp);
  const int32x4_t yzp = vdupq_n_s32(p->y_zp);
  uint8x16x4_t lut[4];
  if (p->lut)
    for (int k = 0; k < 4; k++) lut[k] = vld1q_u8_x4((const uint8_t *)p->lut + 64 * k);
  const int cvec = C - C % 16;
  for (int row = row0; row < row1; row++)
    for (int ox = 0; ox < p->ow; ox++) {
      const yk_dw_pixel px = yk_dw_pixel_at(p, y, row, ox);
      const int b = px.b, iy0 = px.iy0, ix0 = px.ix0;
      int8_t *out = px.out;
      for (int c = 0; c < cvec; c += 16) {
        int32x4_t a0, a1, a2, a3;
        if (bias) {
          a0 = vld1q_s32(bias + c);
          a1 = vld1q_s32(bias + c + 4);
          a2 = vld1q_s32(bias + c + 8);
          a3 = vld1q_s32(bias + c + 12);
        } else {
          a0 = a1 = a2 = a3 = vdupq_n_s32(0);
        }
        for (int ky = px.ky0; ky < px.ky1; ky++)
          for (int kx = px.kx0; kx < px.kx1; kx++) {
            const int8x16_t xv =
                vld1q_s8(x + (((size_t)b * p->h + (iy0 + ky)) * p->w + (ix0 + kx)) * C + c);
            const int8x16_t wv = vld1q_s8(w + (size_t)(ky * 3 + kx) * C + c);
            /* x - x_zp lies in [-255, 255]: exact in int16, and so is its product with w
             * once widened by vmlal into int32. */
            const int16x8_t xl = vsubq_s16(vmovl_s8(vget_low_s8(xv)), xzp);
            const int16x8_t xh = vsubq_s16(vmovl_s8(vget_high_s8(xv)), xzp);
            const int16x8_t wl = vmovl_s8(vget_low_s8(wv)), wh = vmovl_s8(vget_high_s8(wv));
            a0 = vmlal_s16(a0, vget_low_s16(xl), vget_low_s16(wl));
            a1 = vmlal_high_s16(a1, xl, wl);
            a2 = vmlal_s16(a2, vget_low_s16(xh), vget_low_s16(wh));
            a3 = vmlal_high_s16(a3, xh, wh);
          }
        const float *rs = p->requant_scale + c;
        int8x16_t q = yk_neon_pack_q(yk_neon_round_q(vmulq_f32(vcvtq_f32_s32(a0), vld1q_f32(rs))),
                                     yk_neon_round_q(vmulq_f32(vcvtq_f32_s32(a1), vld1q_f32(rs + 4))),
                                     yk_neon_round_q(vmulq_f32(vcvtq_f32_s32(a2), vld1q_f32(rs + 8))),
                                     yk_neon_round_q(vmulq_f32(vcvtq_f32_s32(a3), vld1q_f32(rs + 12))),
                                     yzp);
        if (p->lut) {
          const uint8x16_t idx = veorq_u8(vreinterpretq_u8_s8(q), vdupq_n_u8(128));
          uint8x16_t r = vqtbl4q_u8(lut[0], idx);
          r = vqtbx4q_u8(r, lut[1], vsubq_u8(idx, vdupq_n_u8(64)));
          r = vqtbx4q_u8(r, lut[2], vsubq_u8(idx, vdupq_n_u8(128)));
          r = vqtbx4q_u8(r, lut[3], vsubq_u8(idx, vdupq_n_u8(192)));
          q = vreinterpretq_s8_u8(r);
        }
        vst1q_s8(out + c, q);
      }
      if (cvec < C) yk_dw_ref_channels(d, x, &px, cvec, C - cvec);
    }
}

#endif
