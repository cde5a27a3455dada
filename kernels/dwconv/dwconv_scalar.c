/* dwconv_scalar.c — reference depthwise 3x3 int8 NHWC convolution.
 * acc[c] = bias[c] + sum over in-image taps of (x - x_zp) * w (padding contributes 0, i.e. it
 * holds x_zp), y = sat(round_half_even((float)acc * requant_scale[c]) + y_zp), then the
 * optional LUT. Channels go in blocks so the tap loops are contiguous; output rows [row0, row1) of
 * the flattened n*oh rows, from the unpacked weights. */
#include "yk_inline.h"
#include "yk_dwconv.h"

#define CBLK 64

static void taps(int o, int stride, int pad, int in, int *k0, int *k1) {
  const int base = o * stride - pad;
  *k0 = base < 0 ? -base : 0;
  *k1 = in - base < 3 ? in - base : 3;
  if (*k1 < *k0) *k1 = *k0;
}

void yk_dwconv_rows__scalar(const yk_dwconv *d, const int8_t *x, int8_t *y, int row0, int row1) {
  const int8_t *w = d->weights;
  const int32_t *bias = d->bias;
  const yk_dw_params *p = &d->p;
  const int C = p->c;
  for (int row = row0; row < row1; row++) {
    const int b = row / p->oh, oy = row % p->oh;
    int ky0, ky1;
    taps(oy, p->stride, p->pad_t, p->h, &ky0, &ky1);
    const int iy0 = oy * p->stride - p->pad_t;
    for (int ox = 0; ox < p->ow; ox++) {
      int kx0, kx1;
      taps(ox, p->stride, p->pad_l, p->w, &kx0, &kx1);
      const int ix0 = ox * p->stride - p->pad_l;
      int8_t *out = y + (((size_t)b * p->oh + oy) * p->ow + ox) * C;
      for (int c0 = 0; c0 < C; c0 += CBLK) {
        const int nc = C - c0 < CBLK ? C - c0 : CBLK;
        int32_t acc[CBLK];
        for (int t = 0; t < nc; t++) acc[t] = bias ? bias[c0 + t] : 0;
        for (int ky = ky0; ky < ky1; ky++)
          for (int kx = kx0; kx < kx1; kx++) {
            const int8_t *in = x + (((size_t)b * p->h + (iy0 + ky)) * p->w + (ix0 + kx)) * C + c0;
            const int8_t *wk = w + (size_t)(ky * 3 + kx) * C + c0;
            for (int t = 0; t < nc; t++) acc[t] += ((int32_t)in[t] - p->x_zp) * wk[t];
          }
        for (int t = 0; t < nc; t++) {
          int8_t q = yk_quant_val((float)acc[t] * p->requant_scale[c0 + t], p->y_zp);
          out[c0 + t] = p->lut ? p->lut[(uint8_t)(q + 128)] : q;
        }
      }
    }
  }
}
