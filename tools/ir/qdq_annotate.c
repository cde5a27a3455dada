/* qdq_annotate.c — QuantizeLinear/DequantizeLinear pairs become quantization annotations:
 *   X -Q(s,zp)-> Xq -DQ-> X'   : consumers of X' read X, X.q = (s, zp) as int8
 *   DQ(initializer)            : a constant with the dequantized float data + raw int qdata
 *   Q(constant)                : folded first into the integer constant the DQ then reads
 * uint8 is normalised to int8 (value - 128, zp - 128), which keeps (q - zp) * s unchanged. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"
#include "onnx_ops.h"

/* Quantization parameters of a Q or DQ node, read from its constant inputs. */
typedef struct qparams {
  int n;           /* number of scales (1 = per-tensor) */
  float *scales;   /* owned */
  int32_t zp;      /* common zero point in the ORIGINAL type (the first one when they differ) */
  int32_t *zps;    /* owned: per-axis zero points when they differ (constants only), else NULL */
  ir_dtype qtype;  /* U8, I8 or I32 */
  int axis;        /* normalised, -1 for per-tensor */
} qparams;

/* ONNX TensorProto.DataType names of the quantized types met in the wild, for errors. */
static const char *qtype_name(int t) {
  switch (t) {
  case 2: return "uint8";
  case 3: return "int8";
  case 4: return "uint16";
  case 5: return "int16";
  case 6: return "int32";
  case 17: case 18: case 19: case 20: return "float8";
  case 21: return "uint4";
  case 22: return "int4";
  default: return "unknown";
  }
}

static void qp_free(qparams *p) {
  free(p->scales);
  free(p->zps);
  p->scales = NULL;
  p->zps = NULL;
}

static int32_t qp_zp(const qparams *p, int64_t c) { return p->zps ? p->zps[c] : p->zp; }

static yrt_status read_qparams(const ir_graph *g, const ir_node *n, int data_rank, ir_dtype qtype,
                               qparams *p, yrt_error *err) {
  memset(p, 0, sizeof(*p));
  p->axis = -1;
  p->qtype = qtype;
  if (n->n_in < 2 || n->in[1] < 0)
    return yrt_set_error(err, YRT_ERR_FORMAT, "qdq: node '%s' has no scale", n->name);
  const ir_tensor *s = &g->tensors[n->in[1]];
  int64_t ns = ir_numel(s);
  if (!s->data || s->dtype != IR_F32 || ns < 1 || ns > (1 << 20) || s->nbytes < (size_t)ns * 4)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: node '%s': scale '%s' must be a constant "
                         "float tensor", n->name, s->name);
  /* opset 21+: blocked quantization and explicit output types */
  if (ir_attr_int(n, "block_size", 0) != 0)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: node '%s': blocked quantization (block_size "
                         "%lld) is not supported", n->name, (long long)ir_attr_int(n, "block_size", 0));
  const int64_t odt = ir_attr_int(n, "output_dtype", 0);
  if (odt) p->qtype = (ir_dtype)odt;
  const ir_tensor *z = (n->n_in > 2 && n->in[2] >= 0) ? &g->tensors[n->in[2]] : NULL;
  if (z) {
    const int64_t nz = ir_numel(z); /* one per scale, or one for all (lenient) */
    if (!z->data || (nz != ns && nz != 1))
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: node '%s': zero point '%s' must be a "
                           "constant with one value per scale", n->name, z->name);
    if (z->dtype != IR_U8 && z->dtype != IR_I8 && z->dtype != IR_I32 && z->dtype != IR_U16 && z->dtype != IR_I16)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: node '%s': zero point type %s is not "
                           "supported (int8/uint8/int16/uint16/int32 only)", n->name, qtype_name(z->dtype));
    p->qtype = z->dtype;
    p->zp = (int32_t)ir_const_i64(z, 0);
    int differ = 0;
    for (int64_t i = 1; i < nz; i++) differ |= ir_const_i64(z, i) != p->zp;
    if (differ) { /* asymmetric per-channel weights (uint8 per_channel exports) */
      p->zps = malloc(sizeof(int32_t) * (size_t)nz);
      if (!p->zps) return yrt_set_error(err, YRT_ERR_NOMEM, "qdq: out of memory");
      for (int64_t i = 0; i < nz; i++) p->zps[i] = (int32_t)ir_const_i64(z, i);
    }
  }
  if (p->qtype != IR_U8 && p->qtype != IR_I8 && p->qtype != IR_I32 && p->qtype != IR_U16 && p->qtype != IR_I16) {
    qp_free(p);
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: node '%s': quantized type %s is not "
                         "supported (int8/uint8/int16/uint16/int32 only)", n->name, qtype_name(p->qtype));
  }
  p->scales = malloc(sizeof(float) * (size_t)ns);
  if (!p->scales) {
    qp_free(p);
    return yrt_set_error(err, YRT_ERR_NOMEM, "qdq: out of memory");
  }
  p->n = (int)ns;
  for (int64_t i = 0; i < ns; i++) {
    memcpy(&p->scales[i], (const char *)s->data + i * 4, 4);
    if (!(p->scales[i] >= FLT_MIN) || p->scales[i] > 1e30f) { /* normal, as the loader wants (fuzz) */
      const double bad = (double)p->scales[i]; /* read before qp_free (fuzz finding) */
      qp_free(p);
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: node '%s': scale %g is not a normal positive float (FLT_MIN..1e30)",
                           n->name, bad);
    }
  }
  if (s->rank >= 1 && !(ns == 1 && s->rank <= 1)) {
    int64_t ax = ir_attr_int(n, "axis", 1);
    if (ax < 0) ax += data_rank;
    if (s->rank != 1 || ax < 0 || ax >= data_rank) {
      qp_free(p);
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: node '%s': scale must be a scalar or a "
                           "1-D per-axis vector", n->name);
    }
    p->axis = (int)ax;
  }
  return YRT_OK;
}

static int qp_equal(const qparams *a, const qparams *b) {
  if (a->zps || b->zps) return 0; /* only constants carry differing zero points */
  return a->n == b->n && a->zp == b->zp && a->qtype == b->qtype && a->axis == b->axis &&
         memcmp(a->scales, b->scales, sizeof(float) * (size_t)a->n) == 0;
}

/* Fill an ir_quant (int8 normalised). Takes the scales array from p. */
static void to_ir_quant(qparams *p, ir_quant *q) {
  memset(q, 0, sizeof(*q));
  q->on = 1;
  const int w16 = p->qtype == IR_U16 || p->qtype == IR_I16;
  q->dtype = p->qtype == IR_I32 ? IR_I32 : w16 ? IR_I16 : IR_I8;
  q->zero_point = p->qtype == IR_U8 ? p->zp - 128 : p->qtype == IR_U16 ? p->zp - 32768 : p->zp;
  q->scale = p->scales[0];
  if (p->axis >= 0) {
    q->scales = p->scales;
    q->n_scales = p->n;
    q->axis = p->axis;
    p->scales = NULL;
  }
}

/* 1 if tensor t is the weight input of a live Conv. */
static int feeds_conv_weights(const ir_graph *g, int t) {
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (!n->dead && ir_node_is_op(n, ONNX_OP_CONV) && n->n_in > 1 && n->in[1] == t) return 1;
  }
  return 0;
}

/* Per-axis parameters over constant x: *nch channels (x's size on the axis, which must equal the
 * number of scales) of *inner elements each; per-tensor: 1 and 1. Frees p on error. */
static yrt_status qp_axis_extent(qparams *p, const ir_tensor *x, const char *op, const char *node,
                                 int64_t *nch, int64_t *inner, yrt_error *err) {
  *nch = *inner = 1;
  if (p->axis < 0) return YRT_OK;
  *nch = x->dims[p->axis];
  for (int i = p->axis + 1; i < x->rank; i++) *inner *= x->dims[i];
  if (*nch == p->n) return YRT_OK;
  const int n = p->n;
  qp_free(p);
  return yrt_set_error(err, YRT_ERR_SHAPE, "qdq: %s '%s': %d scales for axis %d of size %lld", op, node, n,
                       p->axis, (long long)*nch);
}

/* DQ(constant x) -> constant output y with float data, qdata and q. */
static yrt_status dq_constant(ir_graph *g, int di, yrt_error *err) {
  ir_node *d = &g->nodes[di];
  const ir_tensor *x = &g->tensors[d->in[0]];
  int64_t n = ir_numel(x);
  /* int16 QDQ is for activations (W8A16): weights stay int8 */
  if (x->dtype != IR_I8 && x->dtype != IR_U8 && x->dtype != IR_I32)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: DequantizeLinear '%s' of '%s' with type "
                         "%d", d->name, x->name, (int)x->dtype);
  if (n < 0 || x->nbytes != (size_t)n * ir_dtype_size(x->dtype))
    return yrt_set_error(err, YRT_ERR_FORMAT, "qdq: constant '%s' has a bad size", x->name);
  qparams p;
  yrt_status st = read_qparams(g, d, x->rank, x->dtype, &p, err);
  if (st) return st;
  if (p.qtype != x->dtype) {
    qp_free(&p);
    return yrt_set_error(err, YRT_ERR_FORMAT, "qdq: DequantizeLinear '%s': zero point type differs "
                         "from data type", d->name);
  }
  int64_t inner = 1, nch = 1;
  if ((st = qp_axis_extent(&p, x, "DequantizeLinear", d->name, &nch, &inner, err))) return st;
  if (p.zps && x->dtype == IR_I32) {
    qp_free(&p);
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: DequantizeLinear '%s': int32 data with "
                         "per-channel zero points that differ", d->name);
  }
  size_t qes = x->dtype == IR_I32 ? 4 : 1;
  float *f = malloc((size_t)(n ? n : 1) * 4);
  void *qd = malloc((size_t)(n ? n : 1) * qes);
  if (!f || !qd) {
    free(f);
    free(qd);
    qp_free(&p);
    return yrt_set_error(err, YRT_ERR_NOMEM, "qdq: out of memory");
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t v = ir_const_i64(x, i);
    const int64_t c = p.axis >= 0 ? (i / inner) % nch : 0;
    float s = p.scales[c];
    f[i] = (float)(v - qp_zp(&p, c)) * s;
    if (x->dtype == IR_I32) { int32_t w = (int32_t)v; memcpy((char *)qd + i * 4, &w, 4); }
    else ((int8_t *)qd)[i] = (int8_t)(x->dtype == IR_U8 ? v - 128 : v);
  }
  /* The int8 kernels take symmetric weights (zero point 0); differing per-channel zero points fit
   * no single one. Centre such data: exactly (v - zp) when every value fits int8 (7-bit reduced
   * range, uint8 with zp 128...), else requantized symmetric per channel (scale * max|v - zp| / 127;
   * the float data stays exact). */
  if (x->dtype != IR_I32 && (p.zps || (feeds_conv_weights(g, d->out[0]) &&
                                       (x->dtype == IR_U8 ? p.zp != 128 : p.zp != 0)))) {
    int fits = 1;
    for (int64_t i = 0; i < n && fits; i++) {
      const int64_t dv = ir_const_i64(x, i) - qp_zp(&p, p.axis >= 0 ? (i / inner) % nch : 0);
      fits = dv >= -128 && dv <= 127;
    }
    for (int64_t c = 0; c < nch && !fits; c++) {
      int64_t m = 0;
      for (int64_t i = 0; i < n; i++)
        if ((p.axis >= 0 ? (i / inner) % nch : 0) == c) {
          const int64_t dv = ir_const_i64(x, i) - qp_zp(&p, c);
          if (llabs(dv) > m) m = llabs(dv);
        }
      if (m > 127) p.scales[c] = (float)((double)p.scales[c] * (double)m / 127.0);
    }
    for (int64_t i = 0; i < n; i++) {
      const int64_t c = p.axis >= 0 ? (i / inner) % nch : 0;
      const int64_t dv = ir_const_i64(x, i) - qp_zp(&p, c);
      double r = fits ? (double)dv : nearbyint((double)f[i] / (double)p.scales[c]);
      if (r > 127) r = 127;
      if (r < (fits ? -128 : -127)) r = fits ? -128 : -127;
      ((int8_t *)qd)[i] = (int8_t)r;
    }
    free(p.zps);
    p.zps = NULL;
    p.zp = 0;
    p.qtype = IR_I8;
  }
  /* Conv weights quantized along another axis than the output channels: requantized symmetric
   * per output channel from the exact float data (the kernels scale per output channel). */
  if (x->dtype != IR_I32 && p.axis > 0 && x->rank >= 1 && x->dims[0] > 0 && feeds_conv_weights(g, d->out[0])) {
    const int64_t no = x->dims[0], per = n / no;
    float *ns = malloc(sizeof(float) * (size_t)no);
    if (!ns) {
      free(f);
      free(qd);
      qp_free(&p);
      return yrt_set_error(err, YRT_ERR_NOMEM, "qdq: out of memory");
    }
    for (int64_t o = 0; o < no; o++) {
      float m = 0;
      for (int64_t i = o * per; i < (o + 1) * per; i++) m = fmaxf(m, fabsf(f[i]));
      ns[o] = m / 127.0f >= FLT_MIN ? m / 127.0f : p.scales[0];
      for (int64_t i = o * per; i < (o + 1) * per; i++) {
        double r = nearbyint((double)f[i] / (double)ns[o]);
        ((int8_t *)qd)[i] = (int8_t)(r > 127 ? 127 : r < -127 ? -127 : r);
      }
    }
    free(p.scales);
    free(p.zps);
    p.zps = NULL;
    p.scales = ns;
    p.n = (int)no;
    p.axis = 0;
    p.zp = 0;
    p.qtype = IR_I8;
  }
  int64_t dims[IR_MAX_RANK];
  int rank = x->rank;
  memcpy(dims, x->dims, sizeof(dims));
  ir_tensor *y = &g->tensors[d->out[0]];
  free(y->data);
  ir_tensor_clear_quant(y);
  y->data = f;
  y->nbytes = (size_t)n * 4;
  y->qdata = qd;
  y->dtype = IR_F32;
  y->producer = -1;
  ir_tensor_set_shape(y, rank, dims);
  to_ir_quant(&p, &y->q);
  qp_free(&p);
  g->nodes[di].dead = 1;
  return YRT_OK;
}

/* Q(constant float x) -> its output becomes the constant saturate(round_half_even(x / s) + zp)
 * in the Q's type, so the DQ that reads it is a DQ of a constant (exporters quantize the
 * head's anchor / stride constants this way). */
static yrt_status fold_q_constant(ir_graph *g, int qi, yrt_error *err) {
  const ir_node *q = &g->nodes[qi];
  const ir_tensor *x = &g->tensors[q->in[0]];
  int64_t n = ir_numel(x);
  if (x->dtype != IR_F32 || n < 0 || x->nbytes != (size_t)n * 4)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: QuantizeLinear '%s' of constant '%s': "
                         "only float32 constants are folded", q->name, x->name);
  qparams p;
  yrt_status st = read_qparams(g, q, x->rank, IR_U8, &p, err);
  if (st) return st;
  if (p.qtype != IR_U8 && p.qtype != IR_I8) {
    qp_free(&p);
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: QuantizeLinear '%s': output type %s",
                         q->name, qtype_name(p.qtype));
  }
  int64_t inner = 1, nch = 1;
  if ((st = qp_axis_extent(&p, x, "QuantizeLinear", q->name, &nch, &inner, err))) return st;
  const double lo = p.qtype == IR_U8 ? 0 : -128, hi = p.qtype == IR_U8 ? 255 : 127;
  uint8_t *d = malloc((size_t)(n ? n : 1));
  if (!d) {
    qp_free(&p);
    return yrt_set_error(err, YRT_ERR_NOMEM, "qdq: out of memory");
  }
  for (int64_t i = 0; i < n; i++) {
    float v;
    memcpy(&v, (const char *)x->data + i * 4, 4);
    const float s = p.axis >= 0 ? p.scales[(i / inner) % nch] : p.scales[0];
    double r = nearbyint((double)(v / s)) + qp_zp(&p, p.axis >= 0 ? (i / inner) % nch : 0); /* ONNX: round half to even, then saturate */
    if (!(r >= lo)) r = lo; /* NaN too */
    if (r > hi) r = hi;
    if (p.qtype == IR_U8) d[i] = (uint8_t)r;
    else { int8_t sv = (int8_t)r; memcpy(&d[i], &sv, 1); }
  }
  qp_free(&p);
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof dims);
  const int rank = x->rank;
  ir_tensor *y = &g->tensors[q->out[0]];
  free(y->data);
  ir_tensor_clear_quant(y);
  y->data = d;
  y->nbytes = (size_t)n;
  y->dtype = p.qtype;
  y->producer = -1;
  ir_tensor_set_shape(y, rank, dims);
  g->nodes[qi].dead = 1;
  return YRT_OK;
}

yrt_status ir_qdq_annotate(ir_graph *g, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_qdq_annotate: NULL graph");
  yrt_status st = YRT_OK;
  for (int qi = 0; qi < g->n_nodes && !st; qi++) {
    const ir_node *q = &g->nodes[qi];
    if (q->dead || !ir_node_is_op(q, ONNX_OP_QUANTIZE_LINEAR) || q->n_in < 2 || q->in[0] < 0 || q->n_out != 1 ||
        q->out[0] < 0 || !g->tensors[q->in[0]].data || g->tensors[q->out[0]].is_output)
      continue;
    st = fold_q_constant(g, qi, err);
  }
  if (st) return st;
  for (int di = 0; di < g->n_nodes && !st; di++) {
    ir_node *d = &g->nodes[di];
    if (d->dead || !ir_node_is_op(d, ONNX_OP_DEQUANTIZE_LINEAR)) continue;
    if (d->n_in < 2 || d->in[0] < 0 || d->n_out != 1)
      return yrt_set_error(err, YRT_ERR_FORMAT, "qdq: DequantizeLinear '%s' is malformed", d->name);
    const ir_tensor *x = &g->tensors[d->in[0]];
    if (x->data) {
      st = dq_constant(g, di, err);
      continue;
    }
    int qi = x->producer;
    if (qi < 0 || g->nodes[qi].dead || !ir_node_is_op(&g->nodes[qi], ONNX_OP_QUANTIZE_LINEAR))
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                           "qdq: DequantizeLinear '%s' reads '%s', which is neither a constant nor "
                           "a QuantizeLinear output", d->name, x->name);
    const ir_node *q = &g->nodes[qi];
    if (q->n_in < 2 || q->in[0] < 0)
      return yrt_set_error(err, YRT_ERR_FORMAT, "qdq: QuantizeLinear '%s' is malformed", q->name);
    int X = q->in[0];
    int rank = g->tensors[X].rank;
    if (rank < 0) rank = IR_MAX_RANK;
    qparams pq, pd;
    if ((st = read_qparams(g, q, rank, IR_U8, &pq, err))) return st;
    if ((st = read_qparams(g, d, rank, x->dtype, &pd, err))) { qp_free(&pq); return st; }
    int same = qp_equal(&pq, &pd);
    qp_free(&pd);
    if (!same) {
      qp_free(&pq);
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: QuantizeLinear '%s' and "
                           "DequantizeLinear '%s' use different scale/zero point", q->name, d->name);
    }
    if (pq.qtype == IR_I32 || pq.axis >= 0) {
      qp_free(&pq);
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: QuantizeLinear '%s': only per-tensor "
                           "int8/uint8/int16/uint16 activations are supported", q->name);
    }
    /* the runtime's int16 activations are symmetric (yolort_format.h YRT_I16): int16 zero point 0
     * or uint16 32768 (onnxruntime's quantizer with ActivationSymmetric writes these) */
    if ((pq.qtype == IR_I16 && pq.zp != 0) || (pq.qtype == IR_U16 && pq.zp != 32768)) {
      const int32_t zp = pq.zp;
      const int u16 = pq.qtype == IR_U16;
      qp_free(&pq);
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: QuantizeLinear '%s': %s activations with zero point %d: "
                           "yolort's int16 activations are symmetric (zero point %d; onnxruntime: "
                           "extra_options ActivationSymmetric=True)", q->name, u16 ? "uint16" : "int16",
                           (int)zp, u16 ? 32768 : 0);
    }
    ir_quant nq;
    to_ir_quant(&pq, &nq);
    qp_free(&pq);
    ir_tensor *xt = &g->tensors[X];
    if (xt->q.on && (xt->q.scale != nq.scale || xt->q.zero_point != nq.zero_point || xt->q.dtype != nq.dtype))
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: tensor '%s' is quantized twice with "
                           "different parameters (QuantizeLinear '%s')", xt->name, q->name);
    xt->q = nq;
    int y = d->out[0];
    g->nodes[di].dead = 1;
    ir_replace_uses(g, y, X);
    if (g->tensors[y].is_output) {
      /* the graph output keeps its public name (e.g. "output0"): swap names with X */
      g->tensors[y].is_output = 0;
      if (!g->tensors[X].is_output && !g->tensors[X].is_input) {
        char *tmp = g->tensors[X].name;
        g->tensors[X].name = g->tensors[y].name;
        g->tensors[y].name = tmp;
        ir_graph_rehash(g);
      }
      g->tensors[X].is_output = 1;
    }
  }
  if (st) return st;
  /* Q nodes must now be unused: every consumer was a (now removed) DQ */
  for (int qi = 0; qi < g->n_nodes; qi++) {
    ir_node *q = &g->nodes[qi];
    if (q->dead || !ir_node_is_op(q, ONNX_OP_QUANTIZE_LINEAR)) continue;
    int c[1];
    int nc = q->n_out ? ir_consumers(g, q->out[0], c, 1) : 0;
    if (nc > 0)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: QuantizeLinear '%s' output is read by "
                           "'%s' (%s), not by a DequantizeLinear", q->name, g->nodes[c[0]].name,
                           g->nodes[c[0]].op_type);
    if (q->n_out && g->tensors[q->out[0]].is_output)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "qdq: QuantizeLinear '%s' output is a graph "
                           "output (int8 graph outputs are not supported)", q->name);
    q->dead = 1;
  }
  return YRT_OK;
}
