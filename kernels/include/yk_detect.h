/*
 * yk_detect.h — the Ultralytics Detect head decode (DFL + dist2bbox + sigmoid) in one pass.
 *
 * Per scale s: box logits [H][W][4*reg_max] and class logits [H][W][nc] (NHWC, batch 1), int8
 * or float. Output y [4 + nc][n_anchors] (float, anchors scale by scale, row-major), exactly the
 * ONNX export's output0:
 *   d[k]  = sum_j proj[j] * softmax_j(box[k*reg_max + j])          k = left, top, right, bottom
 *           (reg_max 1, heads without DFL such as YOLO26: d[k] = box[k])
 *   a     = (col + 0.5, row + 0.5)
 *   x1y1  = a - d[0..1];  x2y2 = a + d[2..3]
 *   y[0..1] = (x1y1 + x2y2) / 2 * stride;  y[2..3] = (x2y2 - x1y1) * stride
 *           (xyxy: y[0..1] = x1y1 * stride;  y[2..3] = x2y2 * stride)
 *   y[4+c]  = sigmoid(cls[c])
 * Int8 inputs go through 256-entry tables built once (yk_detect_tables): exp(s * d) for the
 * softmax's d = q - qmax in [-255, 0], and sigmoid((q - zp) * s). Float inputs use the float
 * kernels' softmax and sigmoid. The kernel never allocates (scratch lives on the stack, bounded
 * by the limits below).
 */
#ifndef YOLORT_YK_DETECT_H
#define YOLORT_YK_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "yk.h"

#define YK_DETECT_MAX_SCALES 3   /* 2 * scales + 1 inputs fit in a node's 8 slots */
#define YK_DETECT_MAX_REG_MAX 64
#define YK_DETECT_MAX_CLASSES 1024

typedef struct yk_detect_scale {
  const void *box, *cls;   /* int8 when the matching table is set, float otherwise */
  const float *box_exp;    /* int8 box: [256] exp(s_box * (i - 255)), NULL for float; reg_max 1:
                              [256] the dequantized value of i - 128 */
  int box_no_max;          /* int8 box: 1 when yk_detect_box_no_max(s_box) */
  const float *cls_sig;    /* int8 cls: [256] sigmoid of (i - 128 - zp) * s, NULL for float */
  int h, w;
  float stride;
  size_t first;            /* index of this scale's first anchor in y */
} yk_detect_scale;

typedef struct yk_detect_params {
  int n_scales, reg_max, nc;
  int xyxy;                /* 1: corners instead of centre and size */
  size_t n_anchors;
  const float *proj;       /* [reg_max]: the DFL conv weights (arange(reg_max) in the export) */
  yk_detect_scale s[YK_DETECT_MAX_SCALES];
} yk_detect_params;

/* 1 when an int8 box tensor of this scale may skip the softmax's max: exp(s * (q - 127)) is then
 * a normal float for every q (s * 255 <= 80), so subtracting the constant 127 instead of each
 * side's max is as accurate and saves the max pass (40% of the int8 decode). */
static inline int yk_detect_box_no_max(float scale) { return scale * 255.0f <= 80.0f; }

/* Fill the tables of one int8 tensor: box (softmax) and class (sigmoid) variants. */
void yk_detect_exp_table(float scale, float table[256]);
void yk_detect_sigmoid_table(const yk_isa *isa, float scale, int32_t zp, float table[256]);

/* Decode anchors [lo, hi) (global indices) into y [4 + nc][n_anchors]. */
void yk_detect_decode(const yk_isa *isa, const yk_detect_params *p, size_t lo, size_t hi, float *y);
/* The same into columns [col, col + hi - lo) of rows ys floats apart (ys >= col + hi - lo): a few
 * listed anchors packed together, so their 4 + nc values are not 4 + nc cache lines each. */
void yk_detect_decode_cols(const yk_isa *isa, const yk_detect_params *p, size_t lo, size_t hi, float *y, size_t ys,
                           size_t col);

/* Threshold-aware decode: the anchors i < n of an anchor-major class block [n][nc] with some value
 * over t — int8 q > t, float !(x < t) (NaN counts as over) — written as base + i to list in
 * increasing order (room for n); returns their count. Scans n * nc values once (vectorised). */
size_t yk_detect_over_i8(const yk_isa *isa, const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list);
size_t yk_detect_over_f32(const yk_isa *isa, const float *x, size_t n, int nc, float t, int32_t base, int32_t *list);

#endif
