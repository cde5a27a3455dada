/* fp32_region.c — decide which nodes run in float: the detection head (everything downstream
 * of the op that flattens a rank-4 activation, or of an op flagged ONNX_F_HEAD_SEED in the op
 * table — Sigmoid/Softmax/Gather/Slice — on a non-rank-4 activation) plus user exclusions. Needs shapes (run ir_infer_shapes first).
 *
 * Attention that flattens (YOLO12's area attention A2C2f / AAttn: qkv conv -> flatten to tokens
 * -> MatMul / Softmax -> back to NCHW -> pe conv, Add, proj conv) also starts at a flatten, but
 * returns to the image: a region started by a flatten carries the seed's grid (batch, H, W of
 * its rank-4 input), passed on through the region while every region input agrees on it, and
 * ENDS at the first node whose output is rank 4 on that grid again: that node is float, its
 * output is not in the region, so the convs and Adds after the attention stay int8 instead of
 * the whole rest of the network falling to float. A detection head never comes back (its
 * scales' grids differ once concatenated, and its rank-4 DFL views are not [N, C, H, W]). */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"
#include "onnx_ops.h"

static int is_activation(const ir_graph *g, int t) { return t >= 0 && !g->tensors[t].data; }

/* The image grid a region tensor came from: batch, height, width of the flattened rank-4
 * input; h == 0: none (a head seed, or region inputs from different grids). */
typedef struct grid {
  int64_t n, h, w;
} grid;

static int is_flatten(const ir_graph *g, const ir_node *n) {
  return n->n_in >= 1 && n->n_out >= 1 && is_activation(g, n->in[0]) && g->tensors[n->in[0]].rank == 4 &&
         g->tensors[n->out[0]].rank != 4;
}

/* 1 when node nd, in the region with grid gr, writes a rank-4 tensor on that grid: the end. */
static int back_on_grid(const ir_graph *g, const ir_node *nd, grid gr) {
  if (gr.h <= 0 || nd->n_out != 1) return 0;
  const ir_tensor *y = &g->tensors[nd->out[0]];
  return y->rank == 4 && y->dims[0] == gr.n && y->dims[2] == gr.h && y->dims[3] == gr.w;
}

/* y is x [N, C, H, W] with s x s pixel blocks moved into channels or back, s >= 2:
 * [N, C s^2, H / s, W / s] or [N, C / s^2, H s, W s]. */
static int is_block_shuffle_of(const ir_tensor *x, const ir_tensor *y) {
  if (y->rank != 4 || y->dims[0] != x->dims[0]) return 0;
  for (int64_t s = 2; s <= 8; s++) {
    if (x->dims[2] % s == 0 && x->dims[3] % s == 0 && y->dims[1] == x->dims[1] * s * s &&
        y->dims[2] == x->dims[2] / s && y->dims[3] == x->dims[3] / s)
      return 1;
    if (x->dims[1] % (s * s) == 0 && y->dims[1] == x->dims[1] / (s * s) && y->dims[2] == x->dims[2] * s &&
        y->dims[3] == x->dims[3] * s)
      return 1;
  }
  return 0;
}

/* A flatten that is data movement inside the network, not a head: the seed and the nodes after
 * it (each the only reader of the one before, none a graph output) are Reshapes and Transposes
 * that come back to an image. blocks 0, a channel permutation: every step keeps the spatial axes
 * last and in place and the chain ends in the seed input's own [N, C, H, W] (ShuffleNetV2's
 * channel shuffle, YOLOv5-Lite: Reshape [N, g, C/g, H, W], Transpose (0, 2, 1, 3, 4), Reshape
 * [N, C, H, W]). blocks 1, a space-to-depth (or back): the first rank-4 tensor is the seed input
 * moved in s x s pixel blocks (YOLOv5's Focus as TI's YOLO-Pose exports it, "contract": Reshape
 * [N, C, H/2, 2, W/2, 2], Transpose, Reshape [N, 4C, H/2, W/2]; as a head seed it took the whole
 * network into float). Their values are the tensor they read, reordered: they stay int8. A head's
 * reshape never returns to an image (its rows end in a graph output). */
static int is_detour(const ir_graph *g, const ir_node *seed, int blocks) {
  const ir_tensor *x = &g->tensors[seed->in[0]];
  const ir_node *nd = seed;
  for (int step = 0; step < 8; step++) {
    if (!(ir_node_is_op(nd, ONNX_OP_RESHAPE) || ir_node_is_op(nd, ONNX_OP_TRANSPOSE)) || nd->n_out != 1 ||
        nd->out[0] < 0)
      return 0;
    const ir_tensor *y = &g->tensors[nd->out[0]];
    if (y->is_output) return 0;
    if (!blocks && (y->rank < 3 || y->dims[y->rank - 2] != x->dims[2] || y->dims[y->rank - 1] != x->dims[3] ||
                    y->dims[0] != x->dims[0]))
      return 0;
    if (!blocks && ir_node_is_op(nd, ONNX_OP_TRANSPOSE)) {
      const ir_attr *perm = ir_attr_get(nd, "perm");
      if (!perm || perm->n_ints != y->rank || perm->ints[0] != 0 || perm->ints[y->rank - 2] != y->rank - 2 ||
          perm->ints[y->rank - 1] != y->rank - 1)
        return 0;
    }
    if (step > 0 && y->rank == 4) {
      if (blocks) return is_block_shuffle_of(x, y);
      if (y->dims[1] == x->dims[1]) return 1; /* back: [N, C, H, W] */
    }
    int next[2];
    if (ir_consumers(g, nd->out[0], next, 2) != 1) return 0;
    nd = &g->nodes[next[0]];
    if (nd->n_in < 1 || nd->in[0] != y - g->tensors) return 0;
  }
  return 0;
}

static int is_seed(const ir_graph *g, const ir_node *n) {
  if (n->n_in < 1 || n->n_out < 1 || !is_activation(g, n->in[0])) return 0;
  int ri = g->tensors[n->in[0]].rank, ro = g->tensors[n->out[0]].rank;
  if (ri == 4 && ro != 4) return !is_detour(g, n, 0) && !is_detour(g, n, 1);
  const onnx_op_row *row = ir_node_op(n);
  return ri != 4 && row && (row->flags & ONNX_F_HEAD_SEED);
}

yrt_status ir_mark_fp32_region(ir_graph *g, const char *const *exclude, yrt_error *err) {
  return ir_mark_fp32_region_ex(g, exclude, 1, err);
}

yrt_status ir_mark_fp32_region_ex(ir_graph *g, const char *const *exclude, int head, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_mark_fp32_region: NULL graph");
  int *order, n;
  yrt_status st = ir_topo_order(g, &order, &n, err);
  if (st) return st;
  char *hot = calloc((size_t)(g->n_tensors ? g->n_tensors : 1), 1); /* produced in the region */
  grid *grids = calloc((size_t)(g->n_tensors ? g->n_tensors : 1), sizeof(grid)); /* of hot tensors */
  if (!hot || !grids) {
    free(hot);
    free(grids);
    free(order);
    return yrt_set_error(err, YRT_ERR_NOMEM, "fp32 region: out of memory");
  }
  for (int k = 0; k < n; k++) {
    ir_node *nd = &g->nodes[order[k]];
    for (int j = 0; j < nd->n_in; j++)
      if (nd->in[j] >= 0 && g->tensors[nd->in[j]].rank < 0 && is_activation(g, nd->in[j])) {
        st = yrt_set_error(err, YRT_ERR_SHAPE, "fp32 region: shape of '%s' unknown (run "
                           "ir_infer_shapes first)", g->tensors[nd->in[j]].name);
        goto done;
      }
    int in_region = 0;
    grid gr = {0, 0, 0};
    for (int j = 0; j < nd->n_in; j++) {
      const int t = nd->in[j];
      if (t < 0 || !hot[t]) continue;
      if (!in_region) gr = grids[t];
      else if (memcmp(&gr, &grids[t], sizeof gr) != 0) gr.h = 0; /* grids disagree: none */
      in_region = 1;
    }
    if (!in_region && head && is_seed(g, nd)) {
      in_region = 1;
      if (is_flatten(g, nd)) {
        const ir_tensor *x = &g->tensors[nd->in[0]];
        gr = (grid){x->dims[0], x->dims[2], x->dims[3]};
      }
    }
    if (in_region) {
      nd->fp32 = 1;
      if (!back_on_grid(g, nd, gr))
        for (int j = 0; j < nd->n_out; j++) {
          hot[nd->out[j]] = 1;
          grids[nd->out[j]] = gr;
        }
    }
  }
  for (int e = 0; exclude && exclude[e]; e++) {
    int found = 0;
    for (int i = 0; i < g->n_nodes; i++)
      if (!g->nodes[i].dead && ir_name_matches(g->nodes[i].name, exclude[e])) {
        g->nodes[i].fp32 = 1;
        found = 1;
      }
    if (!found) {
      st = yrt_set_error(err, YRT_ERR_INVALID_ARG, "fp32 exclusion: no node matches '%s'", exclude[e]);
      goto done;
    }
  }
  /* Clear q where every reader computes in float and the value is made in float (or is a
   * constant whose float data is exact): such tensors never exist in int8. */
  for (int t = 0; t < g->n_tensors; t++) {
    ir_tensor *x = &g->tensors[t];
    if (!x->q.on) continue;
    int p = x->producer;
    int made_float = x->data ? 1 : (p >= 0 && !g->nodes[p].dead && g->nodes[p].fp32);
    if (!made_float || x->is_input) continue;
    int all_fp32 = 1, readers = 0;
    for (int i = 0; i < g->n_nodes && all_fp32; i++) {
      const ir_node *nd = &g->nodes[i];
      if (nd->dead) continue;
      for (int j = 0; j < nd->n_in; j++)
        if (nd->in[j] == t) {
          readers++;
          if (!nd->fp32) all_fp32 = 0;
          break;
        }
    }
    if (all_fp32 && (readers > 0 || x->is_output)) ir_tensor_clear_quant(x);
  }
done:
  free(grids);
  free(hot);
  free(order);
  return st;
}
