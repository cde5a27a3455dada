/* lower_int8.c — which ONNX nodes run int8, and the int8 helpers: requantizing data movement
 * through a LUT, LUT tables for unary functions and QDQ SiLU. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lower_internal.h"
#include "yk.h"

int lw_node_excluded(const lw_ctx *c, const ir_node *n) {
  if (!c->opt || !c->opt->keep_fp32 || !n->name) return 0;
  for (const char *const *k = c->opt->keep_fp32; *k; k++)
    if (ir_name_matches(n->name, *k)) return 1;
  return 0;
}

/* Ops that run int8 (quant class of their row: int8 compute or data movement), and how many
 * leading inputs carry data (0 = all). */
static int int8_kernel(const ir_node *n, int *n_data) {
  const onnx_op_row *row = ir_node_op(n);
  if (!row || row->qclass == ONNX_Q_FLOAT) return 0;
  *n_data = row->q_inputs;
  return 1;
}

static int conv_weights_ok(const ir_graph *g, int w) {
  if (w < 0) return 0;
  const ir_tensor *t = &g->tensors[w];
  return t->q.on && t->qdata && t->q.dtype == IR_I8 && t->q.zero_point == 0 && t->rank == 4 &&
         (!t->q.scales || (t->q.axis == 0 && t->q.n_scales == t->dims[0]) || t->q.n_scales == 1);
}

/* ConvTranspose weights [ci, co, kh, kw] int8 symmetric, per tensor or per output channel (axis
 * 1), group 1 (the int8 CONV_TRANSPOSE's form, lower_conv_transpose.c). */
static int convt_weights_ok(const ir_graph *g, const ir_node *n) {
  if (n->n_in < 2 || n->in[1] < 0 || ir_attr_int(n, "group", 1) != 1) return 0;
  const ir_tensor *t = &g->tensors[n->in[1]];
  return t->q.on && t->qdata && t->q.dtype == IR_I8 && t->q.zero_point == 0 && t->rank == 4 &&
         (!t->q.scales || t->q.n_scales == 1 || (t->q.axis == 1 && t->q.n_scales == t->dims[1]));
}

/* An int8 MATMUL's K is bounded (YRT_MATMUL_I8_MAX_K: its int32 sums cannot overflow). */
static int matmul_k_ok(const ir_graph *g, const ir_node *n) {
  if (n->n_in < 1 || n->in[0] < 0) return 0;
  const ir_tensor *a = &g->tensors[n->in[0]];
  return a->rank >= 1 && a->dims[a->rank - 1] >= 0 && a->dims[a->rank - 1] <= YRT_MATMUL_I8_MAX_K;
}

int lw_node_int8(const lw_ctx *c, int ni, const char **why) {
  const ir_node *n = &c->g->nodes[ni];
  static const char *const no_kernel = "no int8 kernel";
  int n_data = 0;
  if (lw_node_excluded(c, n)) {
    *why = "excluded";
    return 0;
  }
  if (n->fp32) {
    *why = "head region";
    return 0;
  }
  if (!int8_kernel(n, &n_data)) {
    *why = no_kernel;
    return 0;
  }
  int nd = n_data ? n_data : n->n_in;
  for (int j = 0; j < nd && j < n->n_in; j++) {
    if (n->in[j] < 0) continue;
    if (!lw_q_ok(c->g, n->in[j])) {
      *why = "inputs not quantized";
      return 0;
    }
  }
  if (ir_node_is_op(n, ONNX_OP_CONV) && !conv_weights_ok(c->g, n->n_in > 1 ? n->in[1] : -1)) {
    *why = "weights not int8 symmetric";
    return 0;
  }
  if (ir_node_is_op(n, ONNX_OP_CONV_TRANSPOSE) && !convt_weights_ok(c->g, n)) {
    *why = "weights not int8 symmetric per tensor or output channel (group 1)";
    return 0;
  }
  if (ir_node_is_op(n, ONNX_OP_MATMUL) && !matmul_k_ok(c->g, n)) {
    *why = "MatMul K over the int8 bound";
    return 0;
  }
  for (int j = 0; j < n->n_out; j++) {
    if (n->out[j] < 0) continue;
    if (!lw_q_ok(c->g, n->out[j])) {
      *why = "output not quantized";
      return 0;
    }
  }
  *why = NULL;
  return 1;
}

int lw_conv_i8_float_out(const lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  if ((c->opt && c->opt->exact_qdq) || lw_node_excluded(c, n) || n->fp32 || !ir_node_is_op(n, ONNX_OP_CONV) ||
      n->n_in < 2 || !lw_q_ok(c->g, n->in[0]) || !conv_weights_ok(c->g, n->in[1]) ||
      ir_attr_int(n, "group", 1) != 1)
    return 0;
  for (int j = 0; j < n->n_out; j++)
    if (n->out[j] >= 0 && lw_q_ok(c->g, n->out[j])) return 0;
  return 1;
}

void lw_note_fp32(lw_ctx *c, const ir_node *n, const char *why) {
  if (!c->rep) return;
  c->rep->n_fp32_onnx++;
  if (c->rep->n_notes >= YRT_CONVERT_MAX_NOTES) return;
  yrt_convert_fp32_note *note = &c->rep->fp32[c->rep->n_notes++];
  snprintf(note->node, sizeof note->node, "%s", n->name ? n->name : "?");
  if (why && strcmp(why, "no int8 kernel") == 0)
    snprintf(note->reason, sizeof note->reason, "no int8 kernel: %s", n->op_type);
  else
    snprintf(note->reason, sizeof note->reason, "%s", why ? why : "?");
}

int lw_lut_table(lw_ctx *c, const int8_t lut[256], float sx, int32_t zx) {
  char name[512];
  snprintf(name, sizeof name, "%s#lut", c->cur ? c->cur : "lut");
  int64_t d = 256;
  int t = lw_const_raw(c, name, YRT_I8, 1, &d, lut, 256);
  if (t < 0) return -1;
  /* the LUT's q is its index domain: what a producer (conv requant) must quantize to */
  c->t[t].scale = sx;
  c->t[t].zp = zx;
  return t;
}

int lw_lut_unary(lw_ctx *c, int kind, float alpha, float sx, int32_t zx, float sy, int32_t zy) {
  int8_t lut[256];
  yk_qparams qx = {sx, zx}, qy = {sy, zy};
  if (yk_lut_build_unary(kind, alpha, qx, qy, lut) != 0) return -1; /* not a yk_unary_kind */
  return lw_lut_table(c, lut, sx, zx);
}

int lw_binary_scalar_operand(const lw_ctx *c, int ni, float *val) {
  const ir_node *n = &c->g->nodes[ni];
  const onnx_op_row *row = ir_node_op(n);
  if (!row || row->lower != ONNX_LOWER_BINARY || lw_node_excluded(c, n) || n->fp32 || n->n_in != 2 ||
      n->n_out < 1 || n->out[0] < 0 || !lw_q_ok(c->g, n->out[0]))
    return -1;
  for (int j = 0; j < 2; j++) {
    const int k = n->in[j], x = n->in[1 - j];
    if (k < 0 || x < 0) return -1;
    const ir_tensor *t = &c->g->tensors[k];
    if (!t->data || t->qdata || t->q.on || t->dtype != IR_F32 || t->nbytes != sizeof(float) ||
        ir_numel(t) != 1)
      continue;
    const ir_tensor *xt = &c->g->tensors[x], *yt = &c->g->tensors[n->out[0]];
    if (xt->data || !lw_q_ok(c->g, x) || xt->rank < 1 || xt->rank != yt->rank) return -1;
    for (int d = 0; d < xt->rank; d++)
      if (xt->dims[d] != yt->dims[d]) return -1;
    float v;
    memcpy(&v, t->data, sizeof v);
    if (!isfinite(v)) return -1;
    *val = v;
    return 1 - j;
  }
  return -1;
}

int lw_softmax_int8(const lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  if (!ir_node_is_op(n, ONNX_OP_SOFTMAX) || lw_node_excluded(c, n) || n->fp32 || n->n_in < 1 || n->n_out < 1 ||
      n->in[0] < 0 || n->out[0] < 0 || !lw_q_ok(c->g, n->in[0]) || !lw_q_ok(c->g, n->out[0]))
    return 0;
  const ir_tensor *x = &c->g->tensors[n->in[0]];
  if (x->data || x->rank < 1 || c->g->opset < 13) return 0;
  const int64_t a = ir_attr_int(n, "axis", -1);
  if ((a < 0 ? a + x->rank : a) != x->rank - 1) return 0;
  if (x->dims[x->rank - 1] < 1 || x->dims[x->rank - 1] > YRT_SOFTMAX_I8_MAX_LEN) return 0;
  /* the node scales p by k before rounding (lw_softmax_qlinear_k): an output scale over 1 gives
   * k = 0, which only the float chain reproduces */
  const float k = lw_softmax_qlinear_k(c->g->tensors[n->out[0]].q.scale);
  return k > 0.0f && k <= 1.0f;
}

float lw_softmax_qlinear_k(float sy) {
  return floorf(1.0f / sy) * sy;
}

int lw_lut_binary_scalar(lw_ctx *c, int kind, float k, int k_first, float sx, int32_t zx, float sy,
                         int32_t zy) {
  int8_t lut[256];
  yk_lut_build_binary_scalar(kind, k, k_first, (yk_qparams){sx, zx}, (yk_qparams){sy, zy}, lut);
  return lw_lut_table(c, lut, sx, zx);
}

int lw_lut_silu(lw_ctx *c, const ir_quant *qy, const ir_quant *qs, const ir_quant *qz) {
  int8_t lut[256];
  yk_qparams a = {qy->scale, qy->zero_point}, b = {qs->scale, qs->zero_point},
             z = {qz->scale, qz->zero_point};
  yk_lut_build_silu_qdq(a, b, z, lut);
  return lw_lut_table(c, lut, qy->scale, qy->zero_point);
}

int lw_requant_begin(lw_ctx *c, int out, int in) {
  if (c->t[out].dtype != YRT_I8) return out;
  if (c->t[out].scale == c->t[in].scale && c->t[out].zp == c->t[in].zp) return out;
  return lw_temp_like(c, out, "#rq", YRT_I8, c->t[in].scale, c->t[in].zp);
}

yrt_status lw_requant_end(lw_ctx *c, int wrote, int out) {
  if (wrote == out) return YRT_OK;
  int lut = lw_lut_unary(c, YRT_UNARY_IDENTITY, 0.0f, c->t[wrote].scale, c->t[wrote].zp,
                         c->t[out].scale, c->t[out].zp);
  if (lut < 0) return c->status;
  int in[2] = {wrote, lut};
  if (!lw_add_node(c, YRT_OP_LUT, in, 2, &out, 1)) return c->status;
  return YRT_OK;
}

/* 1 when some reader of activation irt reads it in float (a float node or a graph output). */
static int read_in_float(const lw_ctx *c, int irt) {
  const ir_graph *g = c->g;
  if (g->tensors[irt].is_output) return 1;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    for (int j = 0; j < n->n_in; j++) {
      if (n->in[j] != irt) continue;
      const char *why;
      /* a fused SiLU's Sigmoid/Mul read the conv's accumulator, not this tensor in float */
      float k;
      if (!c->absorbed[i] && !lw_node_int8(c, i, &why) && lw_binary_scalar_operand(c, i, &k) < 0 &&
          !lw_softmax_int8(c, i))
        return 1;
      break;
    }
  }
  return 0;
}

/* Float form of irt replaced by QUANTIZE -> DEQUANTIZE of itself when only that form exists
 * and a float reader needs it (int8 readers get the QUANTIZE alone, on demand). */
static yrt_status fake_quant(lw_ctx *c, int irt) {
  if (irt < 0 || !lw_q_ok(c->g, irt) || c->g->tensors[irt].data) return YRT_OK;
  if (!read_in_float(c, irt)) return YRT_OK;
  int *f = &c->form[irt * 4];
  if (f[2] >= 0 || f[3] >= 0) return YRT_OK; /* produced in int8: already quantized */
  uint32_t layout = f[LW_FORM(0, YRT_LAYOUT_NHWC)] >= 0 ? YRT_LAYOUT_NHWC : YRT_LAYOUT_PLAIN;
  int x = f[LW_FORM(0, layout)];
  if (x < 0 || f[LW_FORM(0, layout == YRT_LAYOUT_NHWC ? YRT_LAYOUT_PLAIN : YRT_LAYOUT_NHWC)] >= 0)
    return YRT_OK; /* nothing written, or already read in another form */
  int q = lw_get(c, irt, 1, layout); /* QUANTIZE x */
  if (q < 0) return c->status;
  int y = lw_temp_like(c, x, "#qdq", YRT_F32, 0.0f, 0);
  if (y < 0) return c->status;
  if (!lw_add_node(c, YRT_OP_DEQUANTIZE, &q, 1, &y, 1)) return c->status;
  f[LW_FORM(0, layout)] = y;
  return YRT_OK;
}

yrt_status lw_fake_quant_outputs(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  const char *why = NULL;
  if (n->fp32 || lw_node_int8(c, ni, &why)) return YRT_OK; /* fp32 region: float on purpose */
  yrt_status st = YRT_OK;
  for (int j = 0; j < n->n_out && !st; j++) st = fake_quant(c, n->out[j]);
  if (!st && c->fuse_mul[ni] >= 0) st = fake_quant(c, c->g->nodes[c->fuse_mul[ni]].out[0]);
  if (!st && c->fuse_act[ni] >= 0) st = fake_quant(c, c->g->nodes[c->fuse_act[ni]].out[0]);
  return st;
}
