/* qoperator_to_qdq.c — onnxruntime's QOperator layout lowered to the QDQ form the rest of the converter
 * reads: each QLinearX becomes DequantizeLinear of its quantized inputs -> the float op X ->
 * QuantizeLinear of its output (the original quantized tensor), so ir_qdq_annotate pairs every
 * Q with the DQs of its readers as in a QDQ export. QLinearConv's int32 bias becomes a DQ at
 * scale x_scale * w_scale (zero point 0), as ONNX defines it. One row per operator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* A quantized operand: value, scale, zero point input positions. */
typedef struct qop_operand {
  int v, s, z;
} qop_operand;

typedef struct qop_row {
  const char *op;       /* QOperator op_type (default or com.microsoft domain) */
  const char *float_op; /* what it computes in float */
  int n_data;           /* quantized data inputs (-1: QLinearConcat's variadic triples from 2) */
  qop_operand data[2];
  qop_operand out;      /* v unused */
  int bias;             /* input position of QLinearConv's int32 bias, -1 none */
} qop_row;

static const qop_row k_rows[] = {
    {"QLinearConv", "Conv", 2, {{0, 1, 2}, {3, 4, 5}}, {0, 6, 7}, 8},
    {"QLinearAdd", "Add", 2, {{0, 1, 2}, {3, 4, 5}}, {0, 6, 7}, -1},
    {"QLinearMul", "Mul", 2, {{0, 1, 2}, {3, 4, 5}}, {0, 6, 7}, -1},
    {"QLinearSigmoid", "Sigmoid", 1, {{0, 1, 2}}, {0, 3, 4}, -1},
    {"QLinearLeakyRelu", "LeakyRelu", 1, {{0, 1, 2}}, {0, 3, 4}, -1},
    {"QLinearGlobalAveragePool", "GlobalAveragePool", 1, {{0, 1, 2}}, {0, 3, 4}, -1},
    {"QLinearAveragePool", "AveragePool", 1, {{0, 1, 2}}, {0, 3, 4}, -1}, /* YOLOv9 ADown / AConv */
    {"QLinearConcat", "Concat", -1, {{0, 0, 0}}, {0, 0, 1}, -1},
};

static const qop_row *find_row(const ir_node *n) {
  if (n->domain && n->domain[0] && strcmp(n->domain, "com.microsoft") != 0 && strcmp(n->domain, "ai.onnx") != 0)
    return NULL;
  for (size_t i = 0; i < sizeof k_rows / sizeof k_rows[0]; i++)
    if (strcmp(n->op_type, k_rows[i].op) == 0) return &k_rows[i];
  return NULL;
}

static int in_at(const ir_node *n, int i) { return i < n->n_in ? n->in[i] : -1; }

/* New float tensor named after base + suffix. */
static int new_tensor(ir_graph *g, const char *base, const char *suffix) {
  char name[512];
  snprintf(name, sizeof name, "%s%s", base, suffix);
  for (int k = 2; ir_find_tensor(g, name) >= 0 && k < 1000; k++)
    snprintf(name, sizeof name, "%s%s%d", base, suffix, k);
  return ir_add_tensor(g, name, IR_F32);
}

/* DQ(v, s, z) -> new float tensor; returns it or -1. */
static int add_dq(ir_graph *g, const char *node, int v, int s, int z, int axis) {
  const int f = new_tensor(g, g->tensors[v].name, "#dq");
  if (f < 0) return -1;
  char name[512];
  snprintf(name, sizeof name, "%s#dq_%s", node, g->tensors[v].name);
  const int in[3] = {v, s, z};
  const int d = ir_add_node(g, name, "DequantizeLinear", in, z >= 0 ? 3 : 2, &f, 1);
  if (d < 0) return -1;
  if (axis >= 0 && ir_set_attr_int(g, d, "axis", axis)) return -1;
  return f;
}

static int copy_attrs(ir_graph *g, int from, int to) {
  for (int k = 0; k < g->nodes[from].n_attrs; k++) {
    const ir_attr a = g->nodes[from].attrs[k]; /* copy: setting may realloc the node array */
    int r = 0;
    switch (a.type) {
      case IR_ATTR_INT: r = ir_set_attr_int(g, to, a.name, a.i); break;
      case IR_ATTR_FLOAT: r = ir_set_attr_float(g, to, a.name, a.f); break;
      case IR_ATTR_STRING: r = ir_set_attr_string(g, to, a.name, a.s); break;
      case IR_ATTR_INTS: r = ir_set_attr_ints(g, to, a.name, a.ints, a.n_ints); break;
      case IR_ATTR_FLOATS: r = ir_set_attr_floats(g, to, a.name, a.floats, a.n_floats); break;
      case IR_ATTR_TENSOR: r = ir_set_attr_tensor(g, to, a.name, a.tensor); break;
    }
    if (r) return -1;
  }
  return 0;
}

/* QLinearConv's bias scale: x_scale * w_scale[c], a new constant. */
static int bias_scale(ir_graph *g, const ir_node *n, yrt_error *err, yrt_status *st) {
  const ir_tensor *xs = &g->tensors[n->in[1]], *ws = &g->tensors[n->in[4]];
  const int64_t nw = ir_numel(ws);
  if (!xs->data || !ws->data || xs->dtype != IR_F32 || ws->dtype != IR_F32 || ir_numel(xs) != 1 || nw < 1 ||
      xs->nbytes < 4 || ws->nbytes < (size_t)nw * 4) {
    *st = yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qoperator: QLinearConv '%s': x_scale and w_scale must be "
                        "float constants (x_scale a scalar)", n->name);
    return -1;
  }
  float *v = malloc(sizeof(float) * (size_t)nw);
  if (!v) {
    *st = yrt_set_error(err, YRT_ERR_NOMEM, "qoperator: out of memory");
    return -1;
  }
  float x;
  memcpy(&x, xs->data, 4);
  for (int64_t c = 0; c < nw; c++) {
    float w;
    memcpy(&w, (const char *)ws->data + c * 4, 4);
    v[c] = x * w;
  }
  const int rank = ws->rank;
  const int64_t d = nw;
  const int t = new_tensor(g, n->name, "#bias_scale");
  if (t < 0 || ir_tensor_set_shape(&g->tensors[t], rank >= 1 ? 1 : 0, &d) ||
      ir_tensor_set_data(&g->tensors[t], v, (size_t)nw * 4)) {
    free(v);
    *st = yrt_set_error(err, YRT_ERR_NOMEM, "qoperator: out of memory");
    return -1;
  }
  free(v);
  return t;
}

static yrt_status lower_one(ir_graph *g, int ni, const qop_row *r, yrt_error *err) {
  char nname[256];
  snprintf(nname, sizeof nname, "%s", g->nodes[ni].name);
  const ir_node *n = &g->nodes[ni];
  if (n->n_out != 1 || n->out[0] < 0)
    return yrt_set_error(err, YRT_ERR_FORMAT, "qoperator: node '%s' (%s) needs one output", nname, r->op);
  int ins[64], n_ins = 0, n_triples = r->n_data;
  if (r->n_data < 0) n_triples = (n->n_in - 2) / 3;
  if (n_triples < 1 || n_triples > 60 || (r->n_data < 0 && (n->n_in - 2) % 3) ||
      (r->n_data > 0 && n->n_in < r->out.z))
    return yrt_set_error(err, YRT_ERR_FORMAT, "qoperator: node '%s' (%s) has %d inputs", nname, r->op, n->n_in);
  const int is_conv = r->bias >= 0;
  for (int k = 0; k < n_triples; k++) {
    n = &g->nodes[ni];
    const qop_operand o = r->n_data < 0 ? (qop_operand){2 + 3 * k, 3 + 3 * k, 4 + 3 * k} : r->data[k];
    const int v = in_at(n, o.v), s = in_at(n, o.s), z = in_at(n, o.z);
    if (v < 0 || s < 0)
      return yrt_set_error(err, YRT_ERR_FORMAT, "qoperator: node '%s' (%s): input %d or its scale is missing",
                           nname, r->op, o.v);
    /* QLinearConv's per-channel w_scale is on the output channels (axis 0) */
    const int axis = (is_conv && k == 1 && ir_numel(&g->tensors[s]) > 1) ? 0 : -1;
    const int f = add_dq(g, nname, v, s, z, axis);
    if (f < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "qoperator: out of memory");
    ins[n_ins++] = f;
  }
  n = &g->nodes[ni];
  if (is_conv && in_at(n, r->bias) >= 0) {
    yrt_status st = YRT_OK;
    const int b = n->in[r->bias];
    const int bs = bias_scale(g, &g->nodes[ni], err, &st);
    if (bs < 0) return st;
    const int f = add_dq(g, nname, b, bs, -1, ir_numel(&g->tensors[bs]) > 1 ? 0 : -1);
    if (f < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "qoperator: out of memory");
    ins[n_ins++] = f;
  }
  n = &g->nodes[ni];
  const int y = n->out[0], ys = in_at(n, r->out.s), yz = in_at(n, r->out.z);
  if (ys < 0) return yrt_set_error(err, YRT_ERR_FORMAT, "qoperator: node '%s' (%s): no output scale", nname, r->op);
  if (ir_attr_int(n, "channels_last", 0) != 0)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qoperator: node '%s' (%s): channels_last", nname, r->op);
  const int yf = new_tensor(g, g->tensors[y].name, "#f");
  if (yf < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "qoperator: out of memory");
  char fname[300];
  snprintf(fname, sizeof fname, "%s#float", nname);
  const int fo = ir_add_node(g, fname, r->float_op, ins, n_ins, &yf, 1);
  if (fo < 0 || copy_attrs(g, ni, fo)) return yrt_set_error(err, YRT_ERR_NOMEM, "qoperator: out of memory");
  /* the float op's own attributes only (channels_last belongs to the QOperator) */
  g->nodes[ni].dead = 1;
  snprintf(fname, sizeof fname, "%s#q", nname);
  const int qin[3] = {yf, ys, yz};
  if (ir_add_node(g, fname, "QuantizeLinear", qin, yz >= 0 ? 3 : 2, &y, 1) < 0)
    return yrt_set_error(err, YRT_ERR_NOMEM, "qoperator: out of memory");
  return YRT_OK;
}

yrt_status ir_lower_qoperators(ir_graph *g, int *n_lowered, yrt_error *err) {
  if (n_lowered) *n_lowered = 0;
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_lower_qoperators: NULL graph");
  const int n0 = g->n_nodes; /* nodes added here are never QOperators */
  for (int i = 0; i < n0; i++) {
    if (g->nodes[i].dead) continue;
    const qop_row *r = find_row(&g->nodes[i]);
    if (!r) continue;
    yrt_status st = lower_one(g, i, r, err);
    if (st) return st;
    if (n_lowered) (*n_lowered)++;
  }
  return YRT_OK;
}
