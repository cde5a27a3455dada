/* conv_transpose_s8.c — int8 ConvTranspose, NHWC (yk_conv_transpose.h): the weight packing into
 * int16 channel pairs, the dispatch, the portable row-gather form and the scatter reference. */
#include <string.h>

#include "convt_taps.h"
#include "yk_conv_transpose.h"
#include "yk_qconv.h"

size_t yk_conv_transpose_s8_packed_elems(const yk_convt_params *p) {
  const size_t cig = (size_t)(p->ci / p->group), jp = (cig + 1) / 2;
  return (size_t)p->kh * (size_t)p->kw * (size_t)p->group * jp * (size_t)(p->co / p->group) * 2;
}

void yk_conv_transpose_s8_pack(const yk_convt_params *p, const int8_t *w, int16_t *packed) {
  const size_t cig = (size_t)(p->ci / p->group), cog = (size_t)(p->co / p->group), jp = (cig + 1) / 2;
  const size_t taps = (size_t)p->kh * (size_t)p->kw, G = (size_t)p->group;
  for (size_t t = 0; t < taps; t++)
    for (size_t g = 0; g < G; g++)
      for (size_t j = 0; j < jp; j++)
        for (size_t o = 0; o < cog; o++)
          for (size_t h = 0; h < 2; h++) {
            const size_t cl = 2 * j + h, c = g * cig + cl;
            packed[((((t * G + g) * jp + j) * cog + o) * 2) + h] =
                cl < cig ? (int16_t)w[(c * cog + o) * taps + t] : (int16_t)0;
          }
}

void yk_conv_transpose_s8_rows(const yk_isa *isa, const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x,
                               const int16_t *packed, int8_t *y, int oy0, int oy1) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_conv_transpose_s8_rows__avx2(p, q, x, packed, y, oy0, oy1);
    return;
  }
#endif
  (void)isa;
  yk_conv_transpose_s8_rows__scalar(p, q, x, packed, y, oy0, oy1);
}

/* Channels are summed 64 at a time in a stack block (no allocation). */
enum { CONVT_S8_BLOCK = 64 };

void yk_conv_transpose_s8_rows__scalar(const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x,
                                       const int16_t *packed, int8_t *y, int oy0, int oy1) {
  const int cig = p->ci / p->group, cog = p->co / p->group, jp = (cig + 1) / 2;
  for (int oy = oy0; oy < oy1; oy++)
    for (int ox = 0; ox < p->ow; ox++) {
      int8_t *out = y + ((size_t)oy * (size_t)p->ow + (size_t)ox) * (size_t)p->co;
      for (int g = 0; g < p->group; g++)
        for (int o0 = 0; o0 < cog; o0 += CONVT_S8_BLOCK) {
          const int o1 = o0 + CONVT_S8_BLOCK < cog ? o0 + CONVT_S8_BLOCK : cog, go = g * cog;
          int32_t acc[CONVT_S8_BLOCK];
          for (int o = o0; o < o1; o++) acc[o - o0] = q->bias ? q->bias[go + o] : 0;
          for (int ky = 0; ky < p->kh; ky++) {
            const int iy = yk_convt_src(oy, p->pt, ky, p->dh, p->sh, p->h);
            if (iy < 0) continue;
            for (int kx = 0; kx < p->kw; kx++) {
              const int ix = yk_convt_src(ox, p->pl, kx, p->dw, p->sw, p->w);
              if (ix < 0) continue;
              const int8_t *xv = x + ((size_t)iy * (size_t)p->w + (size_t)ix) * (size_t)p->ci;
              const int16_t *wt =
                  packed + (((size_t)ky * (size_t)p->kw + (size_t)kx) * (size_t)p->group + (size_t)g) * (size_t)jp *
                               (size_t)cog * 2;
              for (int j = 0; j < jp; j++) {
                const int32_t pr = yk_convt_pair(xv, g * cig + 2 * j, (g + 1) * cig, q->x_zp);
                const int32_t a = (int16_t)(pr & 0xFFFF), b = (int16_t)((uint32_t)pr >> 16);
                const int16_t *wr = wt + (size_t)j * (size_t)cog * 2;
                for (int o = o0; o < o1; o++) acc[o - o0] += a * wr[2 * o] + b * wr[2 * o + 1];
              }
            }
          }
          for (int o = o0; o < o1; o++) out[go + o] = yk_qconv_requant(acc[o - o0], q->scale[go + o], q->y_zp);
        }
    }
}

void yk_conv_transpose_s8_ref(const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x, const int8_t *w,
                              int32_t *acc, int8_t *y) {
  const int cig = p->ci / p->group, cog = p->co / p->group;
  const size_t npix = (size_t)p->oh * (size_t)p->ow;
  for (size_t i = 0; i < npix; i++)
    for (int o = 0; o < p->co; o++) acc[i * (size_t)p->co + (size_t)o] = q->bias ? q->bias[o] : 0;
  for (int iy = 0; iy < p->h; iy++)
    for (int ix = 0; ix < p->w; ix++)
      for (int c = 0; c < p->ci; c++) {
        const int32_t v = (int32_t)x[((size_t)iy * (size_t)p->w + (size_t)ix) * (size_t)p->ci + (size_t)c] - q->x_zp;
        const int g = c / cig;
        for (int ky = 0; ky < p->kh; ky++) {
          const int oy = iy * p->sh - p->pt + ky * p->dh;
          if (oy < 0 || oy >= p->oh) continue;
          for (int kx = 0; kx < p->kw; kx++) {
            const int ox = ix * p->sw - p->pl + kx * p->dw;
            if (ox < 0 || ox >= p->ow) continue;
            int32_t *a = acc + ((size_t)oy * (size_t)p->ow + (size_t)ox) * (size_t)p->co + (size_t)g * (size_t)cog;
            for (int o = 0; o < cog; o++)
              a[o] += v * w[(((size_t)c * (size_t)cog + (size_t)o) * (size_t)p->kh + (size_t)ky) * (size_t)p->kw + (size_t)kx];
          }
        }
      }
  for (size_t i = 0; i < npix * (size_t)p->co; i++) y[i] = yk_qconv_requant(acc[i], q->scale[i % (size_t)p->co], q->y_zp);
}
