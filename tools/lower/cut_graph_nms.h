/* cut_graph_nms.h — NMS inside the graph (Ultralytics nms=True exports): the NonMaxSuppression
 * and everything after it cut off, output 0 made the decoded rows [1, 4 + nc, N] they read, and
 * the graph's IoU threshold, score threshold, detection count and per-class mode kept in g->nms
 * (stored in the .yrt as the model's postprocess defaults). The head fusion then runs on those
 * rows as on any export. Private to tools/lower. */
#ifndef YOLORT_CUT_GRAPH_NMS_H
#define YOLORT_CUT_GRAPH_NMS_H

#include <stddef.h>

#include "ir.h"
#include "yolort.h"

/* Runs first, on the graph as read (no shapes needed). No NonMaxSuppression: *cut = 0. One whose
 * operands come from one Transpose(0, 2, 1) of a tensor (the Detect output): cut there, *cut = 1,
 * note says what was replaced, node names the NMS. Any other NMS graph: YRT_ERR_UNSUPPORTED naming
 * the node. */
yrt_status lw_cut_graph_nms(ir_graph *g, int *cut, char *note, size_t cap, char *node, size_t node_cap,
                            yrt_error *err);

#endif
