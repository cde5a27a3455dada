/*
 * yk_conv_transpose.h — float 2-D transposed convolution (ONNX ConvTranspose), NHWC.
 *
 * x [h][w][ci], y [oh][ow][co], weights in ONNX order [ci][co / group][kh][kw], bias [co] or NULL.
 * Output (oy, ox) of channel o in group g takes input (iy, ix) through tap (ky, kx) when
 * oy = iy * sh - pt + ky * dh and ox = ix * sw - pl + kx * dw (the padding crops the full output;
 * output_padding only makes oh / ow larger, the rows it adds take the bias alone).
 *
 * Two forms, one summation order: per output value, bias first, then taps ky descending, kx
 * descending, input channels ascending — the order in which the reference's scatter over
 * (iy, ix, ci) ascending reaches it. yk_conv_transpose_f32_ref is that scatter (the ONNX
 * definition, one output row range cannot be split off); yk_conv_transpose_f32_rows gathers
 * per output row over prepacked weights [kh][kw][ci][co / group] (the inner loop over output
 * channels is contiguous), so a row range is a task.
 * No allocation.
 */
#ifndef YOLORT_YK_CONV_TRANSPOSE_H
#define YOLORT_YK_CONV_TRANSPOSE_H

#include <stddef.h>

#include "yk.h"

typedef struct yk_convt_params {
  int h, w, ci;      /* input */
  int oh, ow, co;    /* output */
  int kh, kw, sh, sw, pt, pl, dh, dw, group;
} yk_convt_params;

/* 1 when the geometry is one the kernels compute (positive sizes, channels divide by group,
 * pads non-negative, oh / ow at least the cropped full output and less than it + stride). */
int yk_conv_transpose_valid(const yk_convt_params *p);

/* Floats of the packed weights: kh * kw * ci * (co / group). */
size_t yk_conv_transpose_packed_floats(const yk_convt_params *p);
/* ONNX weights [ci][co / g][kh][kw] -> packed [kh][kw][ci][co / g]. */
void yk_conv_transpose_pack(const yk_convt_params *p, const float *w, float *packed);

/* Output rows [oy0, oy1) from packed weights, on the widest variant isa has (NULL: portable). */
void yk_conv_transpose_f32_rows(const yk_isa *isa, const yk_convt_params *p, const float *x, const float *packed,
                                const float *bias, float *y, int oy0, int oy1);
/* The variants (tests call each): portable C, and AVX2 (8 output channels a register, multiply
 * then add, no FMA: the same roundings as the reference). Bit-equal to yk_conv_transpose_f32_ref. */
void yk_conv_transpose_f32_rows__scalar(const yk_convt_params *p, const float *x, const float *packed,
                                        const float *bias, float *y, int oy0, int oy1);
#if YK_ARCH_X86_64
void yk_conv_transpose_f32_rows__avx2(const yk_convt_params *p, const float *x, const float *packed,
                                      const float *bias, float *y, int oy0, int oy1);
#endif

/* The scalar reference: the whole output, from the ONNX-ordered weights. */
void yk_conv_transpose_f32_ref(const yk_convt_params *p, const float *x, const float *w, const float *bias, float *y);

#endif
