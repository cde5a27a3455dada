/* census.c — see census.h. */
#include "census.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_ops.h"

static int model_index(const char *name) {
  const char *p = name ? strstr(name, "model.") : NULL;
  if (!p) return -1;
  return atoi(p + 6);
}

static void block_bounds(const ir_graph *g, int *last_backbone, int *head_k) {
  int head = -1, bb = -1;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    int k = model_index(n->name);
    if (k > head) head = k;
    if (k >= 0 && (ir_node_is_op(n, ONNX_OP_MAX_POOL) || ir_node_is_op(n, ONNX_OP_MATMUL)) && k > bb) bb = k;
  }
  *last_backbone = bb;
  *head_k = head;
}

int census_block_of(const ir_graph *g, int node, int *last_backbone, int *head_k) {
  int k = model_index(g->nodes[node].name);
  if (k < 0) return -1;
  if (k == *head_k) return 2;
  return k <= *last_backbone ? 0 : 1;
}

typedef struct op_count {
  const char *op;
  int n[4]; /* backbone, neck, head, other */
} op_count;

static int consumers1(const ir_graph *g, int t, int *node) {
  int c[2];
  int n = ir_consumers(g, t, c, 2);
  if (n == 1) *node = c[0];
  return n;
}

/* A Sigmoid whose output multiplies its own input is half of a SiLU (x * sigmoid(x)), an
 * activation like any other, not the class scores the head's last Sigmoid gives. */
static int sigmoid_in_silu(const ir_graph *g, const ir_node *sig) {
  if (sig->n_in < 1 || sig->n_out < 1) return 0;
  int cs[8];
  const int nc = ir_consumers(g, sig->out[0], cs, 8);
  for (int k = 0; k < nc && k < 8; k++) {
    const ir_node *m = &g->nodes[cs[k]];
    if (ir_node_is_op(m, ONNX_OP_MUL) && m->n_in == 2 && (m->in[0] == sig->in[0] || m->in[1] == sig->in[0]))
      return 1;
  }
  return 0;
}

void census_print(const ir_graph *g, FILE *f) {
  int bb, head;
  block_bounds(g, &bb, &head);
  op_count ops[64];
  int n_ops = 0, n_qdq = 0, n_live = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    n_live++;
    if (ir_node_is_op(n, ONNX_OP_QUANTIZE_LINEAR) || ir_node_is_op(n, ONNX_OP_DEQUANTIZE_LINEAR)) {
      n_qdq++;
      continue;
    }
    int b = census_block_of(g, i, &bb, &head);
    int j = 0;
    while (j < n_ops && strcmp(ops[j].op, n->op_type)) j++;
    if (j == n_ops) {
      if (n_ops == 64) continue;
      memset(&ops[n_ops], 0, sizeof ops[0]);
      ops[n_ops++].op = n->op_type;
    }
    ops[j].n[b < 0 ? 3 : b]++;
  }
  /* the task as the export's metadata names it (pose: keypoints x values per box) */
  if (g->task && g->task[0] && g->kpt_shape[0] > 0)
    fprintf(f, "task %s (metadata; %d keypoints x %d values per box)\n", g->task, g->kpt_shape[0], g->kpt_shape[1]);
  else if (g->task && g->task[0])
    fprintf(f, "task %s (metadata)\n", g->task);
  fprintf(f, "operators (%d nodes, %d Q/DQ; backbone = model.0-%d, head = model.%d)\n", n_live,
          n_qdq, bb, head);
  fprintf(f, "  %-20s %9s %6s %6s %6s\n", "op", "backbone", "neck", "head", "other");
  for (int j = 0; j < n_ops; j++)
    fprintf(f, "  %-20s %9d %6d %6d %6d\n", ops[j].op, ops[j].n[0], ops[j].n[1], ops[j].n[2],
            ops[j].n[3]);

  /* fusable patterns */
  int conv_bn_silu = 0, conv_silu = 0, conv_bn = 0, concat_conv = 0, split_free = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    if (ir_node_is_op(n, ONNX_OP_CONV) && n->n_out == 1) {
      int t = n->out[0], c, bn = 0;
      if (consumers1(g, t, &c) == 1 && ir_node_is_op(&g->nodes[c], ONNX_OP_BATCH_NORMALIZATION)) {
        bn = 1;
        t = g->nodes[c].out[0];
      }
      int cs[3];
      int nc = ir_consumers(g, t, cs, 3);
      int sig = -1, mul = -1;
      for (int k = 0; k < nc && nc == 2; k++) {
        if (ir_node_is_op(&g->nodes[cs[k]], ONNX_OP_SIGMOID)) sig = cs[k];
        if (ir_node_is_op(&g->nodes[cs[k]], ONNX_OP_MUL)) mul = cs[k];
      }
      if (sig >= 0 && mul >= 0) {
        if (bn) conv_bn_silu++;
        else conv_silu++;
      } else if (bn) {
        conv_bn++;
      }
    }
    if (ir_node_is_op(n, ONNX_OP_CONCAT)) {
      int c;
      if (consumers1(g, n->out[0], &c) == 1 && ir_node_is_op(&g->nodes[c], ONNX_OP_CONV)) concat_conv++;
    }
    if (ir_node_is_op(n, ONNX_OP_SPLIT) && ir_attr_int(n, "axis", 0) == 1) split_free++;
  }
  fprintf(f, "fusable patterns\n");
  fprintf(f, "  Conv+BN+SiLU   %4d   (BN folded into the weights, SiLU as the conv's output LUT)\n",
          conv_bn_silu);
  fprintf(f, "  Conv+SiLU      %4d   (BN already folded by the exporter)\n", conv_silu);
  fprintf(f, "  Conv+BN        %4d\n", conv_bn);
  fprintf(f, "  Concat+Conv    %4d   (the concat's requantization can feed the conv directly)\n",
          concat_conv);
  fprintf(f, "  Split on C     %4d   (free in NHWC when channel strides allow)\n", split_free);

  /* quantization-sensitive operators */
  fprintf(f, "quantization-sensitive ops\n");
  int shown = 0;
  for (int i = 0; i < g->n_nodes && shown < 40; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    const char *why = NULL;
    int b = census_block_of(g, i, &bb, &head);
    if (ir_node_is_op(n, ONNX_OP_SOFTMAX)) why = b == 2 ? "DFL softmax: int8 collapses the box distribution" : "attention softmax: needs float";
    else if (ir_node_is_op(n, ONNX_OP_MATMUL)) why = "attention matmul: wide dynamic range";
    else if (ir_node_is_op(n, ONNX_OP_SIGMOID) && b == 2 && !sigmoid_in_silu(g, n))
      why = "class scores: one shared scale with boxes rounds them to 0";
    else if (ir_node_is_op(n, ONNX_OP_CONCAT) && b == 2) why = "head concat mixes boxes (pixels) and scores (0-1)";
    else if ((ir_node_is_op(n, ONNX_OP_DIV) || ir_node_is_op(n, ONNX_OP_SUB)) && b == 2) why = "box decode arithmetic";
    if (why) {
      fprintf(f, "  %-36.36s %-8s %s\n", n->name, n->op_type, why);
      shown++;
    }
  }
  fprintf(f, "  (yolort keeps the head after its last convolutions in float)\n");
}
