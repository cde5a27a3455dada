/* yt_orient.h — turned and mirrored frames made in tests, written from yrt_frame.orientation's
 * definition apart from the runtime's code: where an upright pixel is stored, a plane stored
 * turned, an upright box in the stored frame's pixels (when yolort.h is included first: the
 * kernel tests use the pixel maps alone). */
#ifndef YOLORT_YT_ORIENT_H
#define YOLORT_YT_ORIENT_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Stored pixel (x, y) of upright pixel (u, v): the upright image (W x H) is the stored one turned
 * clockwise by rot quarter turns, then mirrored left-right when mir. Written from the definition,
 * apart from the runtime's. */
static inline void stored_of(int rot, int mir, int W, int H, int u, int v, int *x, int *y) {
  const int SW = rot & 1 ? H : W, SH = rot & 1 ? W : H;
  if (mir) u = W - 1 - u;
  switch (rot) {
  case 0: *x = u, *y = v; break;
  case 1: *x = v, *y = SH - 1 - u; break;
  case 2: *x = SW - 1 - u, *y = SH - 1 - v; break;
  default: *x = SW - 1 - v, *y = u; break;
  }
}

/* The upright plane (W x H pixels of pb bytes, tight rows) stored turned: a new tight buffer. */
static inline uint8_t *store_turned(const uint8_t *up, int W, int H, int pb, int rot, int mir, size_t *stride) {
  const int SW = rot & 1 ? H : W, SH = rot & 1 ? W : H;
  *stride = (size_t)SW * (size_t)pb;
  uint8_t *out = malloc(*stride * (size_t)SH);
  if (!out) abort(); /* a test helper: no memory, no test */
  for (int v = 0; v < H; v++)
    for (int u = 0; u < W; u++) {
      int x, y;
      stored_of(rot, mir, W, H, u, v, &x, &y);
      memcpy(out + (size_t)y * *stride + (size_t)x * (size_t)pb, up + ((size_t)v * (size_t)W + (size_t)u) * (size_t)pb,
             (size_t)pb);
    }
  return out;
}

#ifdef YOLORT_H /* with yolort.h included first: boxes */
/* An upright box (continuous pixels) of the W x H upright image into the stored image's pixels:
 * a continuous point p maps as the pixel centre it is 0.5 past, through stored_of (affine). */
static inline yrt_detection box_stored(yrt_detection d, int rot, int mir, int W, int H) {
  int ox, oy, ux, uy, vx, vy;
  stored_of(rot, mir, W, H, 0, 0, &ox, &oy);
  stored_of(rot, mir, W, H, 1, 0, &ux, &uy);
  stored_of(rot, mir, W, H, 0, 1, &vx, &vy);
  const float fx[2] = {d.x0, d.x1}, fy[2] = {d.y0, d.y1};
  float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++) {
      const float u = fx[a] - 0.5f, v = fy[b] - 0.5f;
      const float x = (float)ox + u * (float)(ux - ox) + v * (float)(vx - ox) + 0.5f;
      const float y = (float)oy + u * (float)(uy - oy) + v * (float)(vy - oy) + 0.5f;
      x0 = fminf(x0, x), x1 = fmaxf(x1, x), y0 = fminf(y0, y), y1 = fmaxf(y1, y);
    }
  d.x0 = x0, d.y0 = y0, d.x1 = x1, d.y1 = y1;
  return d;
}

#endif

#endif
