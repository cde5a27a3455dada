/* frame_rows_neon.c — NEON variant of yk_frame_rows (AArch64 and ARMv7), bit-exact to
 * frame_rows_scalar.c: YUV rows 8 pixels at a time — the taps are fetched with scalar loads (NEON
 * has no gather; same clamped second tap as the reference), the bilinear blend in int32 lanes
 * with the 11-bit weights, the BT.601 conversion, then a narrowing and one vst3 interleave — and
 * the int8 store as a byte add when the table is a shift (lut_is_shift); packed RGB / BGR / RGBA /
 * BGRA rows 8 pixels at a time (one 8-byte load per pixel and row holds both taps, see
 * packed_body; the row's last pixels through frame_rows_tail.c). The gray layout, the other
 * stores and the YUV rows' last pixels use the scalar functions. */
#include <arm_neon.h>

#include "frame_rows_internal.h"

#define WB YK_FRAME_WBITS
#define ONE (1 << WB)

/* Taps of 8 pixels of one plane (element `step` bytes apart, channel offset `c`). */
typedef struct taps8 {
  int32_t a0[8], b0[8], a1[8], b1[8], w[8];
} taps8;

static inline void fetch(const uint8_t *r0, const uint8_t *r1, const int32_t *ofs, const int16_t *wt, int limit,
                         int step, int c, taps8 *t) {
  for (int k = 0; k < 8; k++) {
    const int s0 = ofs[k], s1 = s0 + 1 < limit ? s0 + 1 : s0;
    t->a0[k] = r0[s0 * step + c];
    t->b0[k] = r0[s1 * step + c];
    t->a1[k] = r1[s0 * step + c];
    t->b1[k] = r1[s1 * step + c];
    t->w[k] = wt[k];
  }
}

/* (h0 * (ONE - wy) + h1 * wy + 2^(2WB-1)) >> 2WB of pixels [4h, 4h + 4), h0/h1 the horizontal blends. */
static inline int32x4_t lerp4(const taps8 *t, int h, int wy) {
  const int32x4_t w = vld1q_s32(t->w + 4 * h), w1 = vsubq_s32(vdupq_n_s32(ONE), w);
  const int32x4_t h0 = vmlaq_s32(vmulq_s32(vld1q_s32(t->a0 + 4 * h), w1), vld1q_s32(t->b0 + 4 * h), w);
  const int32x4_t h1 = vmlaq_s32(vmulq_s32(vld1q_s32(t->a1 + 4 * h), w1), vld1q_s32(t->b1 + 4 * h), w);
  const int32x4_t s = vmlaq_s32(vmulq_s32(h0, vdupq_n_s32(ONE - wy)), h1, vdupq_n_s32(wy));
  return vshrq_n_s32(vaddq_s32(s, vdupq_n_s32(1 << (2 * WB - 1))), 2 * WB);
}

static inline int32x4_t clamp8(int32x4_t v) {
  return vminq_s32(vshrq_n_s32(vmaxq_s32(v, vdupq_n_s32(0)), 8), vdupq_n_s32(255));
}

static inline uint8x8_t narrow8(int32x4_t lo, int32x4_t hi) {
  return vmovn_u16(vcombine_u16(vmovn_u32(vreinterpretq_u32_s32(lo)), vmovn_u32(vreinterpretq_u32_s32(hi))));
}

void yk_frame_row_yuv__neon(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const yk_frame_job *j = r->j;
  const int cw = (j->src_w + 1) / 2, fmt = j->fmt, full = j->full_range;
  const int32x4_t k128 = vdupq_n_s32(128);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    taps8 ty, tu, tv;
    fetch(r->p0, r->p1, j->x.ofs + x + i, j->x.wt + x + i, j->src_w, 1, 0, &ty);
    if (fmt == YK_PIX_I420) {
      fetch(r->u0, r->u1, j->cx.ofs + x + i, j->cx.wt + x + i, cw, 1, 0, &tu);
      fetch(r->v0, r->v1, j->cx.ofs + x + i, j->cx.wt + x + i, cw, 1, 0, &tv);
    } else {
      fetch(r->u0, r->u1, j->cx.ofs + x + i, j->cx.wt + x + i, cw, 2, fmt == YK_PIX_NV12 ? 0 : 1, &tu);
      fetch(r->u0, r->u1, j->cx.ofs + x + i, j->cx.wt + x + i, cw, 2, fmt == YK_PIX_NV12 ? 1 : 0, &tv);
    }
    int32x4_t R[2], G[2], B[2];
    for (int h = 0; h < 2; h++) {
      const int32x4_t y = lerp4(&ty, h, r->wy);
      const int32x4_t d = vsubq_s32(lerp4(&tu, h, r->wcy), k128), e = vsubq_s32(lerp4(&tv, h, r->wcy), k128);
      const int32x4_t c = full ? vaddq_s32(vshlq_n_s32(y, 8), k128)
                               : vaddq_s32(vmulq_s32(vsubq_s32(y, vdupq_n_s32(16)), vdupq_n_s32(298)), k128);
      R[h] = clamp8(vmlaq_s32(c, e, vdupq_n_s32(full ? 359 : 409)));
      G[h] = clamp8(vmlsq_s32(vmlsq_s32(c, d, vdupq_n_s32(full ? 88 : 100)), e, vdupq_n_s32(full ? 183 : 208)));
      B[h] = clamp8(vmlaq_s32(c, d, vdupq_n_s32(full ? 454 : 516)));
    }
    uint8x8x3_t px;
    px.val[j->bgr ? 2 : 0] = narrow8(R[0], R[1]);
    px.val[1] = narrow8(G[0], G[1]);
    px.val[j->bgr ? 0 : 2] = narrow8(B[0], B[1]);
    vst3_u8(rgb + 3 * i, px);
  }
  if (i < n) yk_frame_row_yuv__scalar(r, x + i, n - i, rgb + 3 * i);
}

/* Packed rows (a yk_frame_packed_body): 8 bytes at s0 * bpp hold both taps of a pixel (s1 = s0 +
 * 1: the loop stops where the 8 bytes would leave the row, so the reference's clamp never applies
 * in it); widened to 16 bits, tap 1's channels are the high half (RGBA) or lanes 3..5 (RGB, one
 * vext). Horizontal and vertical passes in uint32 lanes exactly as the reference (vrshr: + 2^(2WB-1),
 * >> 2WB; when wy = 0 only row 0: (h0 + 2^(WB-1)) >> WB, the same integer), 4 channels of a pixel
 * at once (the 4th dropped); the 8 pixels' 32 bytes -> 24 by three table lookups, which also swap
 * BGR / BGRA. */
static int packed_body(const yk_frame_row *r, const int32_t *o, const int16_t *wt, int src_w, int n, uint8_t *rgb) {
  const int fmt = r->j->fmt, bpp = fmt == YK_PIX_RGB || fmt == YK_PIX_BGR ? 3 : 4;
  const int swap = yk_frame_swap(r->j);
  const int last = src_w * bpp - 8; /* the last byte offset an 8-byte load may start at */
  const uint32_t wy = (uint32_t)r->wy;
  uint8_t sel[24];
  for (int m = 0; m < 24; m++) sel[m] = (uint8_t)(4 * (m / 3) + (swap ? 2 - m % 3 : m % 3));
  const uint8x8_t sel0 = vld1_u8(sel), sel1 = vld1_u8(sel + 8), sel2 = vld1_u8(sel + 16);
  int i = 0;
  for (; i + 8 <= n && o[i + 7] * bpp <= last; i += 8) {
    uint16x4_t v[8];
    for (int k = 0; k < 8; k++) {
      const int b = o[i + k] * bpp;
      const uint16_t wx = (uint16_t)wt[i + k], w0 = (uint16_t)(ONE - wx);
      const uint16x8_t a = vmovl_u8(vld1_u8(r->p0 + b));
      const uint16x4_t a1 = bpp == 4 ? vget_high_u16(a) : vext_u16(vget_low_u16(a), vget_high_u16(a), 3);
      const uint32x4_t h0 = vmlal_n_u16(vmull_n_u16(vget_low_u16(a), w0), a1, wx);
      if (wy == 0) {
        v[k] = vmovn_u32(vrshrq_n_u32(h0, WB));
        continue;
      }
      const uint16x8_t c = vmovl_u8(vld1_u8(r->p1 + b));
      const uint16x4_t c1 = bpp == 4 ? vget_high_u16(c) : vext_u16(vget_low_u16(c), vget_high_u16(c), 3);
      const uint32x4_t h1 = vmlal_n_u16(vmull_n_u16(vget_low_u16(c), w0), c1, wx);
      v[k] = vmovn_u32(vrshrq_n_u32(vmlaq_n_u32(vmulq_n_u32(h0, ONE - wy), h1, wy), 2 * WB));
    }
    uint8x8x4_t px; /* pixels 2t, 2t + 1: 4 bytes each */
    for (int t = 0; t < 4; t++) px.val[t] = vmovn_u16(vcombine_u16(v[2 * t], v[2 * t + 1]));
    vst1_u8(rgb + 3 * i, vtbl4_u8(px, sel0));
    vst1_u8(rgb + 3 * i + 8, vtbl4_u8(px, sel1));
    vst1_u8(rgb + 3 * i + 16, vtbl4_u8(px, sel2));
  }
  return i;
}

void yk_frame_row_packed__neon(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const int i = packed_body(r, r->j->x.ofs + x, r->j->x.wt + x, r->j->src_w, n, rgb);
  if (i < n) yk_frame_packed_tail(r, x + i, n - i, rgb + 3 * i, packed_body);
}

void yk_frame_store__neon(const yk_frame_job *j, size_t at, const uint8_t *rgb, int n) {
  if (!j->out_i8 || !j->lut_is_shift) {
    yk_frame_store__scalar(j, at, rgb, n);
    return;
  }
  int8_t *o = (int8_t *)j->dst + at;
  const uint8x16_t k = vdupq_n_u8((uint8_t)j->lut_shift);
  const int m = 3 * n;
  int i = 0;
  for (; i + 16 <= m; i += 16) vst1q_s8(o + i, vreinterpretq_s8_u8(vaddq_u8(vld1q_u8(rgb + i), k)));
  for (; i < m; i++) o[i] = j->lut_i8[rgb[i]];
}

void yk_frame_rows__neon(const yk_frame_job *j, int r0, int r1) {
  static const yk_frame_ops ops = {yk_frame_row_packed__neon, yk_frame_row_gray__scalar, yk_frame_row_yuv__neon,
                                   yk_frame_store__neon};
  yk_frame_drive(j, r0, r1, &ops);
}
