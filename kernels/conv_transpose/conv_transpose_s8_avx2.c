/* conv_transpose_s8_avx2.c — the int8 row-gather ConvTranspose (yk_conv_transpose.h) with 8
 * output channels a register, 64 (or 32, 8) held over every tap and input-channel pair of an
 * output pixel: one vpmaddwd sums two channels' products into int32 (exact, as the reference),
 * the int8 conv's requantization after. */
#include <immintrin.h>

#include "convt_taps.h"
#include "yk_conv_transpose.h"
#include "yk_qconv.h"

/* Channels [o0, o0 + 8 nb) of group g of output pixel (oy, ox), nb 1..8 registers; always
 * inlined with a constant nb, so the accumulators stay in registers. */
static inline __attribute__((always_inline)) void pixel_block(const yk_convt_params *p, const yk_convt_q8 *q,
                                                              const int8_t *x, const int16_t *packed, int8_t *out,
                                                              int oy, int ox, int g, int o0, int nb) {
  const int cig = p->ci / p->group, cog = p->co / p->group, go = g * cog, jp = (cig + 1) / 2;
  __m256i a[8];
  for (int r = 0; r < nb; r++)
    a[r] = q->bias ? _mm256_loadu_si256((const __m256i *)(const void *)(q->bias + go + o0 + 8 * r)) : _mm256_setzero_si256();
  for (int ky = 0; ky < p->kh; ky++) {
    const int iy = yk_convt_src(oy, p->pt, ky, p->dh, p->sh, p->h);
    if (iy < 0) continue;
    for (int kx = 0; kx < p->kw; kx++) {
      const int ix = yk_convt_src(ox, p->pl, kx, p->dw, p->sw, p->w);
      if (ix < 0) continue;
      const int8_t *xv = x + ((size_t)iy * (size_t)p->w + (size_t)ix) * (size_t)p->ci;
      const int16_t *wt = packed + (((size_t)ky * (size_t)p->kw + (size_t)kx) * (size_t)p->group + (size_t)g) *
                                       (size_t)jp * (size_t)cog * 2 + (size_t)o0 * 2;
      for (int j = 0; j < jp; j++) {
        const __m256i v = _mm256_set1_epi32(yk_convt_pair(xv, g * cig + 2 * j, (g + 1) * cig, q->x_zp));
        const int16_t *wr = wt + (size_t)j * (size_t)cog * 2;
        for (int r = 0; r < nb; r++)
          a[r] = _mm256_add_epi32(a[r], _mm256_madd_epi16(v, _mm256_loadu_si256((const __m256i *)(const void *)(wr + 16 * r))));
      }
    }
  }
  const __m256 lo = _mm256_set1_ps((float)(-128 - q->y_zp)), hi = _mm256_set1_ps((float)(127 - q->y_zp));
  const __m256i zp = _mm256_set1_epi32(q->y_zp);
  for (int r = 0; r < nb; r++) {
    __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(a[r]), _mm256_loadu_ps(q->scale + go + o0 + 8 * r));
    f = _mm256_min_ps(_mm256_max_ps(f, lo), hi); /* the reference's clamp, then round half even */
    const __m256i i = _mm256_add_epi32(_mm256_cvtps_epi32(f), zp);
    const __m128i s16 = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    _mm_storel_epi64((__m128i *)(void *)(out + go + o0 + 8 * r), _mm_packs_epi16(s16, s16));
  }
}

/* Channels [o0, cog) past the last whole register, as the portable form. */
static void pixel_tail(const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x, const int16_t *packed,
                       int8_t *out, int oy, int ox, int g, int o0) {
  const int cig = p->ci / p->group, cog = p->co / p->group, go = g * cog, jp = (cig + 1) / 2;
  int32_t acc[8];
  for (int o = o0; o < cog; o++) acc[o - o0] = q->bias ? q->bias[go + o] : 0;
  for (int ky = 0; ky < p->kh; ky++) {
    const int iy = yk_convt_src(oy, p->pt, ky, p->dh, p->sh, p->h);
    if (iy < 0) continue;
    for (int kx = 0; kx < p->kw; kx++) {
      const int ix = yk_convt_src(ox, p->pl, kx, p->dw, p->sw, p->w);
      if (ix < 0) continue;
      const int8_t *xv = x + ((size_t)iy * (size_t)p->w + (size_t)ix) * (size_t)p->ci;
      const int16_t *wt = packed + (((size_t)ky * (size_t)p->kw + (size_t)kx) * (size_t)p->group + (size_t)g) *
                                       (size_t)jp * (size_t)cog * 2;
      for (int j = 0; j < jp; j++) {
        const int32_t pr = yk_convt_pair(xv, g * cig + 2 * j, (g + 1) * cig, q->x_zp);
        const int32_t a = (int16_t)(pr & 0xFFFF), b = (int16_t)((uint32_t)pr >> 16);
        const int16_t *wr = wt + (size_t)j * (size_t)cog * 2;
        for (int o = o0; o < cog; o++) acc[o - o0] += a * wr[2 * o] + b * wr[2 * o + 1];
      }
    }
  }
  for (int o = o0; o < cog; o++) out[go + o] = yk_qconv_requant(acc[o - o0], q->scale[go + o], q->y_zp);
}

void yk_conv_transpose_s8_rows__avx2(const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x,
                                     const int16_t *packed, int8_t *y, int oy0, int oy1) {
  const int cog = p->co / p->group;
  for (int oy = oy0; oy < oy1; oy++)
    for (int ox = 0; ox < p->ow; ox++) {
      int8_t *out = y + ((size_t)oy * (size_t)p->ow + (size_t)ox) * (size_t)p->co;
      for (int g = 0; g < p->group; g++) {
        int o0 = 0;
        for (; o0 + 64 <= cog; o0 += 64) pixel_block(p, q, x, packed, out, oy, ox, g, o0, 8);
        for (; o0 + 32 <= cog; o0 += 32) pixel_block(p, q, x, packed, out, oy, ox, g, o0, 4);
        for (; o0 + 8 <= cog; o0 += 8) pixel_block(p, q, x, packed, out, oy, ox, g, o0, 1);
        if (o0 < cog) pixel_tail(p, q, x, packed, out, oy, ox, g, o0);
      }
    }
}
