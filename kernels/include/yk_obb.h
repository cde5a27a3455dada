/*
 * yk_obb.h — the rotated boxes of the Ultralytics OBB head (dist2rbox as exported), from the
 * Detect decode's axis-aligned rows and the angle conv's per-scale maps.
 *
 * Per anchor a of scale s (grid H x W, cell (row, col), stride), with the angle logit v of that
 * cell (NHWC [H][W][1], int8 through a dequantization table or float, as yk_pose_scale):
 *   t = (sigmoid(v) - 0.25) pi                                  (Ultralytics OBB.forward)
 *   t = v                              (raw: YOLO26's OBB26.forward_head, no sigmoid)
 *   ax = (col + 0.5) stride, ay = (row + 0.5) stride; dx = cx - ax, dy = cy - ay
 *   cx' = ax + dx cos t - dy sin t,  cy' = ay + dx sin t + dy cos t   (dist2rbox: the half
 *   difference of the distances, (r - l) / 2 stride = dx, turned by t), w, h unchanged.
 * Input rows [4 + nc][n_anchors] (cx, cy, w, h, scores); output [4 + nc + 1][n_anchors]: the
 * turned box, the scores copied, then t. No allocation.
 */
#ifndef YOLORT_YK_OBB_H
#define YOLORT_YK_OBB_H

#include <stddef.h>

#include "yk_pose.h" /* yk_pose_scale: the same per-scale map description, yk_pose_deq_table */

#define YK_OBB_MAX_SCALES YK_POSE_MAX_SCALES

typedef struct yk_obb_params {
  int n_scales, nc;
  int raw; /* 1: the angle is the map's value (YOLO26 OBB26) */
  size_t n_anchors;
  yk_pose_scale s[YK_OBB_MAX_SCALES]; /* the angle maps: one channel */
} yk_obb_params;

/* Anchors [lo, hi): the score rows copied for every anchor; rows 0..3 turned and row 4 + nc the
 * angle written for those whose best score is over conf (NaN: every anchor; the others' box and
 * angle rows are left as they were: no detection can come from them). */
void yk_obb_decode(const yk_obb_params *p, const float *rows, size_t lo, size_t hi, float conf, float *y);

/* The angle of logit v: (sigmoid(v) - 0.25) pi, in float as the export computes it. */
float yk_obb_angle(float v);

#endif
