/* yk_frame.h — camera frame -> network input rows in one pass: colour conversion (packed RGB/BGR/
 * RGBA/BGRA, NV12/NV21/I420 BT.601, GRAY8), bilinear resize with OpenCV INTER_LINEAR geometry and
 * 11-bit fixed-point weights, padding (114 usually), channels in R, G, B or B, G, R order, then each
 * 8-bit level mapped through a 256-entry table per network channel to the input's value (float
 * (v * scale - mean) / std, or its int8 quantization). Entirely integer up to the table,
 * so every variant is bit-exact to the scalar reference. The caller builds the tables
 * (yk_frame_plan_axis) and splits the output rows over threads. */
#ifndef YOLORT_YK_FRAME_H
#define YOLORT_YK_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "yk.h"

enum { YK_PIX_RGB = 1, YK_PIX_BGR, YK_PIX_RGBA, YK_PIX_BGRA, YK_PIX_NV12, YK_PIX_NV21, YK_PIX_I420, YK_PIX_GRAY };

#define YK_FRAME_WBITS 11 /* interpolation weights in 1/2048 */
#define YK_FRAME_PAD 114 /* the usual padding level (yk_frame_job.pad) */

/* Taps along one axis for each of n output positions: first source index (the second is
 * ofs + step, 0 at the clamped edge) and the second tap's weight. */
typedef struct yk_frame_axis {
  int32_t *ofs;
  int16_t *wt;
} yk_frame_axis;

/* Fill n taps for a resize of `in` source samples to `out` destination samples, where the
 * destination positions [0, n) cover source samples through `ratio` (= in/out of the luma
 * plane; chroma uses the same ratio and half-pixel centres of its own grid: sub = 2). */
void yk_frame_plan_axis(int in, int out, int sub, yk_frame_axis *a);
/* The same for the n destination positions [first, first + n) of that resize (a centre crop's
 * window), into a->ofs[0..n), a->wt[0..n). */
void yk_frame_plan_axis_window(int in, int out, int first, int n, int sub, yk_frame_axis *a);

typedef struct yk_frame_job {
  int fmt;                   /* YK_PIX_* */
  int full_range;            /* YUV: 1 = BT.601 full, 0 = limited */
  const uint8_t *plane[3];   /* already offset to the crop origin (chroma: crop / 2) */
  size_t stride[3];
  int src_w, src_h;          /* crop size */
  int dst_w, dst_h;          /* network input */
  int new_w, new_h, pad_l, pad_t; /* the resized image inside it */
  yk_frame_axis x, y;        /* luma / packed taps: new_w, new_h entries */
  yk_frame_axis cx, cy;      /* chroma taps (YUV formats) */
  int out_i8;                /* 1: int8 output through lut_i8, else float through lut_f32 */
  const int8_t *lut_i8;      /* [3][256]: output channel c of level v at lut_i8[256 * c + v] */
  int lut_is_shift;          /* 1: lut_i8[256 * c + v] == (int8_t)(v + lut_shift) for every c and v (a
                                byte add: an input scale of 1/255, the usual case), yk_frame_lut_shift */
  int lut_shift;
  const float *lut_f32;      /* [3][256], as lut_i8 */
  void *dst;                 /* NHWC [dst_h][dst_w][3] */
  int bgr;                   /* 1: output channels B, G, R (else R, G, B), whatever the frame's layout */
  int pad;                   /* padding level 0..255 (each channel's table entry of it) */
  /* A rotated or mirrored frame, sampled as its upright image: 1 when plane[p] points at plane p's
   * pixel (0, 0) of the upright image and its pixels are step_x[p] / step_y[p] bytes apart along
   * the upright x / y (signed; a 90-degree turn swaps rows and columns); src_w / src_h and the
   * taps are the upright image's. 0: stride[p] apart rows of consecutive pixels. */
  int oriented;
  ptrdiff_t step_x[3], step_y[3];
} yk_frame_job;

/* k in [0, 255] when lut[256 * c + v] == (int8_t)(uint8_t)(v + k) for every c < 3 and v, else -1. */
int yk_frame_lut_shift(const int8_t *lut);

/* Output rows [r0, r1) of the whole input (padding rows included). */
void yk_frame_rows(const yk_isa *isa, const yk_frame_job *j, int r0, int r1);
/* Its variants yk_frame_rows__<isa>: include/variants/frame.inc, declared in yk_variants.h. */

#endif
