/* dwconv_ref.h — the reference depthwise 3x3 arithmetic on the [3][3][C] weights, written once for
 * dwconv_scalar.c (every pixel) and dwconv_neon.c (its channel tail, < 16): the output pixel walk
 * (in-image taps of each output row and column) and one block of channels of one output pixel. */
#ifndef YOLORT_DWCONV_REF_H
#define YOLORT_DWCONV_REF_H

#include "yk_dwconv.h"
#include "yk_inline.h"

#define YK_DW_REF_CBLK 64

/* The in-image taps [k0, k1) of output o along one axis (padding taps are left out: they hold
 * x_zp and contribute 0). */
static inline void yk_dw_taps(int o, int stride, int pad, int in, int *k0, int *k1) {
  const int base = o * stride - pad;
  *k0 = base < 0 ? -base : 0;
  *k1 = in - base < 3 ? in - base : 3;
  if (*k1 < *k0) *k1 = *k0;
}

/* One output pixel: image b, its top-left input (iy0, ix0), its in-image taps, its output. */
typedef struct yk_dw_pixel {
  int b, iy0, ix0, ky0, ky1, kx0, kx1;
  int8_t *out;
} yk_dw_pixel;

/* Output pixel ox of flattened output row `row`. */
static inline yk_dw_pixel yk_dw_pixel_at(const yk_dw_params *p, int8_t *y, int row, int ox) {
  yk_dw_pixel q;
  const int oy = row % p->oh;
  q.b = row / p->oh;
  yk_dw_taps(oy, p->stride, p->pad_t, p->h, &q.ky0, &q.ky1);
  yk_dw_taps(ox, p->stride, p->pad_l, p->w, &q.kx0, &q.kx1);
  q.iy0 = oy * p->stride - p->pad_t;
  q.ix0 = ox * p->stride - p->pad_l;
  q.out = y + ((size_t)row * p->ow + ox) * p->c;
  return q;
}

/* Channels [c0, c0 + nc) of pixel q (nc <= YK_DW_REF_CBLK): acc = bias + sum over in-image taps of
 * (x - x_zp) * w, y = sat(round_half_even((float)acc * requant_scale) + y_zp), then the LUT. */
static inline void yk_dw_ref_channels(const yk_dwconv *d, const int8_t *x, const yk_dw_pixel *q, int c0, int nc) {
  const yk_dw_params *p = &d->p;
  const int C = p->c;
  int32_t acc[YK_DW_REF_CBLK];
  for (int t = 0; t < nc; t++) acc[t] = d->bias ? d->bias[c0 + t] : 0;
  for (int ky = q->ky0; ky < q->ky1; ky++)
    for (int kx = q->kx0; kx < q->kx1; kx++) {
      const int8_t *in = x + (((size_t)q->b * p->h + (q->iy0 + ky)) * p->w + (q->ix0 + kx)) * C + c0;
      const int8_t *wk = d->weights + (size_t)(ky * 3 + kx) * C + c0;
      for (int t = 0; t < nc; t++) acc[t] += ((int32_t)in[t] - p->x_zp) * wk[t];
    }
  for (int t = 0; t < nc; t++) {
    const int8_t v = yk_quant_val((float)acc[t] * p->requant_scale[c0 + t], p->y_zp);
    q->out[c0 + t] = p->lut ? p->lut[(uint8_t)(v + 128)] : v;
  }
}

#endif
