/* conv_transpose_f32_avx2.c — the row-gather ConvTranspose (yk_conv_transpose.h) with 8 output
 * channels a register, 64 (or 32, 8) at a time held in registers over every tap and input channel
 * of an output pixel. Multiply, then add (no FMA), in the reference's order: bit-equal to it. */
#include <immintrin.h>

#include "convt_taps.h"
#include "yk_conv_transpose.h"

/* Channels [o0, o0 + 8 nb) of group g of output pixel (oy, ox), nb 1..8 registers. Always
 * inlined with a constant nb, so the accumulators stay in registers. */
static inline __attribute__((always_inline)) void pixel_block(const yk_convt_params *p, const float *x, const float *packed, const float *bias,
                               float *acc, int oy, int ox, int g, int o0, int nb) {
  const int cig = p->ci / p->group, cog = p->co / p->group, go = g * cog;
  __m256 a[8];
  for (int r = 0; r < nb; r++) a[r] = bias ? _mm256_loadu_ps(bias + go + o0 + 8 * r) : _mm256_setzero_ps();
  for (int ky = p->kh - 1; ky >= 0; ky--) {
    const int iy = yk_convt_src(oy, p->pt, ky, p->dh, p->sh, p->h);
    if (iy < 0) continue;
    for (int kx = p->kw - 1; kx >= 0; kx--) {
      const int ix = yk_convt_src(ox, p->pl, kx, p->dw, p->sw, p->w);
      if (ix < 0) continue;
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

/* Kernel equal to stride, no dilation (the segment prototype's 2x2 stride 2 upsample): each output
 * pixel takes at most one tap, and the pixels of one row with the same kx share its weights: 4 of
 * them x 16 channels a block (8 accumulators), each weight load serving 4 pixels. Per output the
 * same operations as the reference (bias, then one tap's channels ascending). */
static void row_one_tap(const yk_convt_params *p, const float *x, const float *packed, const float *bias, float *y,
                        int oy) {
  const int cig = p->ci / p->group, cog = p->co / p->group;
  float *yrow = y + (size_t)oy * (size_t)p->ow * (size_t)p->co;
  const int ny = oy + p->pt, ky = ny % p->sh, iy = ny / p->sh;
  /* pixels no tap reaches (output padding) take the bias; the rest are written below */
  for (int ox = 0; ox < p->ow; ox++) {
    const int ix = (ox + p->pl) / p->sw;
    if (iy < p->h && ix < p->w) continue;
    for (int o = 0; o < p->co; o++) yrow[(size_t)ox * (size_t)p->co + (size_t)o] = bias ? bias[o] : 0.0f;
  }
  if (iy >= p->h) return;
  for (int kx = 0; kx < p->kw; kx++) {
    /* ox = ix sw + kx - pl in [0, ow), ix in [0, w) */
    int ix0 = 0;
    while (ix0 < p->w && ix0 * p->sw + kx - p->pl < 0) ix0++;
    int ix1 = ix0;
    while (ix1 < p->w && ix1 * p->sw + kx - p->pl < p->ow) ix1++;
    const float *wt = packed + ((size_t)ky * (size_t)p->kw + (size_t)kx) * (size_t)p->ci * (size_t)cog;
    const float *xrow = x + (size_t)iy * (size_t)p->w * (size_t)p->ci;
    for (int g = 0; g < p->group; g++) {
      const int go = g * cog;
      int o0 = 0;
      for (; o0 + 16 <= cog; o0 += 16) {
        int ix = ix0;
        for (; ix + 4 <= ix1; ix += 4) {
          __m256 a[4][2];
          for (int j = 0; j < 4; j++)
            for (int r = 0; r < 2; r++) a[j][r] = bias ? _mm256_loadu_ps(bias + go + o0 + 8 * r) : _mm256_setzero_ps();
          for (int c = g * cig; c < (g + 1) * cig; c++) {
            const float *wr = wt + (size_t)c * (size_t)cog + o0;
            const __m256 w0 = _mm256_loadu_ps(wr), w1 = _mm256_loadu_ps(wr + 8);
            for (int j = 0; j < 4; j++) {
              const __m256 v = _mm256_broadcast_ss(xrow + (size_t)(ix + j) * (size_t)p->ci + c);
              a[j][0] = _mm256_add_ps(a[j][0], _mm256_mul_ps(v, w0));
              a[j][1] = _mm256_add_ps(a[j][1], _mm256_mul_ps(v, w1));
            }
          }
          for (int j = 0; j < 4; j++) {
            float *out = yrow + (size_t)((ix + j) * p->sw + kx - p->pl) * (size_t)p->co + (size_t)(go + o0);
            _mm256_storeu_ps(out, a[j][0]);
            _mm256_storeu_ps(out + 8, a[j][1]);
          }
        }
        for (; ix < ix1; ix++) {
          __m256 a0 = bias ? _mm256_loadu_ps(bias + go + o0) : _mm256_setzero_ps();
          __m256 a1 = bias ? _mm256_loadu_ps(bias + go + o0 + 8) : _mm256_setzero_ps();
          for (int c = g * cig; c < (g + 1) * cig; c++) {
            const float *wr = wt + (size_t)c * (size_t)cog + o0;
            const __m256 v = _mm256_broadcast_ss(xrow + (size_t)ix * (size_t)p->ci + c);
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(v, _mm256_loadu_ps(wr)));
            a1 = _mm256_add_ps(a1, _mm256_mul_ps(v, _mm256_loadu_ps(wr + 8)));
          }
          float *out = yrow + (size_t)(ix * p->sw + kx - p->pl) * (size_t)p->co + (size_t)(go + o0);
          _mm256_storeu_ps(out, a0);
          _mm256_storeu_ps(out + 8, a1);
        }
      }
      for (int ix = ix0; ix < ix1; ix++) /* channels past the last 16 */
        for (int o = o0; o < cog; o++) {
          float a = bias ? bias[go + o] : 0.0f;
          for (int c = g * cig; c < (g + 1) * cig; c++)
            a += xrow[(size_t)ix * (size_t)p->ci + (size_t)c] * wt[(size_t)c * (size_t)cog + (size_t)o];
          yrow[(size_t)(ix * p->sw + kx - p->pl) * (size_t)p->co + (size_t)(go + o)] = a;
        }
    }
  }
}

void yk_conv_transpose_f32_rows__avx2(const yk_convt_params *p, const float *x, const float *packed,
                                      const float *bias, float *y, int oy0, int oy1) {
  const int cog = p->co / p->group;
  if (p->kh == p->sh && p->kw == p->sw && p->dh == 1 && p->dw == 1) {
    for (int oy = oy0; oy < oy1; oy++) row_one_tap(p, x, packed, bias, y, oy);
    return;
  }
  for (int oy = oy0; oy < oy1; oy++)
    for (int ox = 0; ox < p->ow; ox++) {
      float *acc = y + ((size_t)oy * (size_t)p->ow + (size_t)ox) * (size_t)p->co;
      for (int g = 0; g < p->group; g++) {
        int o0 = 0;
        for (; o0 + 64 <= cog; o0 += 64) pixel_block(p, x, packed, bias, acc, oy, ox, g, o0, 8);
        for (; o0 + 32 <= cog; o0 += 32) pixel_block(p, x, packed, bias, acc, oy, ox, g, o0, 4);
        for (; o0 + 8 <= cog; o0 += 8) pixel_block(p, x, packed, bias, acc, oy, ox, g, o0, 1);
        yk_convt_pixel(p, x, packed, bias, acc, oy, ox, g, o0, cog); /* past the last whole register */
      }
    }
}
