/* qdq_tie.c — a Concat's inputs made in its output's quantization (the "Concat ties" yolort-quantize
 * writes itself), for QDQ files quantized elsewhere.
 *
 * onnxruntime's quantize_static gives every tensor its own range: a C2f / C3k2 block's
 * `cv1 -> Split -> Concat(a, b, m(b))` requantizes each Split half and again each Concat input,
 * three int8 passes that only move bytes and round twice. Here the tensors feeding a Concat take
 * the Concat's quantization at their source: the int8 node computing them (a conv's output stage,
 * an Add) writes the Concat's grid directly, the Split halves keep their input's, and the Concat
 * and Split become zero-copy views (plan_views.c). One rounding instead of two or three, so the
 * result is closer to the float model than the file's own chain, never further: the Concat's range
 * covers every value it receives (its calibration saw them), so nothing new clips. The price: other
 * readers of a tied tensor (the bottleneck reading b) see it on the Concat's grid, up to a few
 * tenths of a bit coarser (measured on COCO val, docs/convert.md).
 *
 * A family is a source tensor plus every tensor reached from it through channel Splits / Slices;
 * it ties when every member is per-tensor int8, not fp32, not a graph input or output, and not tied
 * already, and the source is made by a Conv (through its SiLU Mul), an Add or a Concat. Concats are
 * taken last to first so a Concat's own quantization is final before its inputs copy it. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"
#include "onnx_ops.h"

typedef struct tie_ctx {
  ir_graph *g;
  int *producer; /* per tensor: live node writing it, -1 */
  uint8_t *tied; /* per tensor: quantization set by a tie, or fixed as a tie's target */
  int *fam;      /* family members being collected */
  int n_fam, cap;
} tie_ctx;

static int q_i8(const ir_graph *g, int t) {
  const ir_quant *q = &g->tensors[t].q;
  return t >= 0 && !g->tensors[t].data && q->on && q->dtype == IR_I8 && !q->scales && q->n_scales <= 1 &&
         q->scale > 0.0f;
}

static int is_channel_split(const ir_node *n) {
  return ir_node_is_op(n, ONNX_OP_SPLIT) || ir_node_is_op(n, ONNX_OP_SLICE);
}

static int live_node(const tie_ctx *c, int t) {
  const int p = t >= 0 ? c->producer[t] : -1;
  return p >= 0 && !c->g->nodes[p].dead ? p : -1;
}

/* Add t and every tensor a Split / Slice makes of it, recursively; 0 if one cannot tie. */
static int collect(tie_ctx *c, int t) {
  ir_graph *g = c->g;
  const ir_tensor *x = &g->tensors[t];
  if (!q_i8(g, t) || x->is_input || x->is_output || c->tied[t] || c->n_fam >= c->cap) return 0;
  for (int k = 0; k < c->n_fam; k++)
    if (c->fam[k] == t) return 1;
  c->fam[c->n_fam++] = t;
  /* its readers: a channel Split / Slice joins the family; an fp32 one (reading the float value)
   * leaves the family alone, to keep it simple */
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    int reads = 0;
    for (int j = 0; j < n->n_in; j++) reads |= n->in[j] == t;
    if (!reads) continue;
    if (n->fp32) return 0;
    if (n->in[0] != t || !is_channel_split(n)) continue;
    for (int j = 0; j < n->n_out; j++)
      if (n->out[j] >= 0 && !collect(c, n->out[j])) return 0;
  }
  return 1;
}

static int source_computes(const ir_graph *g, const ir_node *p) {
  return !p->fp32 && (ir_node_is_op(p, ONNX_OP_CONV) || ir_node_is_op(p, ONNX_OP_MUL) ||
                      ir_node_is_op(p, ONNX_OP_ADD) || ir_node_is_op(p, ONNX_OP_CONCAT)) &&
         (ir_node_is_op(p, ONNX_OP_CONV) || q_i8(g, p->in[0]));
}

/* Concat node k: its inputs' families take its output's quantization. Returns tensors changed. */
static int tie_concat(tie_ctx *c, int k) {
  ir_graph *g = c->g;
  const ir_node *n = &g->nodes[k];
  const int y = n->out[0];
  if (n->dead || n->fp32 || n->n_out != 1 || y < 0 || !q_i8(g, y)) return 0;
  const ir_quant qy = g->tensors[y].q;
  int changed = 0;
  for (int j = 0; j < n->n_in; j++) {
    int s = n->in[j];
    if (s < 0 || !q_i8(g, s)) continue;
    /* up through channel Splits to the tensor an int8 node computes */
    for (int p; (p = live_node(c, s)) >= 0 && is_channel_split(&g->nodes[p]) && !g->nodes[p].fp32;)
      s = g->nodes[p].in[0];
    const int p = live_node(c, s);
    if (p < 0 || p == k || !source_computes(g, &g->nodes[p])) continue;
    c->n_fam = 0;
    if (!collect(c, s)) continue;
    int differs = 0;
    for (int m = 0; m < c->n_fam; m++) {
      const ir_quant *q = &g->tensors[c->fam[m]].q;
      differs |= q->scale != qy.scale || q->zero_point != qy.zero_point;
    }
    if (!differs) continue;
    for (int m = 0; m < c->n_fam; m++) {
      ir_quant *q = &g->tensors[c->fam[m]].q;
      q->scale = qy.scale;
      q->zero_point = qy.zero_point;
      c->tied[c->fam[m]] = 1;
      changed++;
    }
  }
  if (changed) c->tied[y] = 1;
  return changed;
}

int ir_qdq_tie_concat(ir_graph *g) {
  if (!g || g->n_tensors <= 0) return 0;
  tie_ctx c = {g, malloc(sizeof(int) * (size_t)g->n_tensors), calloc((size_t)g->n_tensors, 1),
               malloc(sizeof(int) * (size_t)g->n_tensors), 0, g->n_tensors};
  int changed = 0;
  if (c.producer && c.tied && c.fam) {
    for (int t = 0; t < g->n_tensors; t++) c.producer[t] = -1;
    for (int i = 0; i < g->n_nodes; i++)
      if (!g->nodes[i].dead)
        for (int j = 0; j < g->nodes[i].n_out; j++)
          if (g->nodes[i].out[j] >= 0) c.producer[g->nodes[i].out[j]] = i;
    int *order = NULL, n_order = 0; /* no order (a cycle): untouched, lowering reports it */
    if (ir_topo_order(g, &order, &n_order, NULL) == YRT_OK)
      for (int i = n_order - 1; i >= 0; i--)
        if (ir_node_is_op(&g->nodes[order[i]], ONNX_OP_CONCAT)) changed += tie_concat(&c, order[i]);
    free(order);
  }
  free(c.producer);
  free(c.tied);
  free(c.fam);
  return changed;
}
