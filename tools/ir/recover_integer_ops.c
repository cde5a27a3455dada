/* recover_integer_ops.c — onnxruntime quantize_dynamic graphs back to float Conv / MatMul.
 *
 * quantize_dynamic writes every Conv as
 *   DynamicQuantizeLinear(x) -> (q, s, zp); ConvInteger(q, Wq, zp, Wzp) -> Cast(float)
 *   -> Mul(., Mul(s, w_scale)) [-> Add(., bias)]
 * and MatMul alike with MatMulInteger. The weights are recovered as (Wq - Wzp) * w_scale (the
 * exact values onnxruntime multiplies with) and the chain becomes one float Conv / MatMul
 * reading x, tagged "yolort.dynamic_quant" = 1 and "yolort.dynamic_wscale" = w_scale (one, or one
 * per output channel / column): the lowering then runs it in int8 with an
 * activation range measured on each run, and yolort-quantize can calibrate the float graph. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"
#include "onnx_ops.h"

/* The only live reader of t (graph outputs count as a second reader), or -1. */
static int sole_reader(const ir_graph *g, int t) {
  int r[2];
  if (t < 0 || g->tensors[t].is_output || ir_consumers(g, t, r, 2) != 1) return -1;
  return r[0];
}

/* Constant integer tensor element as int64 (U8 / I8 / I32), or 0 when t < 0 (absent zp). */
static int const_int_ok(const ir_graph *g, int t) {
  if (t < 0) return 1;
  const ir_tensor *x = &g->tensors[t];
  return x->data && ir_numel(x) >= 1 &&
         (x->dtype == IR_U8 || x->dtype == IR_I8 || x->dtype == IR_I32);
}

/* Element i of a per-tensor (numel 1) or per-channel (numel n) constant; t < 0 -> 0. */
static double per_ch(const ir_graph *g, int t, int64_t i) {
  if (t < 0) return 0.0;
  const ir_tensor *x = &g->tensors[t];
  return ir_const_f64(x, ir_numel(x) == 1 ? 0 : i);
}

static int numel_is(const ir_graph *g, int t, int64_t n) {
  int64_t k = t < 0 ? 1 : ir_numel(&g->tensors[t]);
  return k == 1 || k == n;
}

/* s * w_scale: the Mul's operand that is not the dynamic scale must be a float constant
 * (w_scale), numel 1 or n_ch. Returns it, -2 when the scale is s itself (w_scale 1), -1 no match. */
static int weight_scale_of(const ir_graph *g, int scale_t, int dyn_s, int64_t n_ch) {
  if (scale_t < 0 || scale_t >= g->n_tensors) return -1; /* an absent (empty-named) Mul input */
  if (scale_t == dyn_s) return -2;
  int p = g->tensors[scale_t].producer;
  if (p < 0) return -1;
  const ir_node *m = &g->nodes[p];
  if (m->dead || !ir_node_is_op(m, ONNX_OP_MUL) || m->n_in != 2) return -1;
  int other = m->in[0] == dyn_s ? m->in[1] : m->in[1] == dyn_s ? m->in[0] : -1;
  if (other < 0) return -1;
  const ir_tensor *c = &g->tensors[other];
  if (!c->data || c->dtype != IR_F32 || !numel_is(g, other, n_ch)) return -1;
  return other;
}

/* A per-output-channel bias constant for a conv with n_ch channels: numel n_ch, every dim but
 * one equal to 1, and that one in the channel position of a [1,C,1,1] / [C,1,1] / [C] add. */
static int conv_bias_ok(const ir_graph *g, int t, int64_t n_ch) {
  const ir_tensor *b = &g->tensors[t];
  if (!b->data || b->dtype != IR_F32 || ir_numel(b) != n_ch || b->rank < 1) return 0;
  int cpos = b->rank - 3; /* channel axis when right-aligned against [N,C,H,W] */
  if (b->rank == 1) return n_ch == 1;
  for (int d = 0; d < b->rank; d++)
    if (d != cpos && b->dims[d] != 1) return 0;
  return cpos >= 0;
}

static int set_inputs(ir_node *n, const int *in, int k) {
  int *a = realloc(n->in, sizeof(int) * (size_t)k);
  if (!a) return -1;
  memcpy(a, in, sizeof(int) * (size_t)k);
  n->in = a;
  n->n_in = k;
  return 0;
}

/* Try node ci (ConvInteger or MatMulInteger). 1 rewritten, 0 pattern not matched, -1 no memory. */
/* Returns 1 recovered, 0 not this form, -1 out of memory, -2 refused (*bad: the weight scale's
 * index, *bad_v its value). */
static int recover_one(ir_graph *g, int ci, int64_t *bad, double *bad_v) {
  ir_node *n = &g->nodes[ci];
  int is_conv = ir_node_is(n, "ConvInteger");
  if (n->n_in < 2 || n->n_out != 1 || n->in[0] < 0 || n->in[1] < 0) return 0;
  int q = n->in[0], wq = n->in[1];
  int xzp = n->n_in > 2 ? n->in[2] : -1, wzp = n->n_in > 3 ? n->in[3] : -1;
  int di = g->tensors[q].producer;
  if (di < 0 || !ir_node_is(&g->nodes[di], "DynamicQuantizeLinear") || g->nodes[di].n_out != 3 ||
      g->nodes[di].out[0] != q || g->nodes[di].in[0] < 0)
    return 0;
  int x = g->nodes[di].in[0], dyn_s = g->nodes[di].out[1], dyn_zp = g->nodes[di].out[2];
  if (dyn_s < 0 || dyn_zp < 0) return 0; /* DynamicQuantizeLinear with an absent output */
  if (xzp != dyn_zp) return 0; /* the integer op must use the measured zero point */
  const ir_tensor *w = &g->tensors[wq];
  if (!w->data || (w->dtype != IR_U8 && w->dtype != IR_I8) || !const_int_ok(g, wzp)) return 0;
  int64_t wn = ir_numel(w);
  if (wn <= 0 || (size_t)wn != w->nbytes || (is_conv ? w->rank < 3 : w->rank != 2)) return 0;
  int64_t n_ch = is_conv ? w->dims[0] : w->dims[1]; /* conv: per output channel; matmul: per column */
  if (!numel_is(g, wzp, n_ch)) return 0;
  /* Cast(to float) -> Mul(cast, s * w_scale) */
  int ca = sole_reader(g, n->out[0]);
  if (ca < 0 || !ir_node_is_op(&g->nodes[ca], ONNX_OP_CAST) || ir_attr_int(&g->nodes[ca], "to", 0) != IR_F32)
    return 0;
  int cast_out = g->nodes[ca].out[0];
  int mu = sole_reader(g, cast_out);
  if (mu < 0 || !ir_node_is_op(&g->nodes[mu], ONNX_OP_MUL) || g->nodes[mu].n_in != 2) return 0;
  int scale_t = g->nodes[mu].in[0] == cast_out ? g->nodes[mu].in[1] : g->nodes[mu].in[0];
  int ws = weight_scale_of(g, scale_t, dyn_s, n_ch);
  if (ws == -1) return 0;
  /* the weight scales as the QDQ path takes them (qdq_annotate.c read_qparams): normal and
   * positive; NaN, 0 or a negative scale converted and detected garbage */
  for (int64_t k = 0; ws >= 0 && k < ir_numel(&g->tensors[ws]); k++) {
    const double v = ir_const_f64(&g->tensors[ws], k);
    if (!(v >= FLT_MIN) || v > 1e30) {
      *bad = k;
      *bad_v = v;
      return -2;
    }
  }
  int y = g->nodes[mu].out[0];
  /* optional bias Add (conv only: a MatMul's Add stays an Add) */
  int ad = is_conv ? sole_reader(g, y) : -1, bias = -1;
  if (ad >= 0 && ir_node_is_op(&g->nodes[ad], ONNX_OP_ADD) && g->nodes[ad].n_in == 2) {
    int other = g->nodes[ad].in[0] == y ? g->nodes[ad].in[1] : g->nodes[ad].in[0];
    if (conv_bias_ok(g, other, n_ch)) bias = other;
  }
  /* float weights */
  float *fw = malloc((size_t)wn * sizeof(float));
  if (!fw) return -1;
  int64_t inner = is_conv ? wn / n_ch : 1;
  for (int64_t i = 0; i < wn; i++) {
    int64_t ch = is_conv ? i / inner : i % n_ch;
    double v = ir_const_f64(w, i) - per_ch(g, wzp, ch);
    double s = ws >= 0 ? per_ch(g, ws, ch) : 1.0;
    fw[i] = (float)(v * s);
  }
  char *base = ir_strdup(n->name && n->name[0] ? n->name : g->tensors[wq].name);
  int64_t wdims[IR_MAX_RANK];
  memcpy(wdims, w->dims, sizeof wdims);
  int wrank = w->rank;
  int fwt = base ? ir_add_const_f32(g, base, "/recovered_weight", wrank, wdims, fw, (size_t)wn) : -1;
  free(fw);
  int bt = -1;
  if (fwt >= 0 && bias >= 0) {
    float *fb = malloc((size_t)n_ch * sizeof(float));
    if (fb) {
      for (int64_t c = 0; c < n_ch; c++) fb[c] = (float)ir_const_f64(&g->tensors[bias], c);
      bt = ir_add_const_f32(g, base, "/recovered_bias", 1, &n_ch, fb, (size_t)n_ch);
      free(fb);
    }
    if (bt < 0) fwt = -1;
  }
  free(base);
  if (fwt < 0) return -1;
  /* rewrite the integer node in place: attributes (pads, strides, group...) stay */
  n = &g->nodes[ci];
  char *op = ir_strdup(is_conv ? "Conv" : "MatMul");
  int in[3] = {x, fwt, bt};
  if (!op || set_inputs(n, in, bt >= 0 ? 3 : 2)) {
    free(op);
    return -1;
  }
  free(n->op_type);
  n->op_type = op;
  n->op = onnx_op_id(op); /* the op table's row follows the new op type */
  int out = bias >= 0 ? g->nodes[ad].out[0] : y;
  g->tensors[n->out[0]].producer = -1;
  n->out[0] = out;
  g->tensors[out].producer = ci;
  g->nodes[ca].dead = 1;
  g->nodes[mu].dead = 1;
  if (bias >= 0) g->nodes[ad].dead = 1;
  if (ir_set_attr_int(g, ci, "yolort.dynamic_quant", 1)) return -1;
  { /* the weight scale(s) onnxruntime multiplies with: the lowering keeps (Wq - Wzp) exact
     * wherever it fits int8 (conv: per output channel) */
    const int nws = ws >= 0 ? (int)ir_numel(&g->tensors[ws]) : 1;
    float *wsv = malloc(sizeof(float) * (size_t)nws);
    if (!wsv) return -1;
    for (int k = 0; k < nws; k++) wsv[k] = ws >= 0 ? (float)ir_const_f64(&g->tensors[ws], k) : 1.0f;
    const int bad = ir_set_attr_floats(g, ci, "yolort.dynamic_wscale", wsv, nws);
    free(wsv);
    if (bad) return -1;
  }
  /* the s * w_scale Mul and the DynamicQuantizeLinear go when nothing reads them any more */
  int sp = g->tensors[scale_t].producer;
  if (ws >= 0 && sp >= 0 && ir_consumers(g, scale_t, NULL, 0) == 0 && !g->tensors[scale_t].is_output)
    g->nodes[sp].dead = 1;
  int used = 0;
  for (int k = 0; k < 3; k++) {
    int t = g->nodes[di].out[k];
    used |= ir_consumers(g, t, NULL, 0) > 0 || g->tensors[t].is_output;
  }
  if (!used) g->nodes[di].dead = 1;
  return 1;
}

yrt_status ir_recover_integer_ops(ir_graph *g, int *n_recovered, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_recover_integer_ops: NULL graph");
  int count = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead || (!ir_node_is(n, "ConvInteger") && !ir_node_is(n, "MatMulInteger"))) continue;
    int64_t bad = 0;
    double bad_v = 0;
    int r = recover_one(g, i, &bad, &bad_v);
    if (r == -2)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                           "recover_integer_ops: %s '%s': weight scale [%lld] = %g (a scale must be a normal positive "
                           "float)", g->nodes[i].op_type, g->nodes[i].name ? g->nodes[i].name : "", (long long)bad, bad_v);
    if (r < 0) return yrt_set_error(err, YRT_ERR_NOMEM, "recover_integer_ops: out of memory");
    count += r;
  }
  /* anything left is a form this pass does not know: name it rather than "unsupported op" */
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    if (ir_node_is(n, "ConvInteger") || ir_node_is(n, "MatMulInteger"))
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                           "node '%s' (%s): only the onnxruntime quantize_dynamic form is supported "
                           "(input from DynamicQuantizeLinear with its zero point, constant "
                           "weights, then Cast to float and Mul by input scale x weight scale)",
                           n->name, n->op_type);
  }
  if (n_recovered) *n_recovered = count;
  return YRT_OK;
}
