/*
 * yk_pose.h — the keypoint decode of the Ultralytics Pose head (Pose.kpts_decode as exported),
 * from the keypoint conv's per-scale maps into rows beside the Detect decode's.
 *
 * Per scale s (grid H x W, stride), per cell (row, col), the nk * kd logits v of that cell, NHWC
 * [H][W][nk * kd] (channel k * kd + j for keypoint k, value j), int8 through a dequantization
 * table or float:
 *   x = (2 v[k kd] + col) * stride,  y = (2 v[k kd + 1] + row) * stride   (Ultralytics:
 *   (v * 2 + (anchor - 0.5)) * stride, anchor = cell + 0.5), visibility = sigmoid(v[k kd + 2])
 *   when kd == 3.
 * Output y [nk * kd][n_anchors] (float), anchors scale by scale, cell by cell row-major (the
 * Detect decode's order), or one anchor's nk * kd values.
 *
 * Anchor form (YOLO-Pose of the TI edgeai-yolov5 kind, an objectness head's keypoints): na
 * anchors per cell, each a vector of `per` values in the map [H][W][na * per] (channel a * per +
 * k), its keypoints from value `first` on; anchors ordered scale, anchor, cell (the objectness
 * decode's order, yk_obj_decode.h), and
 *   x = (2 v - 0.5 + col) * stride,  y = (2 v - 0.5 + row) * stride,  visibility = sigmoid(v)
 * (the TI Detect's (x_kpt * 2. - 0.5 + grid) * stride). No allocation.
 */
#ifndef YOLORT_YK_POSE_H
#define YOLORT_YK_POSE_H

#include <stddef.h>
#include <stdint.h>

#define YK_POSE_MAX_SCALES 4
#define YK_POSE_MAX_VALUES 3072 /* nk * kd */

typedef struct yk_pose_scale {
  const void *x;     /* NHWC [h][w][nk * kd], int8 when deq is set, else float */
  const float *deq;  /* int8: value of code q at deq[q + 128]; NULL: float */
  int h, w;
  float stride;
  size_t first;      /* index of this scale's first anchor */
} yk_pose_scale;

typedef struct yk_pose_params {
  int n_scales, nk, kd; /* kd: 2 (x, y) or 3 (x, y, visibility) */
  int anchor_form;      /* 0: Ultralytics (one anchor per cell, the map is the keypoints); 1: anchor form */
  int na, per, first;   /* anchor form: anchors per cell, values per anchor vector, first keypoint value */
  size_t n_anchors;
  yk_pose_scale s[YK_POSE_MAX_SCALES];
} yk_pose_params;

/* The dequantization table of an int8 map: t[q + 128] = (q - zp) * scale. */
void yk_pose_deq_table(float scale, int32_t zp, float t[256]);

/* Anchors [lo, hi) decoded into y [nk * kd][n_anchors] (their columns only). */
void yk_pose_decode(const yk_pose_params *p, size_t lo, size_t hi, float *y);

/* Anchor a (< n_anchors) decoded into xyv[nk * kd], keypoint by keypoint. */
void yk_pose_decode_anchor(const yk_pose_params *p, size_t a, float *xyv);

#endif
