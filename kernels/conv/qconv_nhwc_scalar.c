/* qconv_nhwc_scalar.c — portable reference of the int8 NHWC convolution (see yk_qconv.h). */
#include "yk_qconv.h"

void yk_qconv_rows__scalar(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  const size_t xs = yk_qconv_xs(c), ys = yk_qconv_ys(c), img = (size_t)c->h * c->w * xs;
  for (int r = row0; r < row1; r++) {
    const int n = r / c->oh, oy = r % c->oh;
    const int8_t *xi = x + (size_t)n * img;
    for (int ox = 0; ox < c->ow; ox++) {
      const size_t yo = ((size_t)r * c->ow + ox) * ys;
      for (int oc = 0; oc < c->cout; oc++) {
        int32_t acc = c->bias ? c->bias[oc] : 0;
        const int8_t *wo = c->weights + (size_t)oc * c->kh * c->kw * c->cin;
        for (int ky = 0; ky < c->kh; ky++) {
          const int iy = oy * c->sh - c->pad_t + ky * c->dh;
          if (iy < 0 || iy >= c->h) continue;
          for (int kx = 0; kx < c->kw; kx++) {
            const int ix = ox * c->sw - c->pad_l + kx * c->dw;
            if (ix < 0 || ix >= c->w) continue;
            const int8_t *xp = xi + ((size_t)iy * c->w + ix) * xs;
            const int8_t *wp = wo + ((size_t)ky * c->kw + kx) * c->cin;
            for (int ci = 0; ci < c->cin; ci++) acc += ((int32_t)xp[ci] - c->x_zp) * wp[ci];
          }
        }
        if (c->out_f32) {
          ((float *)y)[yo + oc] = (float)acc * c->scale[oc];
          continue;
        }
        int8_t q = yk_qconv_requant(acc, c->scale[oc], c->y_zp);
        ((int8_t *)y)[yo + oc] = c->lut ? c->lut[(uint8_t)(q + 128)] : q;
      }
    }
  }
}
