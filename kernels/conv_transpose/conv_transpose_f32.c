/* conv_transpose_f32.c — float ConvTranspose, NHWC (yk_conv_transpose.h): the dispatch, the
 * scatter reference and the portable row-gather form, summing each output in the same order. */
#include <string.h>

#include "convt_taps.h"
#include "yk_conv_transpose.h"

/* Full (uncropped) output extent along one axis. */
static long full_extent(int in, int s, int k, int d) { return (long)(in - 1) * s + (long)(k - 1) * d + 1; }

int yk_conv_transpose_valid(const yk_convt_params *p) {
  if (!p || p->h < 1 || p->w < 1 || p->ci < 1 || p->oh < 1 || p->ow < 1 || p->co < 1) return 0;
  if (p->kh < 1 || p->kw < 1 || p->sh < 1 || p->sw < 1 || p->dh < 1 || p->dw < 1 || p->group < 1) return 0;
  if (p->pt < 0 || p->pl < 0 || p->ci % p->group || p->co % p->group) return 0;
  /* oh = full - pt - pb + output_padding, pb >= 0, 0 <= output_padding < max(stride, dilation) */
  const long fh = full_extent(p->h, p->sh, p->kh, p->dh) - p->pt, fw = full_extent(p->w, p->sw, p->kw, p->dw) - p->pl;
  const long mh = p->sh > p->dh ? p->sh : p->dh, mw = p->sw > p->dw ? p->sw : p->dw;
  return p->oh < fh + mh && p->ow < fw + mw;
}

size_t yk_conv_transpose_packed_floats(const yk_convt_params *p) {
  return (size_t)p->kh * (size_t)p->kw * (size_t)p->ci * (size_t)(p->co / p->group);
}

void yk_conv_transpose_pack(const yk_convt_params *p, const float *w, float *packed) {
  const size_t cog = (size_t)(p->co / p->group), taps = (size_t)p->kh * (size_t)p->kw;
  for (size_t c = 0; c < (size_t)p->ci; c++)
    for (size_t o = 0; o < cog; o++)
      for (size_t t = 0; t < taps; t++) packed[(t * (size_t)p->ci + c) * cog + o] = w[(c * cog + o) * taps + t];
}

static void fill_bias(float *y, const float *bias, int co) {
  if (bias)
    memcpy(y, bias, (size_t)co * sizeof *y);
  else
    memset(y, 0, (size_t)co * sizeof *y);
}

void yk_conv_transpose_f32_rows(const yk_isa *isa, const yk_convt_params *p, const float *x, const float *packed,
                                const float *bias, float *y, int oy0, int oy1) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_conv_transpose_f32_rows__avx2(p, x, packed, bias, y, oy0, oy1);
    return;
  }
#endif
  (void)isa;
  yk_conv_transpose_f32_rows__scalar(p, x, packed, bias, y, oy0, oy1);
}

void yk_conv_transpose_f32_rows__scalar(const yk_convt_params *p, const float *x, const float *packed,
                                        const float *bias, float *y, int oy0, int oy1) {
  const int cog = p->co / p->group;
  for (int oy = oy0; oy < oy1; oy++)
    for (int ox = 0; ox < p->ow; ox++)
      for (int g = 0; g < p->group; g++)
        yk_convt_pixel(p, x, packed, bias, y + ((size_t)oy * (size_t)p->ow + (size_t)ox) * (size_t)p->co, oy, ox, g, 0,
                       cog);
}

void yk_conv_transpose_f32_ref(const yk_convt_params *p, const float *x, const float *w, const float *bias, float *y) {
  const int cig = p->ci / p->group, cog = p->co / p->group;
  for (size_t i = 0; i < (size_t)p->oh * (size_t)p->ow; i++) fill_bias(y + i * (size_t)p->co, bias, p->co);
  for (int iy = 0; iy < p->h; iy++)
    for (int ix = 0; ix < p->w; ix++)
      for (int c = 0; c < p->ci; c++) {
        const float v = x[((size_t)iy * (size_t)p->w + (size_t)ix) * (size_t)p->ci + (size_t)c];
        const int g = c / cig;
        for (int ky = 0; ky < p->kh; ky++) {
          const int oy = iy * p->sh - p->pt + ky * p->dh;
          if (oy < 0 || oy >= p->oh) continue;
          for (int kx = 0; kx < p->kw; kx++) {
            const int ox = ix * p->sw - p->pl + kx * p->dw;
            if (ox < 0 || ox >= p->ow) continue;
            float *out = y + ((size_t)oy * (size_t)p->ow + (size_t)ox) * (size_t)p->co + (size_t)g * (size_t)cog;
            for (int o = 0; o < cog; o++)
              out[o] += v * w[(((size_t)c * (size_t)cog + (size_t)o) * (size_t)p->kh + (size_t)ky) * (size_t)p->kw + (size_t)kx];
          }
        }
      }
}
