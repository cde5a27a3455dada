/* maxpool_nhwc_i8_neon.c — NHWC int8 max pooling, 16 channels per vector (AArch64 and ARMv7). */
#include <arm_neon.h>
#include <stddef.h>

#include "pool_window.h"
#include "yk_variants.h"

void yk_maxpool_nhwc_i8__neon(const int8_t *x, int n, int h, int w, int c, int8_t *y, int oh,
                              int ow, const yk_pool_params *p) {
  const int dh = p->dh > 0 ? p->dh : 1, dw = p->dw > 0 ? p->dw : 1;
  for (int b = 0; b < n; b++)
    for (int oy = 0; oy < oh; oy++) {
      int ky0, ky1;
      yk_pool_taps(oy, p->sh, p->pad_t, dh, p->kh, h, &ky0, &ky1);
      for (int ox = 0; ox < ow; ox++) {
        int kx0, kx1;
        yk_pool_taps(ox, p->sw, p->pad_l, dw, p->kw, w, &kx0, &kx1);
        int8_t *out = y + (((size_t)b * oh + oy) * ow + ox) * c;
        /* Offsets, not pointers: the window origin may lie in the padding. */
        const ptrdiff_t base = (((ptrdiff_t)b * h + (oy * p->sh - p->pad_t)) * w +
                                (ox * p->sw - p->pad_l)) * c;
        int ch = 0;
        for (; ch + 16 <= c; ch += 16) {
          int8x16_t m = vdupq_n_s8(INT8_MIN);
          for (int ky = ky0; ky < ky1; ky++)
            for (int kx = kx0; kx < kx1; kx++)
              m = vmaxq_s8(m, vld1q_s8(x + (base + ((ptrdiff_t)ky * dh * w + (ptrdiff_t)kx * dw) * c + ch)));
          vst1q_s8(out + ch, m);
        }
        for (; ch + 8 <= c; ch += 8) {
          int8x8_t m = vdup_n_s8(INT8_MIN);
          for (int ky = ky0; ky < ky1; ky++)
            for (int kx = kx0; kx < kx1; kx++)
              m = vmax_s8(m, vld1_s8(x + (base + ((ptrdiff_t)ky * dh * w + (ptrdiff_t)kx * dw) * c + ch)));
          vst1_s8(out + ch, m);
        }
        for (; ch < c; ch++) {
          int8_t m = INT8_MIN;
          for (int ky = ky0; ky < ky1; ky++)
            for (int kx = kx0; kx < kx1; kx++) {
              const int8_t v = x[base + ((ptrdiff_t)ky * dh * w + (ptrdiff_t)kx * dw) * c + ch];
              m = v > m ? v : m;
            }
          out[ch] = m;
        }
      }
    }
}
