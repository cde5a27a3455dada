/* conv_transpose_f32_avx2.c — the row-gather ConvTranspose (yk_conv_transpose.h) with 8 output
 * channels a register, 64 (or 32, 8) at a time held in registers over every tap and input channel
 * of an output pixel. Multiply, then add (no FMA), in the reference's order: bit-equal to it. */
#include <immintrin.h>

#include "yk_conv_transpose.h"

/* Channels [o0, o0 + 8 nb) of group g of output pixel (oy, ox), nb 1..8 registers. Always
 * inlined with a constant nb, so the accumulators stay in registers. */
static inline __attribute__((always_inline)) void pixel_block(const yk_convt_params *p, const float *x, const float *packed, const float *bias,
                               float *acc, int oy, int ox, int g, int o0, int nb) {
  const int cig = p->ci / p->group, cog = p->co / p->group, go = g * cog;
  __m256 a[8];
  for (int r = 0; r < nb; r++) a[r] = bias ? _mm256_loadu_ps(bias + go + o0 + 8 * r) : _mm256_setzero_ps();
  for (int ky = p->kh - 1; ky >= 0; ky--) {
    const int ny = oy + p->pt - ky * p->dh;
    if (ny < 0 || ny % p->sh) continue;
    const int iy = ny / p->sh;
    if (iy >= p->h) continue;
    for (int kx = p->kw - 1; kx >= 0; kx--) {
      const int nx = ox + p->pl - kx * p->dw;
      if (nx < 0 || nx % p->sw) continue;
      const int ix = nx / p->sw;
      if (ix >= p->w) continue;
      const float *xv = x + ((size_t)iy * (size_t)p->w + (size_t)ix) * (size_t)p->ci;
      const float *wt = packed + ((size_t)ky * (size_t)p->kw + (size_t)kx) * (size_t)p->ci * (size_t)cog + o0;
      for (int c = g * cig; c < (g + 1) * cig; c++) {
        const __m256 v = _mm256_broadcast_ss(xv + c);
        const float *wr = wt + (size_t)c * (size_t)cog;
        for (int r = 0; r < nb; r++) a[r] = _mm256_add_ps(a[r], _mm256_mul_ps(v, _mm256_loadu_ps(wr + 8 * r)));
      }
    }
  }
  for (int r = 0; r < nb; r++) _mm256_storeu_ps(acc + go + o0 + 8 * r, a[r]);
}

/* The channels of a group past its last whole register, one at a time in the same order. */
static void pixel_tail(const yk_convt_params *p, const float *x, const float *packed, const float *bias, float *acc,
                       int oy, int ox, int g, int o0) {
  const int cig = p->ci / p->group, cog = p->co / p->group, go = g * cog;
  for (int o = o0; o < cog; o++) {
    float a = bias ? bias[go + o] : 0.0f;
    for (int ky = p->kh - 1; ky >= 0; ky--) {
      const int ny = oy + p->pt - ky * p->dh;
      if (ny < 0 || ny % p->sh || ny / p->sh >= p->h) continue;
      for (int kx = p->kw - 1; kx >= 0; kx--) {
        const int nx = ox + p->pl - kx * p->dw;
        if (nx < 0 || nx % p->sw || nx / p->sw >= p->w) continue;
        const float *xv = x + ((size_t)(ny / p->sh) * (size_t)p->w + (size_t)(nx / p->sw)) * (size_t)p->ci;
        const float *wt = packed + ((size_t)ky * (size_t)p->kw + (size_t)kx) * (size_t)p->ci * (size_t)cog + o;
        for (int c = g * cig; c < (g + 1) * cig; c++) a += xv[c] * wt[(size_t)c * (size_t)cog];
      }
    }
    acc[go + o] = a;
  }
}

void yk_conv_transpose_f32_rows__avx2(const yk_convt_params *p, const float *x, const float *packed,
                                      const float *bias, float *y, int oy0, int oy1) {
  const int cog = p->co / p->group;
  for (int oy = oy0; oy < oy1; oy++)
    for (int ox = 0; ox < p->ow; ox++) {
      float *acc = y + ((size_t)oy * (size_t)p->ow + (size_t)ox) * (size_t)p->co;
      for (int g = 0; g < p->group; g++) {
        int o0 = 0;
        for (; o0 + 64 <= cog; o0 += 64) pixel_block(p, x, packed, bias, acc, oy, ox, g, o0, 8);
        for (; o0 + 32 <= cog; o0 += 32) pixel_block(p, x, packed, bias, acc, oy, ox, g, o0, 4);
        for (; o0 + 8 <= cog; o0 += 8) pixel_block(p, x, packed, bias, acc, oy, ox, g, o0, 1);
        pixel_tail(p, x, packed, bias, acc, oy, ox, g, o0);
      }
    }
}
