/* probiou.h — rotated boxes as Gaussians (Ultralytics utils/metrics.py: _get_covariance_matrix,
 * batch_probiou; "Gaussian Bounding Boxes and Probabilistic Intersection-over-Union", Llerena et
 * al. 2021) and their corners (ops.xywhr2xyxyxyxy), for the rotated NMS (postprocess.c) and the
 * rotated boxes of the API (session_keypoints.c). Private to the runtime; no allocation. */
#ifndef YOLORT_PROBIOU_H
#define YOLORT_PROBIOU_H

/* A box (cx, cy, w, h, angle) as a Gaussian: its centre and covariance [[a, c], [c, b]],
 * a = w^2/12 cos^2 + h^2/12 sin^2, b = w^2/12 sin^2 + h^2/12 cos^2, c = (w^2 - h^2)/12 cos sin. */
typedef struct yrt_gauss {
  float x, y, a, b, c;
} yrt_gauss;

void yrt_rbox_gauss(float cx, float cy, float w, float h, float angle, yrt_gauss *g);

/* 1 - the Hellinger distance of the two Gaussians through their Bhattacharyya distance, clamped
 * to [1e-7, 100], exactly as batch_probiou (eps 1e-7), computed in double: in [0, 1], 1 for equal
 * boxes, symmetric. */
double yrt_probiou(const yrt_gauss *p, const yrt_gauss *q);

/* The four corners, xywhr2xyxyxyxy's order: c + wv + hv, c + wv - hv, c - wv - hv, c - wv + hv with
 * wv = w/2 (cos, sin), hv = h/2 (-sin, cos). */
void yrt_rbox_corners(float cx, float cy, float w, float h, float angle, float corners[4][2]);

#endif
