/* frame_rows_tail.c — the last pixels of a packed row for the SIMD variants (see
 * frame_rows_internal.h): their vector loads of a pixel's taps would read past the row's end (a
 * frame's last row may end its buffer), so the bytes they read are copied and padded, and the
 * variant's own loop runs on the copy; the scalar row was ~10x slower a pixel and ~11% of a 1:1
 * letterbox. */
#include <string.h>

#include "frame_rows_internal.h"

/* Up to 8 pixels: `body` on a copy of the source bytes they read, the row's last pixel repeated
 * once past its end (the reference's clamped second tap), zeros after; the group padded with its
 * last pixel at weight 0. Wider spans (downscales over ~7x) go to the scalar row. */
static void group(const yk_frame_row *r, int x, int n, uint8_t *rgb, yk_frame_packed_body body) {
  const yk_frame_job *j = r->j;
  const int bpp = j->fmt == YK_PIX_RGB || j->fmt == YK_PIX_BGR ? 3 : 4;
  enum { CAP = 256 };
  /* pixels the body may read: through the last tap, then a 16-byte load's worth */
  const int s0 = j->x.ofs[x], span = j->x.ofs[x + n - 1] - s0 + 1 + (16 + bpp - 1) / bpp;
  if (span * bpp > CAP) {
    yk_frame_row_packed__scalar(r, x, n, rgb);
    return;
  }
  uint8_t row[2][CAP], out[24];
  int32_t o[8];
  int16_t wt[8];
  const int real = (j->src_w - s0 < span ? j->src_w - s0 : span) * bpp;
  const uint8_t *src[2] = {r->p0 + (size_t)s0 * bpp, r->p1 + (size_t)s0 * bpp};
  for (int k = 0; k < 2; k++) {
    memcpy(row[k], src[k], (size_t)real);
    memset(row[k] + real, 0, (size_t)(CAP - real));
    if (real < span * bpp) memcpy(row[k] + real, src[k] + real - bpp, (size_t)bpp);
  }
  for (int k = 0; k < 8; k++) {
    o[k] = j->x.ofs[x + (k < n ? k : n - 1)] - s0;
    wt[k] = k < n ? j->x.wt[x + k] : 0;
  }
  yk_frame_row lr = *r;
  lr.p0 = row[0], lr.p1 = row[1];
  if (body(&lr, o, wt, span, 8, out) == 8) memcpy(rgb, out, 3 * (size_t)n);
  else yk_frame_row_packed__scalar(r, x, n, rgb);
}

void yk_frame_packed_tail(const yk_frame_row *r, int x, int n, uint8_t *rgb, yk_frame_packed_body body) {
  for (int i = 0; i < n; i += 8) group(r, x + i, n - i < 8 ? n - i : 8, rgb + 3 * i, body);
}
