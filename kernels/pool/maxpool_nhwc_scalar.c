/* maxpool_nhwc_scalar.c — reference NHWC max pooling (f32 and i8); padded taps are ignored,
 * an output with no valid tap gets the type's lowest value. */
#include <math.h>

#include "pool_window.h"
#include "yk_variants.h"

#define MAXPOOL_BODY(T, LOWEST)                                                               \
  const int dh = p->dh > 0 ? p->dh : 1, dw = p->dw > 0 ? p->dw : 1;                           \
  for (int b = 0; b < n; b++)                                                                 \
    for (int oy = 0; oy < oh; oy++) {                                                         \
      int ky0, ky1;                                                                           \
      yk_pool_taps(oy, p->sh, p->pad_t, dh, p->kh, h, &ky0, &ky1);                            \
      for (int ox = 0; ox < ow; ox++) {                                                       \
        int kx0, kx1;                                                                         \
        yk_pool_taps(ox, p->sw, p->pad_l, dw, p->kw, w, &kx0, &kx1);                          \
        T *out = y + (((size_t)b * oh + oy) * ow + ox) * c;                                   \
        for (int ch = 0; ch < c; ch++) out[ch] = LOWEST;                                      \
        for (int ky = ky0; ky < ky1; ky++) {                                                  \
          const int iy = oy * p->sh - p->pad_t + ky * dh;                                     \
          for (int kx = kx0; kx < kx1; kx++) {                                                \
            const int ix = ox * p->sw - p->pad_l + kx * dw;                                   \
            const T *in = x + (((size_t)b * h + iy) * w + ix) * c;                            \
            for (int ch = 0; ch < c; ch++) out[ch] = in[ch] > out[ch] ? in[ch] : out[ch];     \
          }                                                                                   \
        }                                                                                     \
      }                                                                                       \
    }

void yk_maxpool_nhwc_i8__scalar(const int8_t *x, int n, int h, int w, int c, int8_t *y, int oh,
                                int ow, const yk_pool_params *p) {
  MAXPOOL_BODY(int8_t, INT8_MIN)
}

void yk_maxpool_nhwc_f32__scalar(const float *x, int n, int h, int w, int c, float *y, int oh,
                                 int ow, const yk_pool_params *p) {
  MAXPOOL_BODY(float, -INFINITY)
}
