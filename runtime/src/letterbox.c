/* letterbox.c — aspect-preserving resize + 114 padding into the network input.
 *
 * The resize reproduces PIL's Image.resize(BILINEAR) bit for bit (Pillow's Resample.c):
 * a separable triangle filter whose support grows with the downscale factor (so shrinking
 * antialiases), coefficients normalised per output pixel and rounded to 22-bit fixed point,
 * horizontal pass first into an 8-bit intermediate (rounded and clipped), then the vertical
 * pass. Matching PIL matters because the reference inputs and the published accuracy numbers
 * were made with it. Geometry follows Ultralytics: r = min(dw/w, dh/h), new size =
 * round-half-even(w*r), padding split with the odd pixel on the right/bottom. */
#include "yolort.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define LB_PRECISION_BITS 22 /* Pillow: 32 - 8 - 2 */
#define LB_PAD_VALUE 114
#define LB_ALIGN 16

#include "letterbox_geometry.h"

void yrt_letterbox_geometry(int src_w, int src_h, int dst_w, int dst_h, lb_geometry *g) {
  double rw = (double)dst_w / src_w, rh = (double)dst_h / src_h;
  g->ratio = rw < rh ? rw : rh;
  /* rint: round half to even under the default rounding mode, like Python's round(). */
  g->new_w = (int)rint(src_w * g->ratio);
  g->new_h = (int)rint(src_h * g->ratio);
  if (g->new_w < 1) g->new_w = 1;
  if (g->new_h < 1) g->new_h = 1;
  if (g->new_w > dst_w) g->new_w = dst_w;
  if (g->new_h > dst_h) g->new_h = dst_h;
  g->pad_left = (dst_w - g->new_w) / 2;
  g->pad_top = (dst_h - g->new_h) / 2;
}

/* Pillow's precompute_coeffs: filter support and the maximum taps per output pixel. */
static double lb_filterscale(int in_size, int out_size) {
  double scale = (double)(float)in_size / out_size;
  return scale < 1.0 ? 1.0 : scale;
}
static int lb_ksize(int in_size, int out_size) {
  return (int)ceil(1.0 /* bilinear support */ * lb_filterscale(in_size, out_size)) * 2 + 1;
}

static size_t lb_align(size_t n) { return (n + LB_ALIGN - 1) & ~(size_t)(LB_ALIGN - 1); }

typedef struct lb_layout {
  size_t bounds_h, bounds_v, kk_h, kk_v, row, tmp, total;
  int ksize_h, ksize_v;
} lb_layout;

static void lb_plan(int src_w, int src_h, int new_w, int new_h, lb_layout *L) {
  L->ksize_h = lb_ksize(src_w, new_w);
  L->ksize_v = lb_ksize(src_h, new_h);
  int kmax = L->ksize_h > L->ksize_v ? L->ksize_h : L->ksize_v;
  size_t off = 0;
  L->bounds_h = off; off += lb_align((size_t)new_w * 2 * sizeof(int));
  L->bounds_v = off; off += lb_align((size_t)new_h * 2 * sizeof(int));
  L->kk_h = off;     off += lb_align((size_t)new_w * (size_t)L->ksize_h * sizeof(int32_t));
  L->kk_v = off;     off += lb_align((size_t)new_h * (size_t)L->ksize_v * sizeof(int32_t));
  L->row = off;      off += lb_align((size_t)kmax * sizeof(double));
  L->tmp = off;      off += lb_align((size_t)new_w * (size_t)src_h * 3);
  L->total = off + LB_ALIGN; /* slack to align the caller's pointer */
}

/* Fixed-point taps of a PIL bilinear resize along one axis: bounds[2*o] = first input index,
 * bounds[2*o+1] = number of taps, kk[o*ksize + t] = weight in 2^-22 units. */
static void lb_coeffs(int in_size, int out_size, int ksize, int *bounds, int32_t *kk, double *row) {
  double scale = (double)(float)in_size / out_size;
  double filterscale = lb_filterscale(in_size, out_size);
  double support = 1.0 * filterscale;
  double ss = 1.0 / filterscale;
  for (int xx = 0; xx < out_size; xx++) {
    double center = (xx + 0.5) * scale;
    double ww = 0.0;
    int xmin = (int)(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int xmax = (int)(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    if (xmax > ksize) xmax = ksize; /* cannot happen; keeps writes in bounds */
    for (int x = 0; x < xmax; x++) {
      double t = fabs((x + xmin - center + 0.5) * ss);
      double w = t < 1.0 ? 1.0 - t : 0.0;
      row[x] = w;
      ww += w;
    }
    int32_t *k = kk + (size_t)xx * ksize;
    for (int x = 0; x < ksize; x++) {
      double v = 0.0;
      if (x < xmax) v = ww != 0.0 ? row[x] / ww : row[x];
      k[x] = v < 0 ? (int32_t)(-0.5 + v * (1 << LB_PRECISION_BITS))
                   : (int32_t)(0.5 + v * (1 << LB_PRECISION_BITS));
    }
    bounds[2 * xx] = xmin;
    bounds[2 * xx + 1] = xmax;
  }
}

static inline uint8_t lb_clip8(int32_t v) {
  int32_t s = v >> LB_PRECISION_BITS;
  return (uint8_t)(s < 0 ? 0 : s > 255 ? 255 : s);
}

/* PIL's two-pass resize of img to g->new_w x g->new_h, written as floats at out0 (row stride
 * dst_w pixels). */
static void lb_resize(const yrt_image *img, const lb_geometry *g, const lb_layout *L, uint8_t *base, float *out0,
                      int dst_w) {
  const int sw = img->w, sh = img->h;
  int *bounds_h = (int *)(base + L->bounds_h), *bounds_v = (int *)(base + L->bounds_v);
  int32_t *kk_h = (int32_t *)(base + L->kk_h), *kk_v = (int32_t *)(base + L->kk_v);
  double *row = (double *)(base + L->row);
  uint8_t *tmp = base + L->tmp;

  lb_coeffs(sw, g->new_w, L->ksize_h, bounds_h, kk_h, row);
  lb_coeffs(sh, g->new_h, L->ksize_v, bounds_v, kk_v, row);

  /* Horizontal pass over the source rows the vertical pass will read. */
  int y_first = bounds_v[0];
  int y_last = bounds_v[2 * (g->new_h - 1)] + bounds_v[2 * (g->new_h - 1) + 1];
  const int nw = g->new_w;
  for (int y = y_first; y < y_last; y++) {
    const uint8_t *in = img->rgb + (size_t)y * sw * 3;
    uint8_t *out = tmp + (size_t)(y - y_first) * nw * 3;
    for (int xx = 0; xx < nw; xx++) {
      const int32_t *k = kk_h + (size_t)xx * L->ksize_h;
      const uint8_t *p = in + (size_t)bounds_h[2 * xx] * 3;
      int n = bounds_h[2 * xx + 1];
      int32_t s0 = 1 << (LB_PRECISION_BITS - 1), s1 = s0, s2 = s0;
      for (int x = 0; x < n; x++) {
        s0 += p[3 * x] * k[x];
        s1 += p[3 * x + 1] * k[x];
        s2 += p[3 * x + 2] * k[x];
      }
      out[3 * xx] = lb_clip8(s0);
      out[3 * xx + 1] = lb_clip8(s1);
      out[3 * xx + 2] = lb_clip8(s2);
    }
  }

  /* Vertical pass straight into the float output. */
  for (int yy = 0; yy < g->new_h; yy++) {
    const int32_t *k = kk_v + (size_t)yy * L->ksize_v;
    int ymin = bounds_v[2 * yy] - y_first, n = bounds_v[2 * yy + 1];
    float *o = out0 + (size_t)yy * dst_w * 3;
    for (int i = 0; i < nw * 3; i++) {
      int32_t s = 1 << (LB_PRECISION_BITS - 1);
      const uint8_t *p = tmp + (size_t)ymin * nw * 3 + i;
      for (int y = 0; y < n; y++) s += p[(size_t)y * nw * 3] * k[y];
      o[i] = (float)lb_clip8(s) / 255.0f;
    }
  }
}

void yrt_letterbox_record(const lb_geometry *g, int src_w, int src_h, int dst_w, int dst_h, float offset_x,
                          float offset_y, yrt_letterbox *lb) {
  lb->ratio = (float)g->ratio;
  lb->pad_left = (float)g->pad_left;
  lb->pad_top = (float)g->pad_top;
  lb->src_w = src_w;
  lb->src_h = src_h;
  lb->dst_w = dst_w;
  lb->dst_h = dst_h;
  lb->offset_x = offset_x;
  lb->offset_y = offset_y;
}

size_t yrt_letterbox_scratch_bytes(int src_w, int src_h, int dst_w, int dst_h) {
  if (src_w <= 0 || src_h <= 0 || dst_w <= 0 || dst_h <= 0) return 0;
  lb_geometry g;
  lb_layout L;
  yrt_letterbox_geometry(src_w, src_h, dst_w, dst_h, &g);
  lb_plan(src_w, src_h, g.new_w, g.new_h, &L);
  return L.total;
}

yrt_status yrt_letterbox_f32(const yrt_image *img, int dst_w, int dst_h, float *dst_nhwc, size_t dst_count,
                             void *scratch, yrt_letterbox *lb, yrt_error *err) {
  if (!img || !img->rgb || !dst_nhwc || !scratch)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_letterbox_f32: NULL image, output or scratch");
  if (img->w <= 0 || img->h <= 0 || dst_w <= 0 || dst_h <= 0 || dst_w > 65536 || dst_h > 65536)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_letterbox_f32: bad sizes src %dx%d dst %dx%d", img->w,
                         img->h, dst_w, dst_h);
  if (dst_count / 3 / (size_t)dst_w < (size_t)dst_h)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_letterbox_f32: destination holds %zu floats, a %dx%dx3 image needs %zu", dst_count,
                         dst_w, dst_h, (size_t)dst_w * (size_t)dst_h * 3);
  const int sw = img->w, sh = img->h;
  lb_geometry g;
  lb_layout L;
  yrt_letterbox_geometry(sw, sh, dst_w, dst_h, &g);
  lb_plan(sw, sh, g.new_w, g.new_h, &L);

  uint8_t *base = (uint8_t *)(((uintptr_t)scratch + LB_ALIGN - 1) & ~(uintptr_t)(LB_ALIGN - 1));
  /* Padding around the placed image. */
  const float pad = (float)LB_PAD_VALUE / 255.0f;
  for (int y = 0; y < dst_h; y++) {
    float *o = dst_nhwc + (size_t)y * dst_w * 3;
    int inside = y >= g.pad_top && y < g.pad_top + g.new_h;
    int x0 = inside ? g.pad_left * 3 : dst_w * 3, x1 = inside ? (g.pad_left + g.new_w) * 3 : dst_w * 3;
    for (int i = 0; i < x0; i++) o[i] = pad;
    for (int i = x1; i < dst_w * 3; i++) o[i] = pad;
  }

  if (g.new_w == sw && g.new_h == sh) {
    /* No resize: PIL's filter is the identity here too (and PIL skips it). */
    for (int y = 0; y < sh; y++) {
      const uint8_t *in = img->rgb + (size_t)y * sw * 3;
      float *o = dst_nhwc + ((size_t)(g.pad_top + y) * dst_w + g.pad_left) * 3;
      for (int i = 0; i < sw * 3; i++) o[i] = (float)in[i] / 255.0f;
    }
  } else {
    lb_resize(img, &g, &L, base, dst_nhwc + ((size_t)g.pad_top * dst_w + g.pad_left) * 3, dst_w);
  }

  if (lb) yrt_letterbox_record(&g, sw, sh, dst_w, dst_h, 0.0f, 0.0f, lb);
  return YRT_OK;
}
