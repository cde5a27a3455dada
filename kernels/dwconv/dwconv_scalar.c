/* dwconv_scalar.c — reference depthwise 3x3 int8 NHWC convolution (the arithmetic: dwconv_ref.h).
 * Channels go in blocks so the tap loops are contiguous; output rows [row0, row1) of the flattened
 * n*oh rows, from the unpacked weights. */
#include "dwconv_ref.h"

void yk_dwconv_rows__scalar(const yk_dwconv *d, const int8_t *x, int8_t *y, int row0, int row1) {
  const yk_dw_params *p = &d->p;
  for (int row = row0; row < row1; row++)
    for (int ox = 0; ox < p->ow; ox++) {
      const yk_dw_pixel q = yk_dw_pixel_at(p, y, row, ox);
      for (int c0 = 0; c0 < p->c; c0 += YK_DW_REF_CBLK)
        yk_dw_ref_channels(d, x, &q, c0, p->c - c0 < YK_DW_REF_CBLK ? p->c - c0 : YK_DW_REF_CBLK);
    }
}
