/* conv16_driver.h — private to conv16/: the tile loop every packed yk_conv16 variant shares
 * (conv16.c), so a variant file holds only its micro-kernel. */
#ifndef YOLORT_CONV16_DRIVER_H
#define YOLORT_CONV16_DRIVER_H

#include "yk_conv16.h"

/* One column of lanes channels x YK_CONV16_MR pixels over one K block of kn values (even):
 * patch [MR][YK_CONV16_KBLK] int16, w the column's packed weights from the block's first step.
 * bias: the column's int32 bias on block 0 (f[m][l] = (float)(bias + sum)), NULL on the later
 * blocks (f[m][l] = f[m][l] + (float)sum). */
typedef void (*yk_conv16_ukernel)(const int16_t *patch, const int16_t *w, int kn, const int32_t *bias, float *f);
/* The output stage of one pixel's column (yk_conv16_out without the LUT) on its n <= lanes
 * valid channels: f[lanes] sums, scale[lanes] (the packed column's), into y[0, n). */
typedef void (*yk_conv16_outfn)(const float *f, const float *scale, int32_t y_zp, int8_t *y, int n);

/* Rows [row0, row1): patches gathered per block, uk per column, out per pixel and column, the
 * LUT last. */
void yk_conv16_drive(const yk_conv16 *c, const int16_t *x, void *y, int row0, int row1, yk_conv16_ukernel uk,
                     yk_conv16_outfn out);

#endif /* YOLORT_CONV16_DRIVER_H */
