/* conv16_scalar.c — the reference of yk_conv16 (yk_conv16.h): direct loops over the unpacked
 * weights, the K blocks' arithmetic written out, no gather (the packed variants' patch and tile
 * code is what the tests check against it). */
#include "yk_conv16.h"

void yk_conv16_rows__scalar(const yk_conv16 *c, const int16_t *x, void *y, int row0, int row1) {
  const int K = c->kh * c->kw * c->cin;
  for (int r = row0; r < row1; r++) {
    const int b = r / c->oh, oy = r % c->oh;
    for (int ox = 0; ox < c->ow; ox++)
      for (int co = 0; co < c->cout; co++) {
        const int8_t *wc = c->weights + (size_t)co * (size_t)K;
        float f = 0.0f;
        int32_t a = c->bias ? c->bias[co] : 0;
        for (int k = 0; k < K; k++) {
          const int tap = k / c->cin, ci = k % c->cin;
          const int iy = oy * c->sh - c->pad_t + (tap / c->kw) * c->dh;
          const int ix = ox * c->sw - c->pad_l + (tap % c->kw) * c->dw;
          if (iy >= 0 && iy < c->h && ix >= 0 && ix < c->w)
            a += (int32_t)x[(((size_t)b * (size_t)c->h + (size_t)iy) * (size_t)c->w + (size_t)ix) * (size_t)c->cin +
                            (size_t)ci] *
                 wc[k];
          /* a block ends: its exact int32 sum joins the float total */
          if (k + 1 == K || (k + 1) % YK_CONV16_KBLK == 0) {
            f = k < YK_CONV16_KBLK ? (float)a : f + (float)a;
            a = 0;
          }
        }
        const size_t at = ((size_t)r * (size_t)c->ow + (size_t)ox) * (size_t)c->cout + (size_t)co;
        if (c->out16) yk_conv16_out16(&f, &c->scale[co], c, (int16_t *)y + at, 1);
        else ((int8_t *)y)[at] = yk_conv16_out(f, c->scale[co], c->y_zp, c->lut);
      }
  }
}
