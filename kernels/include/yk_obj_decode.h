/*
 * yk_obj_decode.h — the decode of objectness heads (YOLOv5 / YOLOv7 anchor heads, YOLOX) in one
 * pass, into the same rows as the Ultralytics Detect decode (yk_detect.h), so NMS and every
 * caller after it are shared.
 *
 * Per scale s (grid H x W, stride, na anchors a of size anchor[s][a] in pixels), per cell
 * (row, col) and anchor a, the logits v[0..4+nc] of that anchor: box 4, objectness, nc classes.
 * Joint layout: one NHWC tensor [H][W][na * per] (channel a * per + k; per = 5 + nc, or more
 * when each anchor's vector carries further values after its classes, as a YOLO-Pose head's
 * keypoints, which this decode skips). Split layout
 * (YOLOX, na = 1): a box tensor [H][W][4] and a score tensor [H][W][1 + nc] (objectness first).
 * Int8 or float, each tensor its own scale and zero point.
 *   YOLOv5 / v7 (YK_OBJ_SIGMOID):  cx = (2 sig(v0) - 0.5 + col) * stride, cy likewise with row,
 *                                  w = (2 sig(v2))^2 * anchor_w, h likewise
 *   YOLOX (YK_OBJ_EXP):            cx = (v0 + col) * stride, w = exp(v2) * anchor_w (anchor =
 *                                  stride), cy / h likewise
 *   score[c] = sig(v4) * sig(v5 + c)
 * Output y [4 + nc][n_anchors] (float): cx, cy, w, h, then the scores; anchors scale by scale,
 * then anchor by anchor, then cell by cell row-major (the exports' [1, na, H, W, 5 + nc] order).
 * Int8 inputs go through 256-entry tables made once per tensor (yk_obj_tables); a float head's
 * sigmoids go through the vectorised float kernel. No allocation (a few KB of stack).
 */
#ifndef YOLORT_YK_OBJ_DECODE_H
#define YOLORT_YK_OBJ_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "yk.h"

#define YK_OBJ_MAX_SCALES 4
#define YK_OBJ_MAX_ANCHORS 9
#define YK_OBJ_MAX_CLASSES 1024

enum yk_obj_mode { YK_OBJ_SIGMOID = 0, YK_OBJ_EXP = 1 };

/* What an int8 tensor's codes mean, by table index q + 128. */
typedef struct yk_obj_tables {
  float deq[256]; /* (q - zp) * scale */
  float sig[256]; /* sigmoid of it */
  float ex[256];  /* exp of it (YOLOX box size) */
} yk_obj_tables;

typedef struct yk_obj_scale {
  const void *x;               /* joint: all channels; split: the box channels */
  const void *score;           /* split: objectness + classes; joint: NULL */
  const yk_obj_tables *tx, *ts; /* tables of x / score when int8, NULL when float */
  int h, w;
  float stride;
  float anchor[YK_OBJ_MAX_ANCHORS][2]; /* w, h in pixels */
  size_t first;                /* index of this scale's first anchor in y */
} yk_obj_scale;

typedef struct yk_obj_params {
  int n_scales, na, nc, mode;
  int per;             /* joint layout: values per anchor vector, >= 5 + nc; 0: 5 + nc */
  size_t n_anchors;
  yk_obj_scale s[YK_OBJ_MAX_SCALES];
} yk_obj_params;

/* Values per anchor vector of a joint layout. */
static inline int yk_obj_per(const yk_obj_params *p) { return p->per > 0 ? p->per : 5 + p->nc; }

/* The tables of an int8 tensor of this scale and zero point. */
void yk_obj_tables_init(float scale, int32_t zp, yk_obj_tables *t);

/* Decode anchors [lo, hi) (global indices) into y [4 + nc][n_anchors]. isa picks the float
 * sigmoid's variant (yk_unary_f32). */
void yk_obj_decode(const yk_isa *isa, const yk_obj_params *p, size_t lo, size_t hi, float *y);

/* Threshold-aware decode (the camera path): the anchors in [lo, hi) whose score can pass conf
 * (objectness first: every score is objectness x a sigmoid, so at most it), in increasing order,
 * written to list (room for hi - lo); returns their count. Every anchor whose decoded score is
 * over conf is listed (float heads with a 1e-5 margin), a few under it may be. */
size_t yk_obj_over(const yk_obj_params *p, float conf, size_t lo, size_t hi, int32_t *list);
/* The listed anchors decoded as yk_obj_decode does, anchor list[j] into column j of rows n_list
 * floats apart ([4 + nc][n_list]). */
void yk_obj_decode_cols(const yk_isa *isa, const yk_obj_params *p, const int32_t *list, size_t n_list, float *y);

#endif
