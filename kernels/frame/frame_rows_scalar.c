/* frame_rows_scalar.c — portable reference of yk_frame_rows (see yk_frame.h): bilinear taps on
 * the source planes in 11-bit fixed point, BT.601 integer YUV -> RGB after the resize of each
 * plane (scale-then-convert, as libyuv), then the 256-entry table into the input. */
#include "frame_rows_internal.h"

#define WB YK_FRAME_WBITS
#define ONE (1 << WB)

static inline int lerp2(const uint8_t *r0, const uint8_t *r1, ptrdiff_t x0, ptrdiff_t x1, int wx, int wy) {
  const int h0 = r0[x0] * (ONE - wx) + r0[x1] * wx;
  const int h1 = r1[x0] * (ONE - wx) + r1[x1] * wx;
  return (h0 * (ONE - wy) + h1 * wy + (1 << (2 * WB - 1))) >> (2 * WB);
}

static inline uint8_t clamp8(int v) { return (uint8_t)(v < 0 ? 0 : (v >> 8) > 255 ? 255 : v >> 8); }

/* BT.601 in 8.8 fixed point (limited: Y 16..235, UV 16..240; full: JFIF). */
static inline void yuv_to_rgb(int full, int bgr, int y, int u, int v, uint8_t *rgb) {
  const int d = u - 128, e = v - 128;
  const int c = full ? 256 * y + 128 : 298 * (y - 16) + 128;
  rgb[bgr ? 2 : 0] = clamp8(c + (full ? 359 : 409) * e);
  rgb[1] = clamp8(c - (full ? 88 : 100) * d - (full ? 183 : 208) * e);
  rgb[bgr ? 0 : 2] = clamp8(c + (full ? 454 : 516) * d);
}

void yk_frame_row_packed__scalar(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const yk_frame_job *j = r->j;
  const int bpp = j->fmt == YK_PIX_RGB || j->fmt == YK_PIX_BGR ? 3 : 4;
  const int swap = yk_frame_swap(j);
  for (int i = 0; i < n; i++) {
    const int s0 = j->x.ofs[x + i], s1 = s0 + 1 < j->src_w ? s0 + 1 : s0, wx = j->x.wt[x + i];
    for (int c = 0; c < 3; c++)
      rgb[3 * i + (swap ? 2 - c : c)] = (uint8_t)lerp2(r->p0, r->p1, s0 * bpp + c, s1 * bpp + c, wx, r->wy);
  }
}

void yk_frame_row_gray__scalar(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const yk_frame_job *j = r->j;
  for (int i = 0; i < n; i++) {
    const int s0 = j->x.ofs[x + i], s1 = s0 + 1 < j->src_w ? s0 + 1 : s0;
    rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = (uint8_t)lerp2(r->p0, r->p1, s0, s1, j->x.wt[x + i], r->wy);
  }
}

void yk_frame_row_yuv__scalar(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const yk_frame_job *j = r->j;
  const int cw = (j->src_w + 1) / 2, fmt = j->fmt;
  for (int i = 0; i < n; i++) {
    const int s0 = j->x.ofs[x + i], s1 = s0 + 1 < j->src_w ? s0 + 1 : s0;
    const int y = lerp2(r->p0, r->p1, s0, s1, j->x.wt[x + i], r->wy);
    const int c0 = j->cx.ofs[x + i], c1 = c0 + 1 < cw ? c0 + 1 : c0, wcx = j->cx.wt[x + i];
    int u, v;
    if (fmt == YK_PIX_I420) {
      u = lerp2(r->u0, r->u1, c0, c1, wcx, r->wcy);
      v = lerp2(r->v0, r->v1, c0, c1, wcx, r->wcy);
    } else {
      const int a = lerp2(r->u0, r->u1, 2 * c0, 2 * c1, wcx, r->wcy);
      const int b = lerp2(r->u0, r->u1, 2 * c0 + 1, 2 * c1 + 1, wcx, r->wcy);
      u = fmt == YK_PIX_NV12 ? a : b;
      v = fmt == YK_PIX_NV12 ? b : a;
    }
    yuv_to_rgb(j->full_range, j->bgr, y, u, v, rgb + 3 * i);
  }
}

void yk_frame_row_oriented__scalar(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const yk_frame_job *j = r->j;
  const int fmt = j->fmt, cw = (j->src_w + 1) / 2, swap = yk_frame_swap(j);
  const ptrdiff_t dx = j->step_x[0], du = j->step_x[1], dv = j->step_x[2];
  for (int i = 0; i < n; i++) {
    const int s0 = j->x.ofs[x + i], s1 = s0 + 1 < j->src_w ? s0 + 1 : s0, wx = j->x.wt[x + i];
    uint8_t *o = rgb + 3 * i;
    if (fmt == YK_PIX_GRAY) {
      o[0] = o[1] = o[2] = (uint8_t)lerp2(r->p0, r->p1, s0 * dx, s1 * dx, wx, r->wy);
    } else if (fmt == YK_PIX_NV12 || fmt == YK_PIX_NV21 || fmt == YK_PIX_I420) {
      const int y = lerp2(r->p0, r->p1, s0 * dx, s1 * dx, wx, r->wy);
      const int c0 = j->cx.ofs[x + i], c1 = c0 + 1 < cw ? c0 + 1 : c0, wcx = j->cx.wt[x + i];
      int u, v;
      if (fmt == YK_PIX_I420) {
        u = lerp2(r->u0, r->u1, c0 * du, c1 * du, wcx, r->wcy);
        v = lerp2(r->v0, r->v1, c0 * dv, c1 * dv, wcx, r->wcy);
      } else { /* a chroma pair's two bytes stay in order whatever the turn */
        const int a = lerp2(r->u0, r->u1, c0 * du, c1 * du, wcx, r->wcy);
        const int b = lerp2(r->u0, r->u1, c0 * du + 1, c1 * du + 1, wcx, r->wcy);
        u = fmt == YK_PIX_NV12 ? a : b;
        v = fmt == YK_PIX_NV12 ? b : a;
      }
      yuv_to_rgb(j->full_range, j->bgr, y, u, v, o);
    } else {
      for (int c = 0; c < 3; c++)
        o[swap ? 2 - c : c] = (uint8_t)lerp2(r->p0, r->p1, s0 * dx + c, s1 * dx + c, wx, r->wy);
    }
  }
}

void yk_frame_store__scalar(const yk_frame_job *j, size_t at, const uint8_t *rgb, int n) {
  if (j->out_i8) {
    int8_t *o = (int8_t *)j->dst + at;
    for (int i = 0; i < 3 * n; i += 3)
      o[i] = j->lut_i8[rgb[i]], o[i + 1] = j->lut_i8[256 + rgb[i + 1]], o[i + 2] = j->lut_i8[512 + rgb[i + 2]];
  } else {
    float *o = (float *)j->dst + at;
    for (int i = 0; i < 3 * n; i += 3)
      o[i] = j->lut_f32[rgb[i]], o[i + 1] = j->lut_f32[256 + rgb[i + 1]], o[i + 2] = j->lut_f32[512 + rgb[i + 2]];
  }
}

void yk_frame_rows__scalar(const yk_frame_job *j, int r0, int r1) {
  static const yk_frame_ops ops = {yk_frame_row_packed__scalar, yk_frame_row_gray__scalar, yk_frame_row_yuv__scalar,
                                   yk_frame_store__scalar};
  yk_frame_drive(j, r0, r1, &ops);
}
