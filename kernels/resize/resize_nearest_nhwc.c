/* resize_nearest_nhwc.c — NHWC nearest resize (asymmetric, floor), any element size, whole or a
 * range of output rows (threads). Each output pixel is one memcpy of C elements; an output row
 * with the same source row as the previous one (every integer upscale) is a single memcpy of that
 * row. */
#include <math.h>
#include <string.h>

#include "yk.h"

static int src_index(int o, float scale, int in) {
  int i = (int)floorf((float)o / scale);
  if (i > in - 1) i = in - 1;
  if (i < 0) i = 0;
  return i;
}

void yk_resize_nearest_nhwc_rows(const void *x, int h, int w, int c, void *y, int oh, int ow, float scale_h,
                                 float scale_w, size_t elem_size, int oy0, int oy1) {
  if (h <= 0 || w <= 0 || c <= 0 || oh <= 0 || ow <= 0) return;
  if (oy0 < 0) oy0 = 0;
  if (oy1 > oh) oy1 = oh;
  const size_t px = (size_t)c * elem_size, orow = (size_t)ow * px;
  const uint8_t *xb = (const uint8_t *)x;
  uint8_t *yb = (uint8_t *)y;
  int prev = -1;
  for (int oy = oy0; oy < oy1; oy++) {
    const int iy = src_index(oy, scale_h, h);
    uint8_t *out = yb + (size_t)oy * orow;
    if (iy == prev) {
      memcpy(out, out - orow, orow);
      continue;
    }
    prev = iy;
    const uint8_t *in = xb + (size_t)iy * (size_t)w * px;
    for (int ox = 0; ox < ow; ox++) memcpy(out + ox * px, in + (size_t)src_index(ox, scale_w, w) * px, px);
  }
}

void yk_resize_nearest_nhwc(const void *x, int n, int h, int w, int c, void *y, int oh, int ow,
                            float scale_h, float scale_w, size_t elem_size) {
  if (n <= 0 || h <= 0 || w <= 0 || c <= 0 || oh <= 0 || ow <= 0) return;
  const size_t ib = (size_t)h * w * c * elem_size, ob = (size_t)oh * ow * c * elem_size;
  for (int b = 0; b < n; b++)
    yk_resize_nearest_nhwc_rows((const uint8_t *)x + b * ib, h, w, c, (uint8_t *)y + b * ob, oh, ow, scale_h,
                                scale_w, elem_size, 0, oh);
}
