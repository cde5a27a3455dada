/* qconv_window_sums.c — per output pixel, the sum of (x - x_zp) over the conv's window (every
 * input channel of every tap inside the image; padded taps are x_zp, so they add 0). A
 * dynamically quantized conv whose export weights do not fit int8 runs them as w - k[c] and adds
 * k[c] times this sum to the accumulator (onnxruntime's exact ConvInteger products). Portable:
 * the channel loop is what compilers vectorise. */
#include "yk_qconv.h"

void yk_qconv_window_sums(const yk_qconv *c, const int8_t *x, int32_t *s, int row0, int row1) {
  const size_t xs = yk_qconv_xs(c), img = (size_t)c->h * c->w * xs;
  for (int r = row0; r < row1; r++) {
    const int n = r / c->oh, oy = r % c->oh;
    const int8_t *xi = x + (size_t)n * img;
    for (int ox = 0; ox < c->ow; ox++) {
      int32_t acc = 0, taps = 0;
      for (int ky = 0; ky < c->kh; ky++) {
        const int iy = oy * c->sh - c->pad_t + ky * c->dh;
        if (iy < 0 || iy >= c->h) continue;
        for (int kx = 0; kx < c->kw; kx++) {
          const int ix = ox * c->sw - c->pad_l + kx * c->dw;
          if (ix < 0 || ix >= c->w) continue;
          const int8_t *xp = xi + ((size_t)iy * c->w + ix) * xs;
          int32_t t = 0;
          for (int ci = 0; ci < c->cin; ci++) t += xp[ci];
          acc += t;
          taps++;
        }
      }
      s[(size_t)r * c->ow + ox] = acc - taps * c->cin * c->x_zp;
    }
  }
}
