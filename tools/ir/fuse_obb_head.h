/* fuse_obb_head.h — the Ultralytics OBB head (rotated boxes, issue 36 item 4): recognised and
 * verified by the Detect fusion (fuse_detect_head.c: one 1-channel pass-through per scale, the
 * angle logit, and rows that are dist2rbox boxes), rewritten here into DetectDecode (axis-aligned
 * rows) followed by one ObbDecode node (domain "yolort"), lowered to YRT_OP_OBB_DECODE. An IR pass
 * (tools/ir). */
#ifndef YOLORT_FUSE_OBB_HEAD_H
#define YOLORT_FUSE_OBB_HEAD_H

#include "fuse_detect_head.h"

/* After the DetectDecode node writing dec ([1, 4 + nc, N], cx, cy, w, h unrotated): an ObbDecode
 * reading h's per-scale angle maps (h->extra[0][s]) and dec, writing h->y [1, 4 + nc + 1, N]
 * (the centres turned by the angle, the scores, the angle in radians). -1 on allocation failure. */
int lw_obb_rewrite(ir_graph *g, const lw_head *h, int dec, const char *base);

/* 1 for the node lw_obb_rewrite makes. */
int lw_is_obb_node(const ir_node *n);

#endif
