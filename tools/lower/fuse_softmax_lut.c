/* fuse_softmax_lut.c — an int8 Softmax whose input is the output of a binary op with a float
 * scalar lowered as a LUT (lw_binary_scalar_operand: the attention's Mul by 1 / sqrt(d)), read by
 * nothing else: the SOFTMAX node takes the table as its in[1] and the codes' quantization as
 * f[1] / p[1] (yolort_format.h), and the LUT node is gone. The SOFTMAX looks the codes up as the
 * LUT node did (yk_softmax_i8: on AVX-512 VBMI inside its per-row tables, at no cost per
 * element), so the output is byte-identical. */
#include "lower_internal.h"

int lw_softmax_lut_match(const lw_ctx *c, int si, lw_softmax_lut *m) {
  const ir_graph *g = c->g;
  const ir_node *sm = &g->nodes[si];
  if (sm->dead || !lw_softmax_int8(c, si)) return 0;
  const int x = sm->in[0];
  const ir_tensor *xt = &g->tensors[x];
  int cons[2];
  if (xt->is_output || ir_consumers(g, x, cons, 2) != 1 || xt->producer < 0 || xt->producer >= g->n_nodes) return 0;
  const int mi = xt->producer;
  const ir_node *mn = &g->nodes[mi];
  const onnx_op_row *row = ir_node_op(mn);
  float k = 0.0f;
  if (mn->dead || mn->n_out != 1 || mn->out[0] != x || !row) return 0;
  const int xj = lw_binary_scalar_operand(c, mi, &k);
  if (xj < 0) return 0;
  m->op = mi;
  m->xj = xj;
  m->kind = row->lower_kind;
  m->k = k;
  return 1;
}

yrt_status lw_fuse_softmax_lut(lw_ctx *c) {
  for (int i = 0; i < c->g->n_nodes; i++) {
    lw_softmax_lut m;
    if (!c->absorbed[i] && lw_softmax_lut_match(c, i, &m)) c->absorbed[m.op] = 1;
  }
  return YRT_OK;
}

int lw_softmax_lut_table(lw_ctx *c, const lw_softmax_lut *m, int *xi) {
  const ir_node *op = &c->g->nodes[m->op];
  const ir_tensor *x = &c->g->tensors[op->in[m->xj]], *o = &c->g->tensors[op->out[0]];
  *xi = lw_get(c, op->in[m->xj], 1, YRT_LAYOUT_PLAIN);
  if (*xi < 0) return -1;
  return lw_lut_binary_scalar(c, m->kind, m->k, m->xj == 1, x->q.scale, x->q.zero_point, o->q.scale,
                              o->q.zero_point);
}
