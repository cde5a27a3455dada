/* fuse_silu.c — a conv's activation fused into the conv. SiLU: Conv -> y; Sigmoid(y) -> s;
 * Mul(y, s) -> z where y and s feed nothing else: the Conv then writes z directly (f32: act
 * SILU; int8: QDQ SiLU LUT). Relu / LeakyRelu (ShuffleNet / YOLOv5-Lite, YOLOv7-tiny): Conv -> y;
 * Relu(y) -> z, y read by nothing else, conv and activation both int8 (the activation's LUT
 * applied by the conv: the same table on the same int8 values, bit-identical) or both float with
 * y float (f32 Relu: the conv's output clamp, same values; a float LeakyRelu stays a node). A
 * separate pass over the tensor cost as much as a float stem conv.
 * Not fused: an int8 conv (y quantized) whose z stays float, as onnxruntime's quantize_static
 * writes Conv -> Q -> DQ -> Sigmoid/Mul -> Split. The graph rounds y to its grid before the
 * SiLU; a float conv with the SiLU fused would skip that rounding (at such coarse scales the
 * detections move), so the conv runs int8 onto q(y) and Sigmoid/Mul read its dequantized form. */
#include "lower_internal.h"

static int is_op(const ir_node *n, onnx_op op) { return !n->dead && ir_node_is_op(n, op); }

yrt_status lw_fuse_silu(lw_ctx *c) {
  ir_graph *g = c->g;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *conv = &g->nodes[i];
    if (!is_op(conv, ONNX_OP_CONV) || conv->n_out != 1 || conv->out[0] < 0) continue;
    int y = conv->out[0];
    if (g->tensors[y].is_output) continue;
    int cons[3];
    if (ir_consumers(g, y, cons, 3) != 2) continue;
    int sig = -1, mul = -1;
    for (int k = 0; k < 2; k++) {
      const ir_node *n = &g->nodes[cons[k]];
      if (is_op(n, ONNX_OP_SIGMOID) && n->n_in == 1 && n->n_out == 1) sig = cons[k];
      else if (is_op(n, ONNX_OP_MUL) && n->n_in == 2 && n->n_out == 1) mul = cons[k];
    }
    if (sig < 0 || mul < 0) continue;
    int s = g->nodes[sig].out[0];
    const ir_node *m = &g->nodes[mul];
    if (s < 0 || g->tensors[s].is_output) continue;
    if (!((m->in[0] == y && m->in[1] == s) || (m->in[0] == s && m->in[1] == y))) continue;
    int scons[2];
    if (ir_consumers(g, s, scons, 2) != 1) continue;
    const char *why = NULL;
    if (!lw_q_ok(g, m->out[0]) && lw_node_int8(c, i, &why)) continue;
    c->fuse_mul[i] = mul;
    c->absorbed[sig] = 1;
    c->absorbed[mul] = 1;
    if (c->rep) c->rep->n_fused_silu++;
  }
  return YRT_OK;
}

/* Conv -> Relu / LeakyRelu (above). */
yrt_status lw_fuse_act(lw_ctx *c) {
  ir_graph *g = c->g;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *conv = &g->nodes[i];
    if (!is_op(conv, ONNX_OP_CONV) || conv->n_out != 1 || conv->out[0] < 0 || c->fuse_mul[i] >= 0) continue;
    const int y = conv->out[0];
    int cons[2];
    if (g->tensors[y].is_output || ir_consumers(g, y, cons, 2) != 1) continue;
    const ir_node *a = &g->nodes[cons[0]];
    const int relu = is_op(a, ONNX_OP_RELU);
    if ((!relu && !is_op(a, ONNX_OP_LEAKY_RELU)) || a->n_in != 1 || a->n_out != 1 || a->in[0] != y || a->out[0] < 0)
      continue;
    const char *why = NULL;
    const int conv_i8 = lw_node_int8(c, i, &why), act_i8 = lw_node_int8(c, cons[0], &why);
    if (conv_i8 != act_i8 || (!conv_i8 && (!relu || lw_q_ok(g, y) || conv->fp32 != a->fp32))) continue;
    /* a float conv whose input carries another quantization (an int16 annotation: the W8A16
     * path lowers the conv with no Relu) keeps the Relu a node */
    if (!conv_i8 && g->tensors[conv->in[0]].q.on && !lw_q_ok(g, conv->in[0])) continue;
    c->fuse_act[i] = cons[0];
    c->absorbed[cons[0]] = 1;
    if (c->rep) c->rep->n_fused_act++;
  }
  return YRT_OK;
}
