/* fuse_obj_head.h — objectness heads (YOLOv5 / YOLOv7 anchor heads, YOLOX) -> one ObjDecode node
 * (domain "yolort"), lowered to YRT_OP_OBJ_DECODE. An IR pass (tools/ir). */
#ifndef YOLORT_FUSE_OBJ_HEAD_H
#define YOLORT_FUSE_OBJ_HEAD_H

#include <stddef.h>

#include "fuse_detect_head.h"
#include "ir.h"
#include "onnx_ops.h"
#include "yolort_format.h"

/* Runs where lw_fuse_detect_head runs, when that one left the graph alone. A graph output
 * [1, N, 5 + nc] (box 4, objectness, classes per row) is walked back to its per-grid conv
 * outputs; what the graph computes after them is measured on zero logits (decoded as YOLOv5 with
 * its anchors, as YOLOX, only a sigmoid, or raw) and accepted only when its output on random
 * logits equals that reading. The output then becomes the decode's [1, 4 + nc, N] (cx, cy, w, h,
 * objectness x class), the rows the Detect decode writes. A head that carries no anchors (raw
 * YOLOv5 maps) takes anchors[n_anchors] (w, h per grid and anchor, in pixels) or YOLOv5's
 * defaults, said in the note; a YOLOX head sets g->pre to its export's preprocessing unless it
 * is set. *fused = 0 with note saying why when nothing fits; only allocation failures return an
 * error. */
yrt_status lw_fuse_obj_head(ir_graph *g, lw_head_lower_fn lower, const float *anchors, int n_anchors, int *fused, int *n_removed, char *note,
                            size_t note_cap, yrt_error *err);

/* 1 for the node lw_fuse_obj_head makes. */
int lw_is_obj_node(const ir_node *n);

#endif
