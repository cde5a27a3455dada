/* qdq_propagate.c — quantization for QAT / TensorRT-style QDQ graphs, where Q/DQ sit on conv
 * inputs only and everything between convs is float. As TensorRT does, a conv's output takes the
 * quantization its consumers apply:
 *   - Conv -> SiLU (Sigmoid + Mul) -> z with z quantized: the conv output (the SiLU's input)
 *     gets the int8 range whose SiLU image covers z's range (the int8 conv then applies SiLU by
 *     LUT straight into z's quantization, as in onnxruntime's layout);
 *   - backwards across data movement (Concat, MaxPool, Resize, Reshape, Transpose, Slice, Split,
 *     ...): an input takes its output's quantization (exact: these ops only move values), and
 *     an Add input takes the sum's;
 *   - forwards across the same ops when the output has none.
 * Only graphs of these layouts are touched: the pass runs when most convs with a quantized input
 * have an unquantized output, or when over a quarter of the SiLUs after int8 convs are float
 * (onnxruntime's quantize_static with op_types_to_quantize=['Conv']). onnxruntime's layout and yolort-quantize's (whose float tensors
 * are float on purpose: --float-stem, the head's float-output convs) quantize conv outputs and
 * are left exactly as they were. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"
#include "onnx_ops.h"

static int is_act(const ir_graph *g, int t) { return t >= 0 && !g->tensors[t].data; }

/* per-tensor int8 activation quantization */
static int has_q(const ir_graph *g, int t) {
  const ir_quant *q = &g->tensors[t].q;
  return q->on && q->dtype == IR_I8 && (!q->scales || q->n_scales <= 1) && q->scale > 0.0f;
}

/* Movers (the op table's data movement with one data input: MaxPool, Resize, Reshape, Split,
 * Slice, Transpose...): the output only rearranges or selects its input's values, so the same
 * quantization is exact on both sides. */
static int is_mover(const ir_node *n) {
  const onnx_op_row *r = ir_node_op(n);
  return r && r->qclass == ONNX_Q_MOVE && r->q_inputs == 1;
}

/* Can t take a new quantization? An activation without one, not a graph input or output. */
static int open_t(const ir_graph *g, int t) {
  return is_act(g, t) && !g->tensors[t].q.on && !g->tensors[t].is_input && !g->tensors[t].is_output &&
         g->tensors[t].dtype == IR_F32;
}

static void set_q(ir_graph *g, int t, float scale, int32_t zp) {
  ir_quant *q = &g->tensors[t].q;
  memset(q, 0, sizeof *q);
  q->on = 1;
  q->dtype = IR_I8;
  q->scale = scale;
  q->zero_point = zp;
}

static void copy_q(ir_graph *g, int dst, int src) {
  set_q(g, dst, g->tensors[src].q.scale, g->tensors[src].q.zero_point);
}

static double silu(double x) { return x / (1.0 + exp(-x)); }

/* The int8 quantization of a SiLU's input y given its output's (s, zp): the top is the y whose
 * SiLU is z's largest value (above it z saturates anyway); the bottom lo minimises the larger
 * of the clamping error (SiLU values of y < lo read as silu(lo)) and the rounding error of the
 * step (|silu'| <= 1.1). Deterministic, from z's parameters only. */
void ir_silu_input_quant(float sz, int32_t zz, float *sy, int32_t *zy) {
  const double zmax = (127.0 - zz) * (double)sz;
  double hi = zmax > 0 ? zmax : (double)sz;
  for (int i = 0; i < 60 && silu(hi) < zmax; i++) hi += zmax - silu(hi); /* silu(y) < y, increasing */
  const double smin = silu(-1.2784645);
  double best_lo = -1.0, best = 1e30;
  for (int k = 1; k <= 2000; k++) {
    const double lo = -0.01 * k;
    const double clamp = lo > -1.2784645 ? fmax(fabs(silu(lo)), silu(lo) - smin) : fabs(silu(lo));
    const double step = 0.55 * (hi - lo) / 255.0;
    const double e = fmax(clamp, step);
    if (e < best) { best = e; best_lo = lo; }
  }
  const double s = (hi - best_lo) / 255.0;
  double z = nearbyint(-128.0 - best_lo / s);
  if (z < -128) z = -128;
  if (z > 127) z = 127;
  *sy = (float)s;
  *zy = (int32_t)z;
}

/* Conv output y read only by Sigmoid(y) -> s and Mul(y, s) -> z (s read only by that Mul):
 * returns z, else -1. */
static int silu_output(const ir_graph *g, int y) {
  int c[3];
  if (ir_consumers(g, y, c, 3) != 2) return -1;
  int sig = -1, mul = -1;
  for (int k = 0; k < 2; k++) {
    if (ir_node_is_op(&g->nodes[c[k]], ONNX_OP_SIGMOID)) sig = c[k];
    else if (ir_node_is_op(&g->nodes[c[k]], ONNX_OP_MUL)) mul = c[k];
  }
  if (sig < 0 || mul < 0 || g->nodes[sig].n_out != 1 || g->nodes[mul].n_in != 2) return -1;
  const int s = g->nodes[sig].out[0], *mi = g->nodes[mul].in;
  if (!((mi[0] == y && mi[1] == s) || (mi[0] == s && mi[1] == y))) return -1;
  int sc[2];
  if (ir_consumers(g, s, sc, 2) != 1) return -1;
  return g->nodes[mul].out[0];
}

/* The layouts where quantization stops at the convs: QAT (convs read quantized inputs but
 * mostly write float outputs), or onnxruntime's quantize_static restricted to Conv
 * (op_types_to_quantize: conv inputs and outputs quantized, but the SiLU after most of them, and
 * the Split / Concat / Add between, float). In the second, the conv output keeps its own
 * quantization and the SiLU output takes its consumers' (below): the int8 conv's SiLU LUT then
 * maps y's int8 grid to z's exactly as dequantize -> SiLU -> quantize would. */
static int qat_layout(const ir_graph *g) {
  int in_only = 0, both = 0, silu_float = 0, silu_q = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead || !ir_node_is_op(n, ONNX_OP_CONV) || n->n_in < 1 || n->n_out < 1 || n->in[0] < 0 || n->out[0] < 0)
      continue;
    if (!has_q(g, n->in[0])) continue;
    if (g->tensors[n->out[0]].q.on) both++;
    else in_only++;
    if (!has_q(g, n->out[0])) continue;
    const int z = silu_output(g, n->out[0]);
    if (z >= 0 && g->tensors[z].q.on) silu_q++;
    else if (z >= 0) silu_float++;
  }
  /* a quarter: a yolort-quantize graph with a few float exclusions is not this layout */
  return in_only > both || silu_float * 3 > silu_q;
}

/* One sweep over the nodes; returns how many tensors got a quantization. */
static int sweep(ir_graph *g) {
  int changed = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead || n->n_out < 1 || n->n_in < 1) continue;
    if (ir_node_is_op(n, ONNX_OP_CONV) && n->out[0] >= 0 && open_t(g, n->out[0])) {
      const int z = silu_output(g, n->out[0]);
      if (z >= 0 && has_q(g, z)) {
        float s;
        int32_t zp;
        ir_silu_input_quant(g->tensors[z].q.scale, g->tensors[z].q.zero_point, &s, &zp);
        set_q(g, n->out[0], s, zp);
        changed++;
      }
      continue;
    }
    if (is_mover(n)) {
      const int x = n->in[0];
      if (x < 0) continue;
      if (open_t(g, x)) { /* backwards: the output's (for Split, the widest of its outputs') */
        int best = -1;
        for (int j = 0; j < n->n_out; j++) {
          const int o = n->out[j];
          if (o >= 0 && has_q(g, o) && (best < 0 || g->tensors[o].q.scale > g->tensors[best].q.scale)) best = o;
        }
        if (best >= 0) {
          copy_q(g, x, best);
          changed++;
        }
      } else if (has_q(g, x)) { /* forwards */
        for (int j = 0; j < n->n_out; j++)
          if (n->out[j] >= 0 && open_t(g, n->out[j])) {
            copy_q(g, n->out[j], x);
            changed++;
          }
      }
      continue;
    }
    const int y = n->out[0];
    if (y < 0) continue;
    if (ir_node_is_op(n, ONNX_OP_CONCAT) || ir_node_is_op(n, ONNX_OP_ADD)) {
      if (has_q(g, y)) { /* backwards: every open input takes the output's */
        for (int j = 0; j < n->n_in; j++)
          if (open_t(g, n->in[j])) {
            copy_q(g, n->in[j], y);
            changed++;
          }
      } else if (ir_node_is_op(n, ONNX_OP_CONCAT) && open_t(g, y)) { /* forwards: the union of the inputs' ranges */
        double lo = 0, hi = 0;
        int all = 1;
        for (int j = 0; j < n->n_in && all; j++) {
          const int t = n->in[j];
          if (t < 0 || !has_q(g, t)) { all = 0; break; }
          const ir_quant *q = &g->tensors[t].q;
          lo = fmin(lo, (-128.0 - q->zero_point) * q->scale);
          hi = fmax(hi, (127.0 - q->zero_point) * q->scale);
        }
        if (!all || !(hi > lo)) continue;
        const double s = (hi - lo) / 255.0;
        double z = nearbyint(-128.0 - lo / s);
        z = z < -128 ? -128 : z > 127 ? 127 : z;
        set_q(g, y, (float)s, (int32_t)z);
        changed++;
      }
    }
  }
  return changed;
}

int ir_qdq_propagate(ir_graph *g) {
  if (!g || !qat_layout(g)) return 0;
  int total = 0;
  for (int round = 0; round < 64; round++) { /* fixed point; each sweep only adds */
    const int c = sweep(g);
    if (!c) break;
    total += c;
  }
  return total;
}
