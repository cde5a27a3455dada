/* conv_ref.c — scalar reference convolutions (see conv_ref.h). Plain loops, no tricks. */
#include "conv_ref.h"

#include <math.h>
#include <stddef.h>

/* The NHWC / [cout][kh][kw][cin/groups] index arithmetic both references share. */

/* Element offset in x of the first channel of group grp read by tap (ky, kx) of output pixel
 * (b, oy, ox); -1 when that tap falls in the padding. */
static ptrdiff_t tap_x(const yrt_conv_geom *g, int b, int oy, int ox, int ky, int kx, int grp) {
  const int iy = oy * g->sh - g->pad_t + ky * g->dh;
  const int ix = ox * g->sw - g->pad_l + kx * g->dw;
  if (iy < 0 || iy >= g->h || ix < 0 || ix >= g->w) return -1;
  const size_t xs = (size_t)(g->xs ? g->xs : g->cin);
  return (ptrdiff_t)((((size_t)b * g->h + iy) * g->w + ix) * xs + (size_t)grp * (g->cin / g->groups));
}

/* Element offset in w of output channel oc's weights for tap (ky, kx). */
static size_t tap_w(const yrt_conv_geom *g, int oc, int ky, int kx) {
  return (((size_t)oc * g->kh + ky) * g->kw + kx) * (size_t)(g->cin / g->groups);
}

static size_t y_index(const yrt_conv_geom *g, int b, int oy, int ox, int oc) {
  return (((size_t)b * g->oh + oy) * g->ow + ox) * (size_t)(g->ys ? g->ys : g->cout) + oc;
}

void yrt_conv_ref_f32(const yrt_conv_geom *g, const float *x, const float *w, const float *bias,
                      float out_min, float out_max, float *y) {
  const int cig = g->cin / g->groups, cog = g->cout / g->groups;
  for (int b = 0; b < g->n; b++)
    for (int oy = 0; oy < g->oh; oy++)
      for (int ox = 0; ox < g->ow; ox++)
        for (int oc = 0; oc < g->cout; oc++) {
          float acc = bias ? bias[oc] : 0.0f;
          for (int ky = 0; ky < g->kh; ky++)
            for (int kx = 0; kx < g->kw; kx++) {
              const ptrdiff_t xo = tap_x(g, b, oy, ox, ky, kx, oc / cog);
              if (xo < 0) continue;
              const float *xp = x + xo, *wp = w + tap_w(g, oc, ky, kx);
              for (int ic = 0; ic < cig; ic++) acc += xp[ic] * wp[ic];
            }
          acc = acc < out_min ? out_min : (acc > out_max ? out_max : acc);
          y[y_index(g, b, oy, ox, oc)] = acc;
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
          int32_t acc = bias ? bias[oc] : 0;
          for (int ky = 0; ky < g->kh; ky++)
            for (int kx = 0; kx < g->kw; kx++) {
              const ptrdiff_t xo = tap_x(g, b, oy, ox, ky, kx, oc / cog);
              if (xo < 0) continue;
              const int8_t *xp = x + xo, *wp = w + tap_w(g, oc, ky, kx);
              /* int32 wraps like XNNPACK's accumulators would; done in unsigned to stay defined. */
              uint32_t s = (uint32_t)acc;
              for (int ic = 0; ic < cig; ic++) s += (uint32_t)((xp[ic] - x_zp) * wp[ic]);
              acc = (int32_t)s;
            }
          /* Clamp in float first (as XNNPACK does), then round half to even (default FE mode). */
          float v = (float)acc * requant_scale[oc];
          v = v < lo ? lo : (v > hi ? hi : v);
          y[y_index(g, b, oy, ox, oc)] = (int8_t)(lrintf(v) + y_zp);
        }
}

void yrt_conv_ref_dyn(const yrt_conv_geom *g, const int8_t *x, int32_t x_zp, const int8_t *w,
                      const int32_t *woff, const float *scale, const float *bias, float *y) {
  const int cig = g->cin / g->groups, cog = g->cout / g->groups;
  for (int b = 0; b < g->n; b++)
    for (int oy = 0; oy < g->oh; oy++)
      for (int ox = 0; ox < g->ow; ox++)
        for (int oc = 0; oc < g->cout; oc++) {
          const int32_t k = woff ? woff[oc] : 0;
          int64_t acc = 0; /* |(x - zp) * (w + k)| <= 255 * 255 per product: int64 never wraps */
          for (int ky = 0; ky < g->kh; ky++)
            for (int kx = 0; kx < g->kw; kx++) {
              const ptrdiff_t xo = tap_x(g, b, oy, ox, ky, kx, oc / cog);
              if (xo < 0) continue;
              const int8_t *xp = x + xo, *wp = w + tap_w(g, oc, ky, kx);
              for (int ic = 0; ic < cig; ic++) acc += (int64_t)(xp[ic] - x_zp) * (wp[ic] + k);
            }
          /* two statements: no compiler may fuse them into one FMA (onnxruntime rounds twice) */
          const float v = (float)acc * scale[oc];
          y[y_index(g, b, oy, ox, oc)] = bias ? v + bias[oc] : v;
        }
}
