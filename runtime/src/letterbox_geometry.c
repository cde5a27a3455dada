/* letterbox_geometry.c — the model's preprocessing as numbers (letterbox_geometry.h): where an
 * image lands in the network input, the check of a preprocessing record (META's at load, a
 * caller's in yrt_preprocess_f32), the per-channel value tables and the public letterbox record.
 * Model level: the loader and both input paths (prepost/letterbox.c, prepost/frame.c) read it. */
#include <math.h>

#include "letterbox_geometry.h"

static int lb_clamp_side(double v, int lo, int hi) {
  if (!(v >= lo)) return lo; /* NaN too */
  if (v > hi) return hi;
  return (int)v;
}

void yrt_preprocess_geometry(const yrt_preprocess *pp, int src_w, int src_h, int dst_w, int dst_h, lb_geometry *g) {
  const double rw = (double)dst_w / src_w, rh = (double)dst_h / src_h;
  const int mode = pp ? pp->resize : YRT_RESIZE_LETTERBOX;
  if (mode == YRT_RESIZE_STRETCH) {
    g->ratio = rw, g->ratio_y = rh;
    g->new_w = dst_w, g->new_h = dst_h;
  } else {
    /* crop: the shorter side fits and the other overflows; letterbox: the longer side fits */
    g->ratio = g->ratio_y = mode == YRT_RESIZE_CROP ? (rw > rh ? rw : rh) : (rw < rh ? rw : rh);
    /* rint: round half to even under the default rounding mode, like Python's round(). */
    g->new_w = lb_clamp_side(rint(src_w * g->ratio), 1, mode == YRT_RESIZE_CROP ? 1 << 24 : dst_w);
    g->new_h = lb_clamp_side(rint(src_h * g->ratio), 1, mode == YRT_RESIZE_CROP ? 1 << 24 : dst_h);
  }
  g->win_x = g->win_y = 0;
  g->win_w = g->new_w, g->win_h = g->new_h;
  g->pad_left = g->pad_top = 0;
  if (mode == YRT_RESIZE_CROP) {
    if (g->new_w < dst_w) g->new_w = dst_w;
    if (g->new_h < dst_h) g->new_h = dst_h;
    /* the centre window (torchvision CenterCrop: round((w - cw) / 2)) */
    g->win_x = (int)rint((g->new_w - dst_w) / 2.0);
    g->win_y = (int)rint((g->new_h - dst_h) / 2.0);
    g->win_w = dst_w, g->win_h = dst_h;
  } else if (mode == YRT_RESIZE_LETTERBOX && !(pp && pp->top_left)) {
    g->pad_left = (dst_w - g->new_w) / 2;
    g->pad_top = (dst_h - g->new_h) / 2;
  }
}

void yrt_letterbox_geometry(int src_w, int src_h, int dst_w, int dst_h, lb_geometry *g) {
  yrt_preprocess_geometry(NULL, src_w, src_h, dst_w, dst_h, g);
}

static int finite_f(float v) { return v == v && v - v == 0.0f; }

yrt_status yrt_preprocess_check(const yrt_preprocess *p, const char *where, yrt_error *err) {
  if ((p->bgr != 0 && p->bgr != 1) || (p->top_left != 0 && p->top_left != 1))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: preprocess bgr %d / top_left %d (0 or 1)", where, p->bgr,
                         p->top_left);
  if (p->resize < YRT_RESIZE_LETTERBOX || p->resize > YRT_RESIZE_CROP)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "%s: preprocess resize mode %d (0 letterbox, 1 stretch, 2 crop)",
                         where, p->resize);
  if (!(p->pad >= 0.0f && p->pad <= 255.0f) || p->pad != (float)(int)p->pad)
    return yrt_set_error(err, YRT_ERR_FORMAT, "%s: preprocess pad %g is not an integer level in 0..255", where,
                         (double)p->pad);
  if (!finite_f(p->scale) || !(p->scale > 0.0f))
    return yrt_set_error(err, YRT_ERR_FORMAT, "%s: preprocess scale %g is not finite and > 0", where, (double)p->scale);
  for (int c = 0; c < 3; c++) {
    if (!finite_f(p->mean[c]))
      return yrt_set_error(err, YRT_ERR_FORMAT, "%s: preprocess mean[%d] %g is not finite", where, c,
                           (double)p->mean[c]);
    if (!finite_f(p->std[c]) || !(p->std[c] > 0.0f))
      return yrt_set_error(err, YRT_ERR_FORMAT, "%s: preprocess std[%d] %g is not finite and > 0", where, c,
                           (double)p->std[c]);
  }
  return YRT_OK;
}

void yrt_preprocess_lut_f32(const yrt_preprocess *p, float lut[3 * 256]) {
  const int div255 = p->scale == 1.0f / 255.0f;
  for (int c = 0; c < 3; c++)
    for (int v = 0; v < 256; v++) {
      const float x = div255 ? (float)v / 255.0f : (float)v * p->scale;
      lut[256 * c + v] = (x - p->mean[c]) / p->std[c]; /* mean 0, std 1: x exactly */
    }
}

void yrt_letterbox_record(const lb_geometry *g, int src_w, int src_h, int dst_w, int dst_h, float offset_x,
                          float offset_y, yrt_letterbox *lb) {
  lb->ratio = (float)g->ratio;
  lb->ratio_y = (float)g->ratio_y;
  /* the resized image's origin in the input (a crop's window starts inside it: negative) */
  lb->pad_left = (float)(g->pad_left - g->win_x);
  lb->pad_top = (float)(g->pad_top - g->win_y);
  lb->src_w = src_w;
  lb->src_h = src_h;
  lb->dst_w = dst_w;
  lb->dst_h = dst_h;
  lb->offset_x = offset_x;
  lb->offset_y = offset_y;
}
