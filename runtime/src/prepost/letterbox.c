/* letterbox.c — aspect-preserving resize + 114 padding into the network input.
 *
 * The resize reproduces PIL's Image.resize(BILINEAR) bit for bit (Pillow's Resample.c):
 * a separable triangle filter whose support grows with the downscale factor (so shrinking
 * antialiases), coefficients normalised per output pixel and rounded to 22-bit fixed point,
 * horizontal pass first into an 8-bit intermediate (rounded and clipped), then the vertical
 * pass. Matching PIL matters because the reference inputs and the published accuracy numbers
 * were made with it. Geometry follows Ultralytics: r = min(dw/w, dh/h), new size =
 * round-half-even(w*r), padding split with the odd pixel on the right/bottom (the placement and
 * value tables: letterbox_geometry.c, shared with the frame path). */
#include "yolort.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define LB_PRECISION_BITS 22 /* Pillow: 32 - 8 - 2 */
#define LB_ALIGN 16
/* Largest source side (width or height) the letterbox takes, as for the destination: beyond it
 * the filter sizes and the scratch layout would overflow (an INT_MAX-wide image made
 * yrt_letterbox_scratch_bytes wrap to 128 bytes). */
#define LB_MAX_SIDE 65536

#include "letterbox_geometry.h"

/* Pillow's precompute_coeffs: filter support and the maximum taps per output pixel. */
static double lb_filterscale(int in_size, int out_size) {
  double scale = (double)(float)in_size / out_size;
  return scale < 1.0 ? 1.0 : scale;
}
static int lb_ksize(int in_size, int out_size) {
  return (int)ceil(1.0 /* bilinear support */ * lb_filterscale(in_size, out_size)) * 2 + 1;
}


typedef struct lb_layout {
  size_t bounds_h, bounds_v, kk_h, kk_v, row, tmp, total;
  int ksize_h, ksize_v;
} lb_layout;

static uint64_t lb_align64(uint64_t n) { return (n + LB_ALIGN - 1) & ~(uint64_t)(LB_ALIGN - 1); }

/* Sides are at most LB_MAX_SIDE (callers check), so every term fits in 64 bits; total is 0 when
 * the layout does not fit in size_t (a 32-bit target): the caller refuses those sizes. */
static void lb_plan(int src_w, int src_h, const lb_geometry *g, lb_layout *L) {
  L->ksize_h = lb_ksize(src_w, g->new_w);
  L->ksize_v = lb_ksize(src_h, g->new_h);
  int kmax = L->ksize_h > L->ksize_v ? L->ksize_h : L->ksize_v;
  const uint64_t ww = (uint64_t)g->win_w, wh = (uint64_t)g->win_h;
  uint64_t off = 0, at[6];
  at[0] = off; off += lb_align64(ww * 2 * sizeof(int));
  at[1] = off; off += lb_align64(wh * 2 * sizeof(int));
  at[2] = off; off += lb_align64(ww * (uint64_t)L->ksize_h * sizeof(int32_t));
  at[3] = off; off += lb_align64(wh * (uint64_t)L->ksize_v * sizeof(int32_t));
  at[4] = off; off += lb_align64((uint64_t)kmax * sizeof(double));
  at[5] = off; off += lb_align64(ww * (uint64_t)src_h * 3);
  off += LB_ALIGN; /* slack to align the caller's pointer */
  if (off > (uint64_t)SIZE_MAX) {
    memset(L, 0, sizeof *L);
    return;
  }
  L->bounds_h = (size_t)at[0], L->bounds_v = (size_t)at[1], L->kk_h = (size_t)at[2];
  L->kk_v = (size_t)at[3], L->row = (size_t)at[4], L->tmp = (size_t)at[5];
  L->total = (size_t)off;
}

/* Fixed-point taps of a PIL bilinear resize along one axis, of output positions [first, first +
 * n): bounds[2*o] = first input index, bounds[2*o+1] = number of taps, kk[o*ksize + t] = weight in
 * 2^-22 units (o counted from first). */
static void lb_coeffs(int in_size, int out_size, int first, int n, int ksize, int *bounds, int32_t *kk,
                      double *row) {
  double scale = (double)(float)in_size / out_size;
  double filterscale = lb_filterscale(in_size, out_size);
  double support = 1.0 * filterscale;
  double ss = 1.0 / filterscale;
  for (int o = 0; o < n; o++) {
    const int xx = first + o;
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
    int32_t *k = kk + (size_t)o * ksize;
    for (int x = 0; x < ksize; x++) {
      double v = 0.0;
      if (x < xmax) v = ww != 0.0 ? row[x] / ww : row[x];
      k[x] = v < 0 ? (int32_t)(-0.5 + v * (1 << LB_PRECISION_BITS))
                   : (int32_t)(0.5 + v * (1 << LB_PRECISION_BITS));
    }
    bounds[2 * o] = xmin;
    bounds[2 * o + 1] = xmax;
  }
}

static inline uint8_t lb_clip8(int32_t v) {
  int32_t s = v >> LB_PRECISION_BITS;
  return (uint8_t)(s < 0 ? 0 : s > 255 ? 255 : s);
}

/* PIL's two-pass resize of img to g->new_w x g->new_h, its window g->win_* written at out0 (row
 * stride dst_w pixels) through lut (yrt_preprocess_lut_f32), channels reversed when bgr. */
static void lb_resize(const yrt_image *img, const lb_geometry *g, const lb_layout *L, uint8_t *base, float *out0,
                      int dst_w, const float *lut, int bgr) {
  const int sw = img->w, sh = img->h;
  int *bounds_h = (int *)(base + L->bounds_h), *bounds_v = (int *)(base + L->bounds_v);
  int32_t *kk_h = (int32_t *)(base + L->kk_h), *kk_v = (int32_t *)(base + L->kk_v);
  double *row = (double *)(base + L->row);
  uint8_t *tmp = base + L->tmp;

  lb_coeffs(sw, g->new_w, g->win_x, g->win_w, L->ksize_h, bounds_h, kk_h, row);
  lb_coeffs(sh, g->new_h, g->win_y, g->win_h, L->ksize_v, bounds_v, kk_v, row);

  /* Horizontal pass over the source rows the vertical pass will read. */
  int y_first = bounds_v[0];
  int y_last = bounds_v[2 * (g->win_h - 1)] + bounds_v[2 * (g->win_h - 1) + 1];
  const int nw = g->win_w;
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

  /* Vertical pass straight into the float output: source channel c to network channel nc. */
  for (int yy = 0; yy < g->win_h; yy++) {
    const int32_t *k = kk_v + (size_t)yy * L->ksize_v;
    int ymin = bounds_v[2 * yy] - y_first, n = bounds_v[2 * yy + 1];
    float *o = out0 + (size_t)yy * dst_w * 3;
    for (int px = 0; px < nw; px++)
      for (int c = 0; c < 3; c++) {
        const int i = 3 * px + c, nc = bgr ? 2 - c : c;
        int32_t s = 1 << (LB_PRECISION_BITS - 1);
        const uint8_t *p = tmp + (size_t)ymin * nw * 3 + i;
        for (int y = 0; y < n; y++) s += p[(size_t)y * nw * 3] * k[y];
        o[3 * px + nc] = lut[256 * nc + lb_clip8(s)];
      }
  }
}

size_t yrt_letterbox_scratch_bytes(int src_w, int src_h, int dst_w, int dst_h) {
  if (src_w <= 0 || src_h <= 0 || dst_w <= 0 || dst_h <= 0) return 0;
  if (src_w > LB_MAX_SIDE || src_h > LB_MAX_SIDE || dst_w > LB_MAX_SIDE || dst_h > LB_MAX_SIDE)
    return 0; /* refused by yrt_letterbox_f32 / yrt_preprocess_f32 anyway */
  size_t most = 0;
  yrt_preprocess pp;
  yrt_preprocess_default(&pp);
  for (int mode = YRT_RESIZE_LETTERBOX; mode <= YRT_RESIZE_CROP; mode++) { /* enough for any mode */
    lb_geometry g;
    lb_layout L;
    pp.resize = mode;
    yrt_preprocess_geometry(&pp, src_w, src_h, dst_w, dst_h, &g);
    lb_plan(src_w, src_h, &g, &L);
    if (L.total == 0) return 0; /* does not fit in size_t: refused */
    if (L.total > most) most = L.total;
  }
  return most;
}

yrt_status yrt_preprocess_f32(const yrt_image *img, const yrt_preprocess *pp, int dst_w, int dst_h, float *dst_nhwc,
                              size_t dst_count, void *scratch, yrt_letterbox *lb, yrt_error *err) {
  const char *fn = pp ? "yrt_preprocess_f32" : "yrt_letterbox_f32";
  if (!img || !img->rgb || !dst_nhwc || !scratch)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: NULL image, output or scratch", fn);
  if (img->w <= 0 || img->h <= 0 || dst_w <= 0 || dst_h <= 0 || dst_w > 65536 || dst_h > 65536)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: bad sizes src %dx%d dst %dx%d", fn, img->w,
                         img->h, dst_w, dst_h);
  if (img->w > LB_MAX_SIDE || img->h > LB_MAX_SIDE)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: image %dx%d is over %d pixels per side", fn, img->w,
                         img->h, LB_MAX_SIDE);
  if (dst_count / 3 / (size_t)dst_w < (size_t)dst_h)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "%s: destination holds %zu floats, a %dx%dx3 image needs %zu", fn, dst_count,
                         dst_w, dst_h, (size_t)dst_w * (size_t)dst_h * 3);
  yrt_preprocess def;
  if (!pp) {
    yrt_preprocess_default(&def);
    pp = &def;
  }
  yrt_status st = yrt_preprocess_check(pp, "yrt_preprocess_f32", err);
  if (st != YRT_OK) return st;
  const int sw = img->w, sh = img->h;
  lb_geometry g;
  lb_layout L;
  yrt_preprocess_geometry(pp, sw, sh, dst_w, dst_h, &g);
  lb_plan(sw, sh, &g, &L);
  if (L.total == 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: image %dx%d into %dx%d needs more scratch than size_t holds",
                         fn, sw, sh, dst_w, dst_h);
  float lut[3 * 256];
  yrt_preprocess_lut_f32(pp, lut);

  uint8_t *base = (uint8_t *)(((uintptr_t)scratch + LB_ALIGN - 1) & ~(uintptr_t)(LB_ALIGN - 1));
  /* Padding around the placed image. */
  const int padv = (int)pp->pad;
  const float pad[3] = {lut[padv], lut[256 + padv], lut[512 + padv]};
  for (int y = 0; y < dst_h; y++) {
    float *o = dst_nhwc + (size_t)y * dst_w * 3;
    int inside = y >= g.pad_top && y < g.pad_top + g.win_h;
    int x0 = inside ? g.pad_left : dst_w, x1 = inside ? g.pad_left + g.win_w : dst_w;
    for (int x = 0; x < x0; x++) o[3 * x] = pad[0], o[3 * x + 1] = pad[1], o[3 * x + 2] = pad[2];
    for (int x = x1; x < dst_w; x++) o[3 * x] = pad[0], o[3 * x + 1] = pad[1], o[3 * x + 2] = pad[2];
  }

  float *out0 = dst_nhwc + ((size_t)g.pad_top * dst_w + g.pad_left) * 3;
  if (g.new_w == sw && g.new_h == sh) {
    /* No resize: PIL's filter is the identity here too (and PIL skips it); the window's pixels. */
    for (int y = 0; y < g.win_h; y++) {
      const uint8_t *in = img->rgb + ((size_t)(y + g.win_y) * sw + (size_t)g.win_x) * 3;
      float *o = out0 + (size_t)y * dst_w * 3;
      for (int x = 0; x < g.win_w; x++)
        for (int c = 0; c < 3; c++) {
          const int nc = pp->bgr ? 2 - c : c;
          o[3 * x + nc] = lut[256 * nc + in[3 * x + c]];
        }
    }
  } else {
    lb_resize(img, &g, &L, base, out0, dst_w, lut, pp->bgr);
  }

  if (lb) yrt_letterbox_record(&g, sw, sh, dst_w, dst_h, 0.0f, 0.0f, lb);
  return YRT_OK;
}

yrt_status yrt_letterbox_f32(const yrt_image *img, int dst_w, int dst_h, float *dst_nhwc, size_t dst_count,
                             void *scratch, yrt_letterbox *lb, yrt_error *err) {
  return yrt_preprocess_f32(img, NULL, dst_w, dst_h, dst_nhwc, dst_count, scratch, lb, err);
}
