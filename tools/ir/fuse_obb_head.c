/* fuse_obb_head.c — the OBB head's rewrite (fuse_obb_head.h). The recognition and the numeric
 * check are the Detect fusion's (lw_head.obb, head_verify.c's dist2rbox reference); this file
 * only builds the node pair that replaces the verified subgraph. */
#include <stdio.h>
#include <stdlib.h>

#include "fuse_obb_head.h"

int lw_obb_rewrite(ir_graph *g, const lw_head *h, int dec, const char *base) {
  char name[300];
  snprintf(name, sizeof name, "%s/obb_decode", base);
  int in[LW_HEAD_MAX_SCALES + 1];
  for (int s = 0; s < h->ns; s++) in[s] = h->in[h->extra[0][s]];
  in[h->ns] = dec; /* the axis-aligned rows: what gets turned, and which anchors can pass */
  int out = h->y;
  const int nd = ir_add_node(g, name, "ObbDecode", in, h->ns + 1, &out, 1);
  if (nd < 0) return -1;
  free(g->nodes[nd].domain);
  g->nodes[nd].domain = ir_strdup("yolort");
  int64_t strides[LW_HEAD_MAX_SCALES];
  for (int s = 0; s < h->ns; s++) strides[s] = h->stride[s];
  if (!g->nodes[nd].domain || ir_set_attr_ints(g, nd, "strides", strides, h->ns)) return -1;
  if (h->obb == 2 && ir_set_attr_int(g, nd, "angle_raw", 1)) return -1; /* YOLO26 OBB26: no sigmoid */
  if (!g->task || !g->task[0]) { /* what it is, when the export did not say */
    free(g->task);
    if (!(g->task = ir_strdup("obb"))) return -1;
  }
  return 0;
}

int lw_is_obb_node(const ir_node *n) { return ir_node_is_live_op(n, ONNX_OP_YOLORT_OBB_DECODE); }
