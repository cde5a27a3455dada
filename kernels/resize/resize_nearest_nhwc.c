/* resize_nearest_nhwc.c — NHWC nearest resize (asymmetric, floor), any element size, whole or a
 * range of output rows (threads). Each output pixel is one memcpy of C elements (int8 with a
 * table: then one table pass over the row); an output row with the same source row as the
 * previous one (every integer upscale) is a copy of that row. Output pixels may be
 * wider apart than C (a channel slice of a Concat's buffer: the resize writes its view). */
#include <math.h>
#include <string.h>

#include "yk.h"

static int src_index(int o, float scale, int in) {
  int i = (int)floorf((float)o / scale);
  if (i > in - 1) i = in - 1;
  if (i < 0) i = 0;
  return i;
}

/* One pixel's bytes: 16 at a time inline (a libc memcpy call per 128-byte pixel cost more than
 * the copy: the neck's 80x80 upsample took 0.066 ms that way). */
static inline void copy_px(uint8_t *d, const uint8_t *s, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) __builtin_memcpy(d + i, s + i, 16);
  if (i < n) memcpy(d + i, s + i, n - i);
}

void yk_resize_nearest_nhwc_rows(const yk_isa *isa, const void *x, int h, int w, int c, void *y, size_t ys, int oh,
                                 int ow, float scale_h, float scale_w, size_t elem_size, const int8_t *lut, int oy0,
                                 int oy1) {
  if (h <= 0 || w <= 0 || c <= 0 || oh <= 0 || ow <= 0 || ys < (size_t)c) return;
  if (oy0 < 0) oy0 = 0;
  if (oy1 > oh) oy1 = oh;
  if (elem_size != 1) lut = NULL; /* tables are int8 only */
  const size_t px = (size_t)c * elem_size, ypx = ys * elem_size, orow = (size_t)ow * ypx;
  const uint8_t *xb = (const uint8_t *)x;
  uint8_t *yb = (uint8_t *)y;
  int prev = -1;
  for (int oy = oy0; oy < oy1; oy++) {
    const int iy = src_index(oy, scale_h, h);
    uint8_t *out = yb + (size_t)oy * orow;
    if (iy == prev) {
      if (ypx == px) {
        memcpy(out, out - orow, orow);
      } else {
        for (int ox = 0; ox < ow; ox++) copy_px(out + (size_t)ox * ypx, out - orow + (size_t)ox * ypx, px);
      }
      continue;
    }
    prev = iy;
    const uint8_t *in = xb + (size_t)iy * (size_t)w * px;
    for (int ox = 0; ox < ow; ox++) copy_px(out + (size_t)ox * ypx, in + (size_t)src_index(ox, scale_w, w) * px, px);
    /* then the table over the row in place, set up once (per pixel it costs more than the lookups) */
    if (lut) yk_lut_i8_pixels(isa, (const int8_t *)out, ys, (int8_t *)out, ys, (size_t)ow, (size_t)c, lut);
  }
}

void yk_resize_nearest_nhwc(const void *x, int n, int h, int w, int c, void *y, int oh, int ow,
                            float scale_h, float scale_w, size_t elem_size) {
  if (n <= 0 || h <= 0 || w <= 0 || c <= 0 || oh <= 0 || ow <= 0) return;
  const size_t ib = (size_t)h * w * c * elem_size, ob = (size_t)oh * ow * c * elem_size;
  for (int b = 0; b < n; b++)
    yk_resize_nearest_nhwc_rows(NULL, (const uint8_t *)x + b * ib, h, w, c, (uint8_t *)y + b * ob, (size_t)c, oh, ow,
                                scale_h, scale_w, elem_size, NULL, 0, oh);
}
