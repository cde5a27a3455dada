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
#include <stdint.h>

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

/* ---- int8 (a QDQ / QOperator ConvTranspose: the segment prototype's upsample in an int8 graph)
 *
 * x int8 [h][w][ci] with zero point x_zp, weights int8 symmetric in ONNX order [ci][co / g][kh][kw],
 * bias int32 [co] at s_x s_w[o] (or NULL), y int8 [oh][ow][co]. Arithmetic as the int8 conv's
 * (yk_qconv.h), exact in int32 so every variant and the reference agree bit for bit:
 *   acc[o] = bias[o] + sum over the taps reaching (oy, ox) and the group's channels of (x - x_zp) w
 *   y      = yk_qconv_requant(acc[o], scale[o], y_zp)
 * The caller keeps the sums inside int32 (kh kw ci/g 255 128 + |bias| < 2^31; the runtime checks).
 * Packed weights: int16 pairs of input channels [kh][kw][g][ceil(cig / 2)][co / g][2] (a missing
 * odd channel's weight 0), so AVX2 sums two channels in one vpmaddwd (|x - x_zp| <= 255: no
 * saturation). */
typedef struct yk_convt_q8 {
  int32_t x_zp, y_zp;   /* int8 values */
  const int32_t *bias;  /* [co] or NULL */
  const float *scale;   /* [co]: s_x s_w[o] / s_y */
} yk_convt_q8;

/* int16 elements of the packed int8 weights. */
size_t yk_conv_transpose_s8_packed_elems(const yk_convt_params *p);
void yk_conv_transpose_s8_pack(const yk_convt_params *p, const int8_t *w, int16_t *packed);
/* Output rows [oy0, oy1), on the widest variant isa has (NULL: portable). */
void yk_conv_transpose_s8_rows(const yk_isa *isa, const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x,
                               const int16_t *packed, int8_t *y, int oy0, int oy1);
void yk_conv_transpose_s8_rows__scalar(const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x,
                                       const int16_t *packed, int8_t *y, int oy0, int oy1);
#if YK_ARCH_X86_64
void yk_conv_transpose_s8_rows__avx2(const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x,
                                     const int16_t *packed, int8_t *y, int oy0, int oy1);
#endif
/* The scalar reference: the ONNX scatter over the whole output, from ONNX-ordered weights (acc
 * needs p->oh * p->ow * p->co int32 of scratch). */
void yk_conv_transpose_s8_ref(const yk_convt_params *p, const yk_convt_q8 *q, const int8_t *x, const int8_t *w,
                              int32_t *acc, int8_t *y);

#endif
