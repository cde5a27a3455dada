/* cut_graph_nms.c — a graph that ends in its own NonMaxSuppression (Ultralytics nms=True) cut back
 * to the decoded rows before it; yolort's NMS then runs with the graph's thresholds (see
 * cut_graph_nms.h). */
#include "cut_graph_nms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_passes.h"
#include "onnx_ops.h"

static int find_nms(const ir_graph *g) {
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead && ir_node_is_op(&g->nodes[i], ONNX_OP_NON_MAX_SUPPRESSION)) return i;
  return -1;
}

/* A scalar constant's value, NAN when t is not one. */
static double scalar(const ir_graph *g, int t) {
  if (t < 0 || !g->tensors[t].data || ir_numel(&g->tensors[t]) != 1) return NAN;
  return ir_const_f64(&g->tensors[t], 0);
}

/* Marks in `in` the nodes of the backward cone of tensor t, not going past tensor stop.
 * Returns -1 when the cone reaches a graph input (t does not come from stop alone). */
static int cone(const ir_graph *g, int t, int stop, char *in) {
  if (t < 0 || t == stop || g->tensors[t].data) return 0;
  const int p = g->tensors[t].producer;
  if (p < 0) return -1;
  if (in[p]) return 0;
  in[p] = 1;
  for (int j = 0; j < g->nodes[p].n_in; j++)
    if (cone(g, g->nodes[p].in[j], stop, in)) return -1;
  return 0;
}

/* 1 when tensor t reaches tensor goal through nodes marked in `in`. */
static int reaches(const ir_graph *g, int t, int goal, const char *in, int depth) {
  if (t == goal) return 1;
  if (depth > 256) return 0;
  for (int i = 0; i < g->n_nodes; i++) {
    if (!in[i]) continue;
    const ir_node *n = &g->nodes[i];
    int reads = 0;
    for (int j = 0; j < n->n_in && !reads; j++) reads = n->in[j] == t;
    if (!reads) continue;
    for (int j = 0; j < n->n_out; j++)
      if (n->out[j] >= 0 && reaches(g, n->out[j], goal, in, depth + 1)) return 1;
  }
  return 0;
}

/* Nodes no graph output needs, dead (ir_compact then drops them and their tensors). */
static void mark_unused_dead(ir_graph *g) {
  for (int again = 1; again;) {
    again = 0;
    for (int i = 0; i < g->n_nodes; i++) {
      ir_node *n = &g->nodes[i];
      if (n->dead) continue;
      int needed = 0;
      for (int j = 0; j < n->n_out && !needed; j++) {
        int cons[1];
        needed = n->out[j] >= 0 && (g->tensors[n->out[j]].is_output || ir_consumers(g, n->out[j], cons, 1) > 0);
      }
      if (!needed) n->dead = again = 1;
    }
  }
}

yrt_status lw_cut_graph_nms(ir_graph *g, int *cut, char *note, size_t cap, char *node, size_t node_cap,
                            yrt_error *err) {
  *cut = 0;
  if (cap) note[0] = 0;
  const int ni = find_nms(g);
  if (ni < 0) return YRT_OK;
  const ir_node *nms = &g->nodes[ni];
  if (node_cap) snprintf(node, node_cap, "%s", nms->name ? nms->name : "?");
  char what[256] = "";
  /* The rows before the NMS: the input of a Transpose(0, 2, 1) (Ultralytics NMSModel transposes
   * the Detect output [1, 4 + nc, N] to [1, N, 4 + nc] and slices boxes and scores from it), the
   * one tensor both NMS operands come from. */
  int d = -1;
  char *in = calloc((size_t)g->n_nodes + 1, 1);
  if (!in) return yrt_set_error(err, YRT_ERR_NOMEM, "convert: out of memory");
  for (int i = 0; i < g->n_nodes && d < 0; i++) {
    const ir_node *n = &g->nodes[i];
    const ir_attr *perm = ir_attr_get(n, "perm");
    if (n->dead || !ir_node_is_op(n, ONNX_OP_TRANSPOSE) || !perm || perm->n_ints != 3 || perm->ints[0] != 0 ||
        perm->ints[1] != 2 || perm->ints[2] != 1 || n->n_in < 1)
      continue;
    memset(in, 0, (size_t)g->n_nodes);
    int ok = nms->n_in >= 2;
    for (int j = 0; j < 2 && ok; j++) ok = cone(g, nms->in[j], n->in[0], in) == 0;
    if (ok && in[i]) d = n->in[0];
  }
  if (d < 0) {
    free(in);
    snprintf(what, sizeof what, "its operands do not come from one transposed [1, 4 + nc, N] tensor (the layout of "
             "Ultralytics' nms=True export)");
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "convert: node '%.160s' is a NonMaxSuppression inside the graph and %s. Export with "
                         "nms=False (yolort does the NMS itself)", nms->name, what);
  }
  /* The graph's settings: IoU threshold (input 3), score threshold (input 4, else the scalar a
   * Greater in the cone compares the scores with), the output's row count as max detections, and
   * class-aware when the classes (an ArgMax) reach the boxes NMS reads (the class offset). */
  g->nms.set = 1;
  g->nms.iou = nms->n_in > 3 ? scalar(g, nms->in[3]) : NAN;
  g->nms.conf = nms->n_in > 4 ? scalar(g, nms->in[4]) : NAN;
  g->nms.class_aware = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    if (!in[i]) continue;
    const ir_node *n = &g->nodes[i];
    if (isnan(g->nms.conf) && ir_node_is(n, "Greater") && n->n_in == 2) g->nms.conf = scalar(g, n->in[1]);
    if (ir_node_is(n, "ArgMax") && n->n_out > 0 && reaches(g, n->out[0], nms->in[0], in, 0)) g->nms.class_aware = 1;
  }
  free(in);
  const ir_tensor *y = &g->tensors[g->outputs[0]];
  g->nms.max_det = y->rank == 3 && y->dims[1] > 0 ? (int)y->dims[1] : 0;
  if (!(g->nms.iou > 0 && g->nms.iou <= 1)) g->nms.iou = NAN;
  if (!(g->nms.conf >= 0 && g->nms.conf < 1)) g->nms.conf = NAN;
  /* output 0 becomes the rows; what only fed the old output dies with it (ir_compact) */
  const int old = g->outputs[0];
  g->tensors[old].is_output = 0;
  g->outputs[0] = d;
  g->tensors[d].is_output = 1;
  mark_unused_dead(g);
  *cut = 1;
  int k = snprintf(note, cap, "NonMaxSuppression '%.80s' and what follows it replaced by yolort's NMS (", nms->name);
  if (k > 0 && (size_t)k < cap)
    snprintf(note + k, cap - (size_t)k, "IoU %.3g, score %.3g, at most %d, %s): output0 is now '%.60s'", g->nms.iou,
             g->nms.conf, g->nms.max_det, g->nms.class_aware ? "per class" : "class-agnostic", g->tensors[d].name);
  return YRT_OK;
}
