/* frame_rows_driver.c — the row loop every yk_frame_rows variant shares (frame_rows_internal.h):
 * padding rows and columns, the source rows of each output row, chunks through the variant's
 * row and store functions. */
#include <string.h>

#include "frame_rows_internal.h"

/* n padding pixels: each channel's table value of the pad level, written directly (the same bytes
 * as storing pad levels). */
static void pad_run(const yk_frame_job *j, size_t at, int n) {
  const size_t m = 3 * (size_t)n;
  if (j->out_i8) {
    const int8_t *l = j->lut_i8 + j->pad;
    int8_t *o = (int8_t *)j->dst + at;
    if (l[0] == l[256] && l[0] == l[512]) {
      memset(o, l[0], m);
    } else {
      for (size_t i = 0; i < m; i += 3) o[i] = l[0], o[i + 1] = l[256], o[i + 2] = l[512];
    }
  } else {
    const float *l = j->lut_f32 + j->pad;
    float *o = (float *)j->dst + at;
    for (size_t i = 0; i < m; i += 3) o[i] = l[0], o[i + 1] = l[256], o[i + 2] = l[512];
  }
}

void yk_frame_drive(const yk_frame_job *j, int r0, int r1, const yk_frame_ops *ops) {
  const int fmt = j->fmt, ch = (j->src_h + 1) / 2;
  const int yuv = fmt == YK_PIX_NV12 || fmt == YK_PIX_NV21 || fmt == YK_PIX_I420;
  const yk_frame_row_fn row_fn = j->oriented ? yk_frame_row_oriented__scalar
                                 : yuv                          ? ops->yuv
                                 : fmt == YK_PIX_GRAY           ? ops->gray
                                                                : ops->packed;
  /* bytes from one source row to the next (an oriented job's upright rows may run backwards) */
  ptrdiff_t dy[3];
  for (int p = 0; p < 3; p++) dy[p] = j->oriented ? j->step_y[p] : (ptrdiff_t)j->stride[p];
  for (int r = r0; r < r1; r++) {
    const size_t row = (size_t)r * (size_t)j->dst_w * 3;
    const int yy = r - j->pad_t;
    if (yy < 0 || yy >= j->new_h) {
      pad_run(j, row, j->dst_w);
      continue;
    }
    pad_run(j, row, j->pad_l);
    yk_frame_row rc = {j, NULL, NULL, NULL, NULL, NULL, NULL, j->y.wt[yy], 0};
    const int sy0 = j->y.ofs[yy], sy1 = sy0 + 1 < j->src_h ? sy0 + 1 : sy0;
    rc.p0 = j->plane[0] + sy0 * dy[0];
    rc.p1 = j->plane[0] + sy1 * dy[0];
    if (yuv) {
      const int cy0 = j->cy.ofs[yy], cy1 = cy0 + 1 < ch ? cy0 + 1 : cy0;
      rc.wcy = j->cy.wt[yy];
      rc.u0 = j->plane[1] + cy0 * dy[1];
      rc.u1 = j->plane[1] + cy1 * dy[1];
      if (fmt == YK_PIX_I420) {
        rc.v0 = j->plane[2] + cy0 * dy[2];
        rc.v1 = j->plane[2] + cy1 * dy[2];
      }
    }
    uint8_t rgb[3 * YK_FRAME_CHUNK];
    for (int x = 0; x < j->new_w; x += YK_FRAME_CHUNK) {
      const int n = j->new_w - x < YK_FRAME_CHUNK ? j->new_w - x : YK_FRAME_CHUNK;
      row_fn(&rc, x, n, rgb);
      ops->store(j, row + 3 * (size_t)(j->pad_l + x), rgb, n);
    }
    pad_run(j, row + 3 * (size_t)(j->pad_l + j->new_w), j->dst_w - j->pad_l - j->new_w);
  }
}
