/* conv_ref.c — scalar reference convolutions (see conv_ref.h). Plain loops, no tricks. */
#include "conv_ref.h"

#include <math.h>
#include <stddef.h>

void yrt_conv_ref_f32(const yrt_conv_geom *g, const float *x, const float *w, const float *bias,
                      float out_min, float out_max, float *y) {
  const int cig = g->cin / g->groups, cog = g->cout / g->groups;
  for (int b = 0; b < g->n; b++)
    for (int oy = 0; oy < g->oh; oy++)
      for (int ox = 0; ox < g->ow; ox++)
        for (int oc = 0; oc < g->cout; oc++) {
          const int grp = oc / cog;
          float acc = bias ? bias[oc] : 0.0f;
          for (int ky = 0; ky < g->kh; ky++) {
            const int iy = oy * g->sh - g->pad_t + ky * g->dh;
            if (iy < 0 || iy >= g->h) continue;
            for (int kx = 0; kx < g->kw; kx++) {
              const int ix = ox * g->sw - g->pad_l + kx * g->dw;
              if (ix < 0 || ix >= g->w) continue;
              const float *xp = x + (((size_t)b * g->h + iy) * g->w + ix) * g->cin + (size_t)grp * cig;
              const float *wp = w + (((size_t)oc * g->kh + ky) * g->kw + kx) * cig;
              for (int ic = 0; ic < cig; ic++) acc += xp[ic] * wp[ic];
            }
          }
          acc = acc < out_min ? out_min : (acc > out_max ? out_max : acc);
          y[(((size_t)b * g->oh + oy) * g->ow + ox) * g->cout + oc] = acc;
        }
}

void yrt_conv_ref_i8(const yrt_conv_geom *g, const int8_t *x, int32_t x_zp, const int8_t *w,
                     const int32_t *bias, const float *requant_scale, int32_t y_zp, int8_t out_min,
                     int8_t out_max, int8_t *y) {
  const int cig = g->cin / g->groups, cog = g->cout / g->groups;
  const float lo = (float)(out_min - y_zp), hi = (float)(out_max - y_zp);
  for (int b = 0; b < g->n; b++)
    for (int oy = 0; oy < g->oh; oy++)
      for (int ox = 0; ox < g->ow; ox++)
        for (int oc = 0; oc < g->cout; oc++) {
          const int grp = oc / cog;
          int32_t acc = bias ? bias[oc] : 0;
          for (int ky = 0; ky < g->kh; ky++) {
            const int iy = oy * g->sh - g->pad_t + ky * g->dh;
            if (iy < 0 || iy >= g->h) continue;
            for (int kx = 0; kx < g->kw; kx++) {
              const int ix = ox * g->sw - g->pad_l + kx * g->dw;
              if (ix < 0 || ix >= g->w) continue;
              const int8_t *xp = x + (((size_t)b * g->h + iy) * g->w + ix) * g->cin + (size_t)grp * cig;
              const int8_t *wp = w + (((size_t)oc * g->kh + ky) * g->kw + kx) * cig;
              /* int32 wraps like XNNPACK's accumulators would; done in unsigned to stay defined. */
              uint32_t s = (uint32_t)acc;
              for (int ic = 0; ic < cig; ic++) s += (uint32_t)((xp[ic] - x_zp) * wp[ic]);
              acc = (int32_t)s;
            }
          }
          /* Clamp in float first (as XNNPACK does), then round half to even (default FE mode). */
          float v = (float)acc * requant_scale[oc];
          v = v < lo ? lo : (v > hi ? hi : v);
          y[(((size_t)b * g->oh + oy) * g->ow + ox) * g->cout + oc] = (int8_t)(lrintf(v) + y_zp);
        }
}
