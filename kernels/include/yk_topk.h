/*
 * yk_topk.h — the end-to-end (NMS-free) head's selection: YOLOv10 / YOLO26 / YOLO11 end2end
 * exports end their graph with Ultralytics' postprocess
 *   best[a]   = max_c score[c][a]                       (ReduceMax over classes)
 *   anchors   = top k of best                           (TopK, sorted)
 *   pairs     = top k of score[c][anchors[i]] over (i, c), flat index i * nc + c   (TopK)
 *   out[j]    = box(anchors[pair / nc]), score, pair % nc
 * This kernel computes the same without sorting anchors x classes: one pass for the per-anchor
 * maximum, then quickselect + a sort of only the k survivors, twice. Ties order like
 * onnxruntime's TopK: larger value first, then the lower index.
 *
 * x is [4 + nc][n] (rows: 4 box coordinates, then class scores, as output0 / DETECT_DECODE);
 * y is [k][6]: x1, y1, x2, y2 (whatever the box rows hold), score, class (as float). k <= n.
 * No allocation: scratch holds yk_topk_scratch_bytes(nc, n, k) bytes.
 * yk_detect_topk_rows: x is [4 + nc + ne][n], y [k][6 + ne], the ne rows after the scores
 * (Pose / Segment / OBB.postprocess: keypoints, mask coefficients, angle) copied from the chosen
 * anchor after the class, as GatherElements with the boxes' index.
 */
#ifndef YOLORT_YK_TOPK_H
#define YOLORT_YK_TOPK_H

#include <stddef.h>

size_t yk_topk_scratch_bytes(int nc, int n, int k);
void yk_detect_topk(const float *x, int nc, int n, int k, float *y, void *scratch);
void yk_detect_topk_rows(const float *x, int nc, int ne, int n, int k, float *y, void *scratch);

#endif
