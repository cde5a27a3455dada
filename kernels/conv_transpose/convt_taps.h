/* convt_taps.h — internal to kernels/conv_transpose: which input row (or column) a tap of a
 * transposed convolution reads, and one output pixel in the portable form, shared by every
 * variant. */
#ifndef YOLORT_CONVT_TAPS_H
#define YOLORT_CONVT_TAPS_H

#include <stddef.h>
#include <stdint.h>

#include "yk_conv_transpose.h"

/* Output position o through tap k (dilation d, stride s, padding pad) reads input position
 * (o + pad - k d) / s of n when that divides evenly and is inside; else -1. */
static inline int yk_convt_src(int o, int pad, int k, int d, int s, int n) {
  const int v = o + pad - k * d;
  if (v < 0 || v % s) return -1;
  return v / s < n ? v / s : -1;
}

/* Channels [o0, o1) of group g of output pixel (oy, ox) into acc (the pixel's co values), in
 * the reference's order: bias, taps from the last, input channels ascending. The portable form,
 * and the AVX2 variant's channels past its last whole register. */
static inline void yk_convt_pixel(const yk_convt_params *p, const float *x, const float *packed, const float *bias,
                                  float *acc, int oy, int ox, int g, int o0, int o1) {
  const int cig = p->ci / p->group, cog = p->co / p->group;
  float *a = acc + (size_t)g * (size_t)cog;
  for (int o = o0; o < o1; o++) a[o] = bias ? bias[(size_t)g * (size_t)cog + (size_t)o] : 0.0f;
  for (int ky = p->kh - 1; ky >= 0; ky--) {
    const int iy = yk_convt_src(oy, p->pt, ky, p->dh, p->sh, p->h);
    if (iy < 0) continue;
    for (int kx = p->kw - 1; kx >= 0; kx--) {
      const int ix = yk_convt_src(ox, p->pl, kx, p->dw, p->sw, p->w);
      if (ix < 0) continue;
      const float *xv = x + ((size_t)iy * (size_t)p->w + (size_t)ix) * (size_t)p->ci;
      const float *wt = packed + ((size_t)ky * (size_t)p->kw + (size_t)kx) * (size_t)p->ci * (size_t)cog;
      for (int c = g * cig; c < (g + 1) * cig; c++) {
        const float v = xv[c];
        const float *wr = wt + (size_t)c * (size_t)cog;
        for (int o = o0; o < o1; o++) a[o] += v * wr[o];
      }
    }
  }
}

/* The int8 form's two input channels c, c + 1 (c + 1 < c_end, else 0) minus the zero point as
 * the int16 pair one vpmaddwd lane takes: low half channel c. */
static inline int32_t yk_convt_pair(const int8_t *xv, int c, int c_end, int32_t zp) {
  const int32_t a = (int32_t)xv[c] - zp, b = c + 1 < c_end ? (int32_t)xv[c + 1] - zp : 0;
  return (int32_t)(((uint32_t)(uint16_t)(int16_t)a) | ((uint32_t)(uint16_t)(int16_t)b << 16));
}

#endif
