/* fuse_pose_head.h — the Ultralytics Pose head's keypoint decode -> one PoseDecode node (domain
 * "yolort"), lowered to YRT_OP_POSE_DECODE. An IR pass (tools/ir). */
#ifndef YOLORT_FUSE_POSE_HEAD_H
#define YOLORT_FUSE_POSE_HEAD_H

#include <stddef.h>

#include "fuse_detect_head.h"
#include "ir.h"
#include "onnx_ops.h"
#include "yolort_format.h"

/* Runs after lw_fuse_detect_head fused the boxes (a DetectDecode node d). Recognises the
 * keypoint branch by what it computes: a Concat(axis 1) reading d's rows and then a tensor
 * [1, nk kd, N] of the same anchors, computed from one per-scale conv output [1, nk kd, H, W]
 * per grid of d. Taken when, on random logits, the export's own subgraph gives exactly
 * x = (2 v + col) stride, y = (2 v + row) stride (, sigmoid(v)) for each keypoint (kd from
 * the metadata's kpt_shape, else 3 then 2). *fused = 1 then (note summarises, the task becomes
 * "pose" when the export did not record it); otherwise *fused = 0 and note says why (for a
 * model whose metadata says pose, convert refuses with it). Only allocation failures return an
 * error. */
yrt_status lw_fuse_pose_head(ir_graph *g, lw_head_lower_fn lower, int *fused, int *n_removed, char *note, size_t cap, yrt_error *err);

/* 1 for the node lw_fuse_pose_head makes. */
int lw_is_pose_node(const ir_node *n);

#endif
