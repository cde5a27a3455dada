/* fuse_e2e_head.h — the end-to-end (NMS-free) head's TopK selection as one DetectTopK node
 * (fuse_e2e_head.c). */
#ifndef YOLORT_FUSE_E2E_HEAD_H
#define YOLORT_FUSE_E2E_HEAD_H

#include <stddef.h>

#include "ir.h"
#include "onnx_ops.h"
#include "yolort_format.h"

/* Replace an output's Ultralytics end-to-end postprocess (ReduceMax -> TopK -> gathers -> TopK
 * -> Concat [1,k,6]) by DetectTopK(X) (domain "yolort", attributes k, nc), X = [1, 4+nc, N].
 * Structural: needs constants folded, not shapes. *fused = 1 and note filled when it did. */
yrt_status lw_fuse_e2e_head(ir_graph *g, int *fused, char *note, size_t cap, yrt_error *err);
/* 1 if n is a live DetectTopK node of domain "yolort". */
int lw_is_e2e_node(const ir_node *n);

#endif
