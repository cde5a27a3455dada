/* stem.c — the high-resolution stem of a detector: the nodes computed only from feature maps at
 * stride <= S of the image input (for YOLO11 at S = 8: model.0-4, before the first stride-16
 * conv). Their activations span the widest ranges of the network (SiLU outputs up to ~40 with
 * most values under 3), so int8 loses the most there; keeping them in float is the cheapest
 * large accuracy gain (docs/accuracy.md). Needs shapes (run ir_infer_shapes first).
 * Not in it: pure data movement of the image input itself (YOLOv5 v1-5 / YOLOX Focus: four
 * strided Slices and a Concat of the image). The image is 8-bit already (its int8 form holds every
 * pixel level, docs/accuracy.md session 17), and copying it in float was 20% of YOLOX-nano's
 * node time at --float-stem 4. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "onnx_ops.h"

static int is_activation(const ir_graph *g, int t) { return t >= 0 && !g->tensors[t].data; }

/* A node that copies values (Slice, Concat, Reshape, Transpose, Split, ...): no arithmetic, so
 * int8 in, int8 out loses nothing. MaxPool and Resize excluded (not every Resize copies). */
static int copies_values(const ir_node *n) {
  const onnx_op_row *row = ir_node_op(n);
  return row && row->qclass == ONNX_Q_MOVE && row->lower != ONNX_LOWER_MAXPOOL && row->lower != ONNX_LOWER_RESIZE;
}

/* Stride of a rank-4 NCHW activation against the image height, 0 if not a feature map. */
static int64_t own_stride(const ir_graph *g, int t, int64_t image_h) {
  const ir_tensor *x = &g->tensors[t];
  if (x->rank != 4 || x->dims[2] <= 0 || image_h <= 0) return 0;
  return (image_h + x->dims[2] - 1) / x->dims[2];
}

yrt_status ir_stem_nodes(const ir_graph *g, int max_stride, char ***names, int *n, yrt_error *err) {
  *names = NULL;
  *n = 0;
  if (!g || max_stride < 1) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "stem: bad arguments");
  int64_t image_h = 0;
  for (int i = 0; i < g->n_inputs && !image_h; i++) {
    const ir_tensor *x = &g->tensors[g->inputs[i]];
    if (x->rank == 4 && x->dims[2] > 0) image_h = x->dims[2];
  }
  if (!image_h) return yrt_set_error(err, YRT_ERR_SHAPE, "stem: no image input [N,C,H,W] of known height");
  int *order, n_order;
  yrt_status st = ir_topo_order(g, &order, &n_order, err);
  if (st) return st;
  /* reach[t]: the largest stride among t and everything it is computed from */
  int64_t *reach = calloc((size_t)g->n_tensors + 1, sizeof *reach);
  char *image = calloc((size_t)g->n_tensors + 1, 1); /* image[t]: t is values of the image input */
  char **out = calloc((size_t)n_order + 1, sizeof *out);
  if (!reach || !image || !out) st = yrt_set_error(err, YRT_ERR_NOMEM, "stem: out of memory");
  for (int i = 0; !st && i < g->n_inputs; i++) {
    reach[g->inputs[i]] = own_stride(g, g->inputs[i], image_h);
    image[g->inputs[i]] = 1;
  }
  int count = 0;
  for (int k = 0; !st && k < n_order; k++) {
    const ir_node *nd = &g->nodes[order[k]];
    int64_t r = 0;
    int reads_activation = 0, of_image = copies_values(nd);
    for (int j = 0; j < nd->n_in; j++)
      if (is_activation(g, nd->in[j])) {
        reads_activation = 1;
        if (reach[nd->in[j]] > r) r = reach[nd->in[j]];
        if (!image[nd->in[j]]) of_image = 0;
      }
    for (int j = 0; j < nd->n_out; j++) {
      const int64_t s = nd->out[j] >= 0 ? own_stride(g, nd->out[j], image_h) : 0;
      if (s > r) r = s;
    }
    for (int j = 0; j < nd->n_out; j++)
      if (nd->out[j] >= 0) {
        reach[nd->out[j]] = r;
        image[nd->out[j]] = (char)(reads_activation && of_image);
      }
    if (!reads_activation || of_image || r == 0 || r > max_stride || !nd->name || !nd->name[0]) continue;
    if (!(out[count] = strdup(nd->name))) st = yrt_set_error(err, YRT_ERR_NOMEM, "stem: out of memory");
    else count++;
  }
  free(reach);
  free(image);
  free(order);
  if (st) {
    for (int i = 0; out && i < count; i++) free(out[i]);
    free(out);
    return st;
  }
  *names = out;
  *n = count;
  return YRT_OK;
}
