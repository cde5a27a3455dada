/* float_recover.c — see float_recover.h. The recognition is the converter's (tools/ir passes);
 * this file only counts what they will do, runs them, and forgets the quantization. */
#include "float_recover.h"

#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "onnx_ops.h"
#include "onnx_reader.h"
#include "onnx_write.h"

static int live_const(const ir_graph *g, int t) { return t >= 0 && g->tensors[t].data != NULL; }

/* The QuantizeLinear producing t when it quantizes a float constant, else -1. */
static int q_of_float_const(const ir_graph *g, int t) {
  const int p = t >= 0 ? g->tensors[t].producer : -1;
  if (p < 0 || g->nodes[p].dead || !ir_node_is_op(&g->nodes[p], ONNX_OP_QUANTIZE_LINEAR)) return -1;
  const ir_node *q = &g->nodes[p];
  return q->n_in >= 1 && live_const(g, q->in[0]) && g->tensors[q->in[0]].dtype == IR_F32 ? p : -1;
}

/* DQ(Q(float constant c)) reads c itself: the float value the exporter quantized, exact. */
static void bypass_q_constants(ir_graph *g, float_recover_report *rep) {
  for (int i = 0; i < g->n_nodes; i++) {
    ir_node *d = &g->nodes[i];
    if (d->dead || !ir_node_is_op(d, ONNX_OP_DEQUANTIZE_LINEAR) || d->n_in < 1 || d->n_out != 1) continue;
    const int qi = q_of_float_const(g, d->in[0]);
    if (qi < 0 || g->tensors[d->out[0]].is_output) continue;
    ir_replace_uses(g, d->out[0], g->nodes[qi].in[0]);
    d->dead = 1;
    rep->n_q_constants++;
    if (ir_consumers(g, g->nodes[qi].out[0], NULL, 0) == 0 && !g->tensors[g->nodes[qi].out[0]].is_output)
      g->nodes[qi].dead = 1;
  }
}

/* What ir_qdq_annotate is about to do, for the report. */
static void count_qdq(const ir_graph *g, float_recover_report *rep) {
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *d = &g->nodes[i];
    if (d->dead || !ir_node_is_op(d, ONNX_OP_DEQUANTIZE_LINEAR) || d->n_in < 2 || d->in[0] < 0) continue;
    const ir_tensor *x = &g->tensors[d->in[0]];
    if (!x->data) {
      rep->n_qdq_pairs++;
      continue;
    }
    rep->n_dq_constants++;
    if (x->dtype == IR_I32) continue; /* a bias */
    const ir_tensor *s = &g->tensors[d->in[1]];
    const int zt = d->n_in > 2 ? d->in[2] : -1;
    int asym = 0;
    for (int64_t k = 0; zt >= 0 && g->tensors[zt].data && k < ir_numel(&g->tensors[zt]); k++)
      asym |= ir_const_i64(&g->tensors[zt], k) != (x->dtype == IR_U8 ? 128 : 0);
    rep->n_u8 += x->dtype == IR_U8;
    rep->n_per_channel += ir_numel(s) > 1;
    rep->n_asymmetric += asym;
  }
}

static void count_integer_ops(const ir_graph *g, float_recover_report *rep) {
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    rep->n_conv_integer += ir_node_is(n, "ConvInteger");
    rep->n_matmul_integer += ir_node_is(n, "MatMulInteger");
  }
}

int float_recover_any(const float_recover_report *rep) {
  return rep->n_half || rep->n_qoperators || rep->n_conv_integer || rep->n_matmul_integer || rep->n_dq_constants ||
         rep->n_q_constants || rep->n_qdq_pairs;
}

yrt_status float_recover(Onnx__ModelProto **m, float_recover_report *rep, yrt_error *err) {
  memset(rep, 0, sizeof *rep);
  ir_graph *g = NULL;
  yrt_status st = onnx_model_to_ir(*m, &g, err);
  if (!st) rep->n_half = g->n_half;
  if (!st) st = ir_lower_qoperators(g, &rep->n_qoperators, err);
  if (!st) st = ir_fold_constants(g, err);
  if (!st) {
    count_integer_ops(g, rep);
    st = ir_recover_integer_ops(g, NULL, err);
  }
  if (!st) {
    bypass_q_constants(g, rep);
    count_qdq(g, rep);
    st = ir_qdq_annotate(g, err);
  }
  if (!st && float_recover_any(rep)) {
    for (int t = 0; t < g->n_tensors; t++) ir_tensor_clear_quant(&g->tensors[t]);
    Onnx__ModelProto *f = NULL;
    st = ir_compact(g, err);
    if (!st) st = onnx_model_from_ir(g, *m, &f, err);
    if (!st) {
      /* a quantizer's bookkeeping, no longer true of the float graph */
      for (size_t i = 0; i < f->n_metadata_props; i++)
        if (f->metadata_props[i]->key && !strcmp(f->metadata_props[i]->key, "onnx.infer"))
          onnx_model_set_metadata(f, "onnx.infer", "yolort.float_recover");
      onnx_model_free(*m);
      *m = f;
    }
  }
  ir_graph_free(g);
  return st;
}

/* snprintf appended at *w of buf (cap bytes), never past the end. */
#define ADD(...)                                                                  \
  do {                                                                            \
    if (w < cap) {                                                                \
      const int k = snprintf(buf + w, cap - w, __VA_ARGS__);                      \
      w += k > 0 ? (size_t)k : 0;                                                 \
    }                                                                             \
  } while (0)

void float_recover_describe(const float_recover_report *rep, char *buf, size_t cap) {
  size_t w = 0;
  if (!cap) return;
  buf[0] = 0;
  if (!float_recover_any(rep)) {
    ADD("input: FP32\n");
    return;
  }
  const char *kind = rep->n_conv_integer || rep->n_matmul_integer ? "dynamic-quant"
                     : rep->n_qoperators                         ? "QOperator"
                     : rep->n_dq_constants || rep->n_q_constants || rep->n_qdq_pairs ? "static QDQ"
                                                                 : "float16";
  ADD("input: %s", kind);
  if (rep->n_half) ADD(", %d float16 constants widened to float32", rep->n_half);
  if (rep->n_qoperators) ADD(", %d QLinear ops rewritten to float ops", rep->n_qoperators);
  if (rep->n_conv_integer) ADD(", %d ConvInteger recovered to float Conv", rep->n_conv_integer);
  if (rep->n_matmul_integer) ADD(", %d MatMulInteger recovered to float MatMul", rep->n_matmul_integer);
  if (rep->n_dq_constants) /* incl. int32 biases */
    ADD(", %d constants dequantized (%d uint8, %d per-channel, %d asymmetric)", rep->n_dq_constants, rep->n_u8,
        rep->n_per_channel, rep->n_asymmetric);
  if (rep->n_q_constants) ADD(", %d quantized float constants kept float", rep->n_q_constants);
  if (rep->n_qdq_pairs) ADD(", %d activation Q/DQ pairs removed", rep->n_qdq_pairs);
  ADD("; recalibrating\n");
}

void float_recover_print(const float_recover_report *rep, FILE *f) {
  char line[512];
  float_recover_describe(rep, line, sizeof line);
  fputs(line, f);
}
