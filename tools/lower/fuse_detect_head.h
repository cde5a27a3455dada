/* fuse_detect_head.h — the Ultralytics Detect head's decode subgraph -> one DetectDecode node
 * (domain "yolort"), lowered to YRT_OP_DETECT_DECODE. Private to tools/lower. */
#ifndef YOLORT_FUSE_DETECT_HEAD_H
#define YOLORT_FUSE_DETECT_HEAD_H

#include <stddef.h>

#include "ir.h"
#include "lower_internal.h"

/* Runs on the IR after ir_qdq_annotate (shapes known, Q/DQ folded into annotations) and before
 * ir_mark_fp32_region. Finds output0 = Concat(Mul(dist2bbox(DFL(box logits)), strides),
 * Sigmoid(class logits)) as exported by Ultralytics, checks every constant (anchors == grid
 * cell + 0.5, strides == input / H, DFL weights == arange(reg_max), axes, perms, sizes) and
 * replaces it by one node. Anything unexpected leaves the graph unchanged: *fused = 0 and
 * note says why. On success *fused = 1, *n_removed = nodes replaced, note summarises. Only
 * allocation failures return an error. */
yrt_status lw_fuse_detect_head(ir_graph *g, int *fused, int *n_removed, char *note, size_t note_cap,
                               yrt_error *err);

/* The --keep-fp32 names without those of nodes the fusion replaced (they run in float inside
 * detect_decode anyway); unknown names stay, so ir_mark_fp32_region still reports them.
 * NULL-terminated, malloc'ed (free()); NULL when out of memory. */
const char **lw_detect_keep_filter(const ir_graph *g, const char *const *keep);

/* 1 for the node lw_fuse_detect_head makes. */
int lw_is_detect_node(const ir_node *n);

/* Lower that node: YRT_OP_DETECT_DECODE reading the logits in the form their convs wrote
 * (int8 or float NHWC). */
yrt_status lw_lower_detect(lw_ctx *c, int ni);

#endif
