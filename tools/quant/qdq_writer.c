/* qdq_writer.c — float ONNX -> QDQ ONNX (see qdq_writer.h). */
#include "qdq_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_ops.h"

#include "onnx_reader.h"
#include "onnx_write.h"
#include "weight_scale.h"

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Decode an initializer into float (F32 only). *out malloc'ed. */
static yrt_status init_f32(const Onnx__ModelProto *m, const char *name, float **out, int *rank,
                           int64_t *dims, size_t *count, yrt_error *err) {
  const Onnx__TensorProto *tp = onnx_model_find_initializer(m, name);
  if (!tp) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "quantize: '%s' is not an initializer", name);
  ir_dtype dt;
  void *data;
  size_t nbytes;
  yrt_status st = onnx_tensor_decode(tp, name, &dt, rank, dims, &data, &nbytes, err);
  if (st) return st;
  if (dt != IR_F32) {
    free(data);
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "quantize: initializer '%s' is not float32", name);
  }
  *out = data;
  *count = nbytes / sizeof(float);
  return YRT_OK;
}

static int name_used_as_input(const Onnx__ModelProto *m, const char *name, const Onnx__NodeProto *except) {
  const Onnx__GraphProto *g = m->graph;
  for (size_t i = 0; i < g->n_node; i++) {
    if (g->node[i] == except) continue;
    for (size_t j = 0; j < g->node[i]->n_input; j++)
      if (!strcmp(g->node[i]->input[j], name)) return 1;
  }
  for (size_t i = 0; i < g->n_output; i++)
    if (!strcmp(g->output[i]->name, name)) return 1;
  return 0;
}

static int find_producer(const Onnx__GraphProto *g, const char *t) {
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t j = 0; j < g->node[i]->n_output; j++)
      if (!strcmp(g->node[i]->output[j], t)) return (int)i;
  return -1;
}

static int count_consumers(const Onnx__GraphProto *g, const char *t) {
  int c = 0;
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t j = 0; j < g->node[i]->n_input; j++) c += !strcmp(g->node[i]->input[j], t);
  for (size_t i = 0; i < g->n_output; i++) c += !strcmp(g->output[i]->name, t);
  return c;
}

static float attr_f(const Onnx__NodeProto *n, const char *name, float d) {
  for (size_t i = 0; i < n->n_attribute; i++)
    if (!strcmp(n->attribute[i]->name, name)) return n->attribute[i]->f;
  return d;
}

yrt_status qdq_fold_batchnorm(Onnx__ModelProto *m, yrt_error *err) {
  Onnx__GraphProto *g = m->graph;
  for (size_t bi = 0; bi < g->n_node; bi++) {
    Onnx__NodeProto *bn = g->node[bi];
    if (onnx_op_id(bn->op_type) != ONNX_OP_BATCH_NORMALIZATION || bn->n_input < 5) continue;
    int ci = find_producer(g, bn->input[0]);
    if (ci < 0) continue;
    Onnx__NodeProto *conv = g->node[ci];
    if (onnx_op_id(conv->op_type) != ONNX_OP_CONV || count_consumers(g, bn->input[0]) != 1) continue;
    float *w = NULL, *b = NULL, *par[4] = {NULL, NULL, NULL, NULL};
    int rank;
    int64_t dims[IR_MAX_RANK];
    size_t nw, nb = 0, np;
    yrt_status st = init_f32(m, conv->input[1], &w, &rank, dims, &nw, err);
    if (st) return st;
    const int64_t cout = dims[0];
    for (int k = 0; k < 4 && !st; k++) {
      int r2;
      int64_t d2[IR_MAX_RANK];
      st = init_f32(m, bn->input[1 + k], &par[k], &r2, d2, &np, err);
      if (!st && (int64_t)np != cout)
        st = yrt_set_error(err, YRT_ERR_SHAPE, "quantize: BatchNormalization '%s' has %zu channels, conv %lld",
                           bn->name, np, (long long)cout);
    }
    if (!st && conv->n_input > 2 && conv->input[2][0]) {
      int r2;
      int64_t d2[IR_MAX_RANK];
      st = init_f32(m, conv->input[2], &b, &r2, d2, &nb, err);
    }
    if (!st && !b) {
      b = calloc((size_t)cout, sizeof(float));
      if (!b) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
    }
    if (!st) {
      const float eps = attr_f(bn, "epsilon", 1e-5f);
      const size_t per = nw / (size_t)cout;
      for (int64_t c = 0; c < cout; c++) {
        const float s = par[0][c] / sqrtf(par[3][c] + eps);
        for (size_t k = 0; k < per; k++) w[c * per + k] *= s;
        b[c] = (b[c] - par[2][c]) * s + par[1][c];
      }
      char wn[512], bname[512];
      snprintf(wn, sizeof wn, "%s.folded_weight", conv->name);
      snprintf(bname, sizeof bname, "%s.folded_bias", conv->name);
      int64_t bd[1] = {cout};
      if (onnx_model_add_initializer(m, wn, IR_F32, rank, dims, w) ||
          onnx_model_add_initializer(m, bname, IR_F32, 1, bd, b))
        st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
      if (!st && (onnx_node_set_input(conv, 1, wn) || onnx_node_set_input(conv, 2, bname)))
        st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
      if (!st) {
        /* conv now writes the BN's output; drop the BN node */
        char *o = xstrdup(bn->output[0]);
        if (!o) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
        else {
          free(conv->output[0]);
          conv->output[0] = o;
          onnx__node_proto__free_unpacked(bn, NULL);
          memmove(&g->node[bi], &g->node[bi + 1], sizeof(void *) * (g->n_node - bi - 1));
          g->n_node--;
          bi--;
        }
      }
    }
    free(w);
    free(b);
    for (int k = 0; k < 4; k++) free(par[k]);
    if (st) return st;
  }
  return YRT_OK;
}

static int64_t model_opset(const Onnx__ModelProto *m) {
  for (size_t i = 0; i < m->n_opset_import; i++)
    if (!m->opset_import[i]->domain || !m->opset_import[i]->domain[0] ||
        !strcmp(m->opset_import[i]->domain, "ai.onnx"))
      return m->opset_import[i]->version;
  return 0;
}

/* Move an INTS attribute into a new int64 initializer input at position pos. */
static yrt_status attr_to_input(Onnx__ModelProto *m, Onnx__NodeProto *n, const char *attr, size_t pos,
                                yrt_error *err) {
  for (size_t a = 0; a < n->n_attribute; a++) {
    Onnx__AttributeProto *at = n->attribute[a];
    if (strcmp(at->name, attr)) continue;
    char name[512];
    snprintf(name, sizeof name, "%s.%s", n->name && n->name[0] ? n->name : n->output[0], attr);
    int64_t d[1] = {(int64_t)at->n_ints};
    if (onnx_model_add_initializer(m, name, IR_I64, 1, d, at->ints))
      return yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
    while (n->n_input < pos)
      if (onnx_node_set_input(n, (int)n->n_input, ""))
        return yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
    if (onnx_node_set_input(n, (int)pos, name))
      return yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
    onnx__attribute_proto__free_unpacked(at, NULL);
    memmove(&n->attribute[a], &n->attribute[a + 1], sizeof(void *) * (n->n_attribute - a - 1));
    n->n_attribute--;
    return YRT_OK;
  }
  return YRT_OK;
}

yrt_status qdq_upgrade_opset13(Onnx__ModelProto *m, yrt_error *err) {
  if (model_opset(m) >= 13) return YRT_OK;
  Onnx__GraphProto *g = m->graph;
  for (size_t i = 0; i < g->n_node; i++) {
    Onnx__NodeProto *n = g->node[i];
    yrt_status st = YRT_OK;
    if (onnx_op_id(n->op_type) == ONNX_OP_SPLIT) st = attr_to_input(m, n, "split", 1, err);
    else if (onnx_op_id(n->op_type) == ONNX_OP_SQUEEZE || onnx_op_id(n->op_type) == ONNX_OP_UNSQUEEZE)
      st = attr_to_input(m, n, "axes", 1, err);
    else if (!strncmp(n->op_type, "Reduce", 6) && strcmp(n->op_type, "ReduceSum"))
      continue; /* axes stay attributes until opset 18 */
    else if (!strcmp(n->op_type, "ReduceSum"))
      st = attr_to_input(m, n, "axes", 1, err);
    if (st) return st;
  }
  if (onnx_model_set_opset(m, 13)) return yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  return YRT_OK;
}

/* ------------------------------------------------------------------ Q/DQ insertion */

typedef struct node_list {
  Onnx__NodeProto **v;
  size_t n, cap;
} node_list;

static int push(node_list *l, Onnx__NodeProto *n) {
  if (l->n == l->cap) {
    size_t c = l->cap ? 2 * l->cap : 256;
    Onnx__NodeProto **v = realloc(l->v, sizeof(*v) * c);
    if (!v) return -1;
    l->v = v;
    l->cap = c;
  }
  l->v[l->n++] = n;
  return 0;
}

/* Appends a node to the model (onnx_model_add_node) and moves it from the graph's tail to l. */
static Onnx__NodeProto *make_node(Onnx__ModelProto *m, node_list *l, const char *op, const char *name,
                                  const char *const *in, int n_in, const char *out) {
  Onnx__NodeProto *n = onnx_model_add_node(m, op, name, in, n_in, &out, 1);
  if (!n) return NULL;
  m->graph->n_node--; /* detach: it is placed through l */
  if (push(l, n)) {
    onnx__node_proto__free_unpacked(n, NULL);
    return NULL;
  }
  return n;
}

static const qdq_act *find_act(const qdq_plan *p, const char *name) {
  for (int i = 0; i < p->n_acts; i++)
    if (!strcmp(p->acts[i].name, name)) return &p->acts[i];
  return NULL;
}

/* A node's "group" attribute (1 when absent). */
static int64_t node_group(const Onnx__NodeProto *n) {
  for (size_t i = 0; i < n->n_attribute; i++)
    if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, "group")) return n->attribute[i]->i;
  return 1;
}

static int listed(const char *const *names, const char *s) {
  for (; names && *names; names++)
    if (!strcmp(*names, s)) return 1;
  return 0;
}

static yrt_status add_scalar_qparams(Onnx__ModelProto *m, const char *base, float scale, int32_t zp,
                                     int uint8, int int16, yrt_error *err) {
  char sn[600], zn[600];
  snprintf(sn, sizeof sn, "%s_scale", base);
  snprintf(zn, sizeof zn, "%s_zero_point", base);
  if (onnx_model_find_initializer(m, sn)) return YRT_OK;
  int fail = onnx_model_add_initializer(m, sn, IR_F32, 0, NULL, &scale);
  if (int16) {
    const int16_t z = 0; /* symmetric: the runtime's YRT_I16 */
    fail |= onnx_model_add_initializer(m, zn, IR_I16, 0, NULL, &z);
  } else if (uint8) {
    uint8_t z = (uint8_t)(zp + 128);
    fail |= onnx_model_add_initializer(m, zn, IR_U8, 0, NULL, &z);
  } else {
    int8_t z = (int8_t)zp;
    fail |= onnx_model_add_initializer(m, zn, IR_I8, 0, NULL, &z);
  }
  return fail ? yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory") : YRT_OK;
}

/* Emit Q -> DQ for activation a; consumers are rewired afterwards by name. */
static yrt_status emit_qdq(Onnx__ModelProto *m, node_list *l, const qdq_act *a, int uint8, yrt_error *err) {
  yrt_status st = add_scalar_qparams(m, a->name, a->scale, a->zero_point, uint8, a->int16, err);
  if (st) return st;
  char sn[600], zn[600], qn[600], dqn[600], qo[600], dqo[600];
  snprintf(sn, sizeof sn, "%s_scale", a->name);
  snprintf(zn, sizeof zn, "%s_zero_point", a->name);
  snprintf(qn, sizeof qn, "%s_QuantizeLinear", a->name);
  snprintf(dqn, sizeof dqn, "%s_DequantizeLinear", a->name);
  snprintf(qo, sizeof qo, "%s_QuantizeLinear_Output", a->name);
  snprintf(dqo, sizeof dqo, "%s_DequantizeLinear_Output", a->name);
  const char *qin[3] = {a->name, sn, zn}, *dqin[3] = {qo, sn, zn};
  if (!make_node(m, l, "QuantizeLinear", qn, qin, 3, qo) ||
      !make_node(m, l, "DequantizeLinear", dqn, dqin, 3, dqo))
    return yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  return YRT_OK;
}

/* Quantize conv weights per output channel (symmetric int8) and bias (int32, s_x*s_w). The
 * output channel is weight axis `axis`: 0 for Conv [co, ci, kh, kw], 1 for ConvTranspose
 * [ci, co, kh, kw] (group 1; onnxruntime's per-channel form of its weights). */
static yrt_status quantize_conv(Onnx__ModelProto *m, node_list *l, Onnx__NodeProto *conv, float s_x,
                                weight_scale_kind wkind, int axis, yrt_error *err) {
  float *w = NULL, *b = NULL;
  int rank, brank;
  int64_t dims[IR_MAX_RANK], bdims[IR_MAX_RANK];
  size_t nw, nb = 0;
  yrt_status st = init_f32(m, conv->input[1], &w, &rank, dims, &nw, err);
  if (st) return st;
  if (rank <= axis) {
    free(w);
    return yrt_set_error(err, YRT_ERR_SHAPE, "quantize: '%s' weights of rank %d", conv->name, rank);
  }
  const int64_t cout = dims[axis];
  const size_t per = cout > 0 ? nw / (size_t)cout : 0;
  /* weight k of channel c sits at wi(c, k): axis 0 contiguous; axis 1 in runs of `inner` per
   * leading index */
  size_t inner = 1;
  for (int d = axis + 1; d < rank; d++) inner *= (size_t)dims[d];
#define WI(c, k) (axis == 0 ? (size_t)(c) * per + (k) : ((k) / inner * (size_t)cout + (size_t)(c)) * inner + (k) % inner)
  const int has_b = conv->n_input > 2 && conv->input[2][0];
  if (has_b) st = init_f32(m, conv->input[2], &b, &brank, bdims, &nb, err);
  if (!st && has_b && (int64_t)nb != cout)
    st = yrt_set_error(err, YRT_ERR_SHAPE, "quantize: Conv '%s' bias has %zu values for %lld channels",
                       conv->name, nb, (long long)cout);
  float *ws = malloc(sizeof(float) * (size_t)(cout > 0 ? cout : 1));
  float *bs = malloc(sizeof(float) * (size_t)(cout > 0 ? cout : 1));
  int8_t *wq = malloc(nw ? nw : 1), *wz = calloc((size_t)(cout > 0 ? cout : 1), 1);
  int32_t *bq = malloc(sizeof(int32_t) * (size_t)(cout > 0 ? cout : 1));
  int32_t *bz = calloc((size_t)(cout > 0 ? cout : 1), sizeof(int32_t));
  if (!st && (!ws || !bs || !wq || !wz || !bq || !bz))
    st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  float *wc = axis ? malloc(sizeof(float) * (per ? per : 1)) : NULL; /* one channel's weights gathered */
  if (!st && axis && !wc) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  if (!st) {
    for (int64_t c = 0; c < cout; c++) {
      for (size_t k = 0; wc && k < per; k++) wc[k] = w[WI(c, k)];
      ws[c] = weight_scale_pick(wkind, wc ? wc : w + c * per, per);
      /* the int32 bias (scale s_x * s_w) must leave accumulator headroom: widen s_w if not */
      if (has_b && fabsf(b[c]) / (s_x * ws[c]) > 1073741824.0f) ws[c] = fabsf(b[c]) / (s_x * 1073741824.0f);
      for (size_t k = 0; k < per; k++) {
        float q = nearbyintf(w[WI(c, k)] / ws[c]);
        wq[WI(c, k)] = (int8_t)(q < -127 ? -127 : (q > 127 ? 127 : q));
      }
      bs[c] = s_x * ws[c];
      if (has_b) {
        double q = nearbyint((double)b[c] / bs[c]);
        bq[c] = (int32_t)(q < -2147483647.0 ? -2147483647.0 : (q > 2147483647.0 ? 2147483647.0 : q));
      }
    }
    char base[512], n1[600], n2[600], n3[600], dq[600], dqo[600];
    int64_t cd[1] = {cout};
    snprintf(base, sizeof base, "%s", conv->input[1]);
    snprintf(n1, sizeof n1, "%s_quantized", base);
    snprintf(n2, sizeof n2, "%s_scale", base);
    snprintf(n3, sizeof n3, "%s_zero_point", base);
    snprintf(dq, sizeof dq, "%s_DequantizeLinear", base);
    snprintf(dqo, sizeof dqo, "%s_DequantizeLinear_Output", base);
    int fail = onnx_model_add_initializer(m, n1, IR_I8, rank, dims, wq) ||
               onnx_model_add_initializer(m, n2, IR_F32, 1, cd, ws) ||
               onnx_model_add_initializer(m, n3, IR_I8, 1, cd, wz);
    const char *din[3] = {n1, n2, n3};
    Onnx__NodeProto *d = fail ? NULL : make_node(m, l, "DequantizeLinear", dq, din, 3, dqo);
    if (!d || onnx_node_attr_int(d, "axis", axis) || onnx_node_set_input(conv, 1, dqo))
      st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
    if (!st && has_b) {
      snprintf(base, sizeof base, "%s", conv->input[2]);
      snprintf(n1, sizeof n1, "%s_quantized", base);
      snprintf(n2, sizeof n2, "%s_quantized_scale", base);
      snprintf(n3, sizeof n3, "%s_quantized_zero_point", base);
      snprintf(dq, sizeof dq, "%s_DequantizeLinear", base);
      snprintf(dqo, sizeof dqo, "%s_DequantizeLinear_Output", base);
      fail = onnx_model_add_initializer(m, n1, IR_I32, 1, cd, bq) ||
             onnx_model_add_initializer(m, n2, IR_F32, 1, cd, bs) ||
             onnx_model_add_initializer(m, n3, IR_I32, 1, cd, bz);
      d = fail ? NULL : make_node(m, l, "DequantizeLinear", dq, din, 3, dqo);
      if (!d || onnx_node_attr_int(d, "axis", 0) || onnx_node_set_input(conv, 2, dqo))
        st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
    }
  }
#undef WI
  free(wc);
  free(w);
  free(b);
  free(ws);
  free(bs);
  free(wq);
  free(wz);
  free(bq);
  free(bz);
  return st;
}

yrt_status qdq_write(Onnx__ModelProto *m, const qdq_plan *plan, yrt_error *err) {
  if (!m || !m->graph || !plan) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "qdq_write: NULL");
  yrt_status st = qdq_upgrade_opset13(m, err);
  if (st) return st;
  Onnx__GraphProto *g = m->graph;
  const size_t n_orig = g->n_node;
  Onnx__NodeProto **orig = malloc(sizeof(void *) * (n_orig ? n_orig : 1));
  if (!orig) return yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
  memcpy(orig, g->node, sizeof(void *) * n_orig);
  node_list l = {NULL, 0, 0};
  char dqo[600];

  /* graph inputs first */
  for (size_t i = 0; i < g->n_input && !st; i++) {
    const qdq_act *a = find_act(plan, g->input[i]->name);
    if (a) st = emit_qdq(m, &l, a, plan->uint8_acts, err);
  }
  for (size_t i = 0; i < n_orig && !st; i++) {
    Onnx__NodeProto *n = orig[i];
    /* rewire quantized inputs to their DequantizeLinear output */
    const char *x_in = n->n_input ? n->input[0] : NULL;
    const qdq_act *ax = x_in ? find_act(plan, x_in) : NULL;
    for (size_t j = 0; j < n->n_input && !st; j++) {
      if (!find_act(plan, n->input[j])) continue;
      snprintf(dqo, sizeof dqo, "%s_DequantizeLinear_Output", n->input[j]);
      if (onnx_node_set_input(n, (int)j, dqo)) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
    }
    /* weights are quantized when the conv runs int8: a quantized input, and the node not
     * excluded. A conv whose output stays float (only the float head reads it) still runs int8
     * arithmetic with a float output (the converter's int8 -> f32 conv): ~4x faster than a float
     * conv after a dequantize, and per-channel int8 weights cost no measurable accuracy
     * (docs/accuracy.md) */
    if (!st && onnx_op_id(n->op_type) == ONNX_OP_CONV && ax && n->n_input >= 2 && n->n_output == 1 &&
        (find_act(plan, n->output[0]) || !plan->float_out_float_weights) &&
        !listed(plan->skip_weights, n->name) && onnx_model_find_initializer(m, n->input[1]))
      st = quantize_conv(m, &l, n, ax->scale, (weight_scale_kind)plan->weight_scale, 0, err);
    /* a ConvTranspose between quantized activations (group 1): int8 weights per output channel
     * on axis 1, so the converter runs it int8 (the segment prototype's upsample) */
    if (!st && onnx_op_id(n->op_type) == ONNX_OP_CONV_TRANSPOSE && ax && n->n_input >= 2 && n->n_output == 1 &&
        find_act(plan, n->output[0]) && node_group(n) == 1 &&
        !listed(plan->skip_weights, n->name) && onnx_model_find_initializer(m, n->input[1]))
      st = quantize_conv(m, &l, n, ax->scale, (weight_scale_kind)plan->weight_scale, 1, err);
    if (!st && push(&l, n)) st = yrt_set_error(err, YRT_ERR_NOMEM, "quantize: out of memory");
    for (size_t j = 0; j < n->n_output && !st; j++) {
      const qdq_act *a = find_act(plan, n->output[j]);
      if (a) st = emit_qdq(m, &l, a, plan->uint8_acts, err);
    }
  }
  if (st) {
    /* nodes created so far are in l but not in the graph: free those not in orig */
    for (size_t i = 0; i < l.n; i++) {
      int is_orig = 0;
      for (size_t k = 0; k < n_orig && !is_orig; k++) is_orig = l.v[i] == orig[k];
      if (!is_orig) onnx__node_proto__free_unpacked(l.v[i], NULL);
    }
    free(l.v);
    free(orig);
    return st;
  }
  free(g->node);
  g->node = l.v;
  g->n_node = l.n;
  free(orig);
  /* drop float initializers no longer used (the quantized weights replaced them) */
  for (size_t i = 0; i < g->n_initializer;) {
    if (!name_used_as_input(m, g->initializer[i]->name, NULL)) {
      char nm[600];
      snprintf(nm, sizeof nm, "%s", g->initializer[i]->name);
      onnx_model_remove_initializer(m, nm);
    } else {
      i++;
    }
  }
  /* value_info of the float tensors stays valid; nothing else to fix */
  return YRT_OK;
}
