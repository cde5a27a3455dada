/* rel_models.c — see rel_models.h. Weights are deterministic (no RNG state), so every build
 * produces the same bytes. */
#include "rel_models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "onnx_write.h"

typedef struct mb {
  Onnx__ModelProto *m;
  int quant; /* 1: wrap activations in Q/DQ, weights int8 per-channel; 2: onnxruntime quantize_dynamic
               (DynamicQuantizeLinear + ConvInteger, uint8 weights per channel, activations float) */
  int fail;
  unsigned seed;
} mb;

static float det_weight(mb *b) {
  b->seed = b->seed * 1103515245u + 12345u;
  return (float)((int)((b->seed >> 16) % 201) - 100) / 400.0f;
}

static void add_init(mb *b, const char *name, ir_dtype t, int rank, const int64_t *dims, const void *data) {
  if (onnx_model_add_initializer(b->m, name, t, rank, dims, data) != 0) b->fail = 1;
}

static Onnx__NodeProto *node(mb *b, const char *op, const char *name, const char *const *in, int n_in,
                             const char *const *out, int n_out) {
  Onnx__NodeProto *n = onnx_model_add_node(b->m, op, name, in, n_in, out, n_out);
  if (!n) b->fail = 1;
  return n;
}

/* Activation `t` quantized with (scale, zp): Q -> DQ, returns the dequantized name in out.
 * In float mode out = t. */
static void qdq(mb *b, const char *t, float scale, int zp, char *out, size_t cap) {
  if (b->quant != 1) {
    snprintf(out, cap, "%s", t);
    return;
  }
  char s[96], z[96], q[96], nq[96], ndq[96];
  snprintf(s, sizeof s, "%s_scale", t);
  snprintf(z, sizeof z, "%s_zp", t);
  snprintf(q, sizeof q, "%s_q", t);
  snprintf(out, cap, "%s_dq", t);
  snprintf(nq, sizeof nq, "%s_QuantizeLinear", t);
  snprintf(ndq, sizeof ndq, "%s_DequantizeLinear", t);
  int8_t zp8 = (int8_t)zp;
  add_init(b, s, IR_F32, 0, NULL, &scale);
  add_init(b, z, IR_I8, 0, NULL, &zp8);
  const char *qi[3] = {t, s, z}, *di[3] = {q, s, z}, *qo[1] = {q}, *dout[1] = {out};
  node(b, "QuantizeLinear", nq, qi, 3, qo, 1);
  node(b, "DequantizeLinear", ndq, di, 3, dout, 1);
}

/* Conv (+ SiLU when silu) from `x` (dequantized name, scale sx) to activation `y`. Returns in
 * yout the name consumers use and in *sy its scale. */
static void conv(mb *b, const char *name, const char *x, float sx, int cin, int cout, int k, int stride, int group,
                 int silu, char *yout, size_t cap, float *sy) {
  const int kin = cin / group, nw = cout * kin * k * k;
  float *w = malloc(sizeof(float) * (size_t)nw), bias[64], ws[64];
  int8_t *wq = malloc((size_t)nw), wz[64];
  int32_t bq[64], bz[64];
  if (!w || !wq || cout > 64) {
    b->fail = 1;
    free(w);
    free(wq);
    snprintf(yout, cap, "%s", x);
    return;
  }
  for (int i = 0; i < nw; i++) w[i] = det_weight(b);
  for (int c = 0; c < cout; c++) bias[c] = det_weight(b);
  char wn[96], bn[96], y[96], sg[96], a[96], ys[96];
  snprintf(wn, sizeof wn, "%s.weight", name);
  snprintf(bn, sizeof bn, "%s.bias", name);
  snprintf(y, sizeof y, "%s_out", name);
  const int64_t wd[4] = {cout, kin, k, k}, bd[1] = {cout};
  char win[128], bin[128];
  if (b->quant == 2) { /* quantize_dynamic: the chain recover_integer_ops.c turns back into a Conv */
    uint8_t *wu = (uint8_t *)wq, wz8[64];
    for (int c = 0; c < cout; c++) {
      float mx = 1e-6f;
      for (int i = 0; i < nw / cout; i++) mx = fmaxf(mx, fabsf(w[c * (nw / cout) + i]));
      ws[c] = mx / 127.0f;
      wz8[c] = (uint8_t)(128 + c % 3); /* asymmetric, as onnxruntime's uint8 weights */
      for (int i = 0; i < nw / cout; i++)
        wu[c * (nw / cout) + i] = (uint8_t)(lrintf(w[c * (nw / cout) + i] / ws[c]) + wz8[c]);
    }
    char q[128], sc[128], zp[128], wzn[128], wsn[128], s2[128], cin_[128], cf[128], cs[128], nn[128];
    snprintf(q, sizeof q, "%s_xq", name), snprintf(sc, sizeof sc, "%s_xs", name), snprintf(zp, sizeof zp, "%s_xz", name);
    snprintf(wzn, sizeof wzn, "%s_wz", wn), snprintf(wsn, sizeof wsn, "%s_ws", wn);
    snprintf(s2, sizeof s2, "%s_s", name), snprintf(cin_, sizeof cin_, "%s_ci", name);
    snprintf(cf, sizeof cf, "%s_cf", name), snprintf(cs, sizeof cs, "%s_cs", name);
    const int64_t b4[4] = {1, cout, 1, 1};
    add_init(b, wn, IR_U8, 4, wd, wu);
    add_init(b, wzn, IR_U8, 1, bd, wz8);
    add_init(b, wsn, IR_F32, 1, bd, ws);
    add_init(b, bn, IR_F32, 4, b4, bias);
    const char *dqi[1] = {x}, *dqo[3] = {q, sc, zp}, *mi[2] = {sc, wsn}, *mo[1] = {s2}, *ii[4] = {q, wn, zp, wzn},
               *io[1] = {cin_}, *ki[1] = {cin_}, *ko[1] = {cf}, *si[2] = {cf, s2}, *so[1] = {cs}, *ai[2] = {cs, bn},
               *ao[1] = {y};
    snprintf(nn, sizeof nn, "%s_DynamicQuantizeLinear", name);
    node(b, "DynamicQuantizeLinear", nn, dqi, 1, dqo, 3);
    snprintf(nn, sizeof nn, "%s_scale_Mul", name);
    node(b, "Mul", nn, mi, 2, mo, 1);
    Onnx__NodeProto *n = node(b, "ConvInteger", name, ii, 4, io, 1);
    const int64_t ks[2] = {k, k}, st[2] = {stride, stride}, pd[4] = {k / 2, k / 2, k / 2, k / 2};
    if (n && (onnx_node_attr_ints(n, "kernel_shape", ks, 2) || onnx_node_attr_ints(n, "strides", st, 2) ||
              onnx_node_attr_ints(n, "pads", pd, 4) || onnx_node_attr_int(n, "group", group)))
      b->fail = 1;
    snprintf(nn, sizeof nn, "%s_Cast", name);
    n = node(b, "Cast", nn, ki, 1, ko, 1);
    if (n && onnx_node_attr_int(n, "to", 1)) b->fail = 1;
    snprintf(nn, sizeof nn, "%s_output_Mul", name);
    node(b, "Mul", nn, si, 2, so, 1);
    snprintf(nn, sizeof nn, "%s_bias_Add", name);
    node(b, "Add", nn, ai, 2, ao, 1);
    snprintf(win, sizeof win, "%s", wn); /* unused below */
    snprintf(bin, sizeof bin, "%s", bn);
  } else if (b->quant) {
    for (int c = 0; c < cout; c++) {
      float mx = 1e-6f;
      for (int i = 0; i < nw / cout; i++) mx = fmaxf(mx, fabsf(w[c * (nw / cout) + i]));
      ws[c] = mx / 127.0f;
      for (int i = 0; i < nw / cout; i++) wq[c * (nw / cout) + i] = (int8_t)lrintf(w[c * (nw / cout) + i] / ws[c]);
      wz[c] = 0;
      bz[c] = 0;
      bq[c] = (int32_t)lrintf(bias[c] / (sx * ws[c]));
    }
    char s[128], z[128], nd[128];
    snprintf(s, sizeof s, "%s_scale", wn);
    snprintf(z, sizeof z, "%s_zp", wn);
    snprintf(win, sizeof win, "%s_dq", wn);
    snprintf(nd, sizeof nd, "%s_DequantizeLinear", wn);
    add_init(b, wn, IR_I8, 4, wd, wq);
    add_init(b, s, IR_F32, 1, bd, ws);
    add_init(b, z, IR_I8, 1, bd, wz);
    const char *di[3] = {wn, s, z}, *dout[1] = {win};
    Onnx__NodeProto *n = node(b, "DequantizeLinear", nd, di, 3, dout, 1);
    if (n && onnx_node_attr_int(n, "axis", 0)) b->fail = 1;
    float bs[64];
    for (int c = 0; c < cout; c++) bs[c] = sx * ws[c];
    snprintf(s, sizeof s, "%s_scale", bn);
    snprintf(z, sizeof z, "%s_zp", bn);
    snprintf(bin, sizeof bin, "%s_dq", bn);
    snprintf(nd, sizeof nd, "%s_DequantizeLinear", bn);
    add_init(b, bn, IR_I32, 1, bd, bq);
    add_init(b, s, IR_F32, 1, bd, bs);
    add_init(b, z, IR_I32, 1, bd, bz);
    const char *bi[3] = {bn, s, z}, *bo[1] = {bin};
    n = node(b, "DequantizeLinear", nd, bi, 3, bo, 1);
    if (n && onnx_node_attr_int(n, "axis", 0)) b->fail = 1;
  } else {
    add_init(b, wn, IR_F32, 4, wd, w);
    add_init(b, bn, IR_F32, 1, bd, bias);
    snprintf(win, sizeof win, "%s", wn);
    snprintf(bin, sizeof bin, "%s", bn);
  }
  free(w);
  free(wq);
  if (b->quant != 2) {
    const char *ci[3] = {x, win, bin}, *co[1] = {y};
    Onnx__NodeProto *n = node(b, "Conv", name, ci, 3, co, 1);
    const int64_t ks[2] = {k, k}, st[2] = {stride, stride}, pd[4] = {k / 2, k / 2, k / 2, k / 2};
    if (n && (onnx_node_attr_ints(n, "kernel_shape", ks, 2) || onnx_node_attr_ints(n, "strides", st, 2) ||
              onnx_node_attr_ints(n, "pads", pd, 4) || onnx_node_attr_int(n, "group", group)))
      b->fail = 1;
  }
  const float s_conv = 0.06f;
  qdq(b, y, s_conv, 3, ys, sizeof ys);
  if (!silu) {
    snprintf(yout, cap, "%s", ys);
    *sy = s_conv;
    return;
  }
  char sgn[96], mn[96], sgq[96];
  snprintf(sg, sizeof sg, "%s_sig", name);
  snprintf(a, sizeof a, "%s_act", name);
  snprintf(sgn, sizeof sgn, "%s_Sigmoid", name);
  snprintf(mn, sizeof mn, "%s_Mul", name);
  const char *si[1] = {ys}, *so[1] = {sg};
  node(b, "Sigmoid", sgn, si, 1, so, 1);
  qdq(b, sg, 1.0f / 255.0f, -128, sgq, sizeof sgq);
  const char *mi[2] = {ys, sgq}, *mo[1] = {a};
  node(b, "Mul", mn, mi, 2, mo, 1);
  *sy = 0.05f;
  qdq(b, a, *sy, -2, yout, cap);
}

static Onnx__ModelProto *build_yolo(int quant, int cin, int *fail) {
  mb b = {onnx_model_new(13), quant, 0, 7u};
  if (!b.m) return NULL;
  const int64_t xd[4] = {1, cin, 16, 16}, od[3] = {1, 6, 64};
  if (onnx_model_add_input(b.m, "images", IR_F32, 4, xd) || onnx_model_set_metadata(b.m, "names", "{0: 'cat', 1: 'dog'}"))
    b.fail = 1;
  char x[96], a1[96], p1[96], p1q[96], cat[96], catq[96], a2[96], up[96], upq[96], a3[96], r[96], rq[96], h[96];
  float s1, s2, s3, sh;
  qdq(&b, "images", 1.0f / 255.0f, -128, x, sizeof x);
  conv(&b, "stem", x, 1.0f / 255.0f, cin, 8, 3, 2, 1, 1, a1, sizeof a1, &s1);
  /* MaxPool 3x3 s1 p1 (SPPF style) */
  {
    const char *i[1] = {a1}, *o[1] = {"pool_out"};
    Onnx__NodeProto *n = node(&b, "MaxPool", "pool", i, 1, o, 1);
    const int64_t ks[2] = {3, 3}, st[2] = {1, 1}, pd[4] = {1, 1, 1, 1};
    if (n && (onnx_node_attr_ints(n, "kernel_shape", ks, 2) || onnx_node_attr_ints(n, "strides", st, 2) ||
              onnx_node_attr_ints(n, "pads", pd, 4)))
      b.fail = 1;
    snprintf(p1, sizeof p1, "pool_out");
    qdq(&b, p1, s1, -2, p1q, sizeof p1q);
  }
  {
    const char *i[2] = {a1, p1q}, *o[1] = {"cat_out"};
    Onnx__NodeProto *n = node(&b, "Concat", "cat", i, 2, o, 1);
    if (n && onnx_node_attr_int(n, "axis", 1)) b.fail = 1;
    snprintf(cat, sizeof cat, "cat_out");
    qdq(&b, cat, s1, -2, catq, sizeof catq);
  }
  conv(&b, "mix", catq, s1, 16, 8, 1, 1, 1, 1, a2, sizeof a2, &s2);
  {
    const float sc[4] = {1, 1, 2, 2};
    const int64_t d4[1] = {4};
    add_init(&b, "up_scales", IR_F32, 1, d4, sc);
    const char *i[3] = {a2, "", "up_scales"}, *o[1] = {"up_out"};
    Onnx__NodeProto *n = node(&b, "Resize", "up", i, 3, o, 1);
    if (n && (onnx_node_attr_string(n, "mode", "nearest") ||
              onnx_node_attr_string(n, "coordinate_transformation_mode", "asymmetric") ||
              onnx_node_attr_string(n, "nearest_mode", "floor")))
      b.fail = 1;
    snprintf(up, sizeof up, "up_out");
    qdq(&b, up, s2, -2, upq, sizeof upq);
  }
  conv(&b, "down", upq, s2, 8, 8, 3, 2, 8, 1, a3, sizeof a3, &s3); /* depthwise, stride 2 */
  {
    const char *i[2] = {a3, a2}, *o[1] = {"res_out"};
    node(&b, "Add", "res", i, 2, o, 1);
    snprintf(r, sizeof r, "res_out");
    qdq(&b, r, 0.08f, 0, rq, sizeof rq);
  }
  conv(&b, "head", rq, 0.08f, 8, 6, 1, 1, 1, 0, h, sizeof h, &sh);
  /* Detection head in float: Reshape -> Split(box, cls) -> Sigmoid(cls), box * 2 -> Concat. */
  {
    const int64_t sd[1] = {3}, shape[3] = {1, 6, 64}, spd[1] = {2}, split[2] = {4, 2};
    const float two = 2.0f;
    add_init(&b, "head_shape", IR_I64, 1, sd, shape);
    add_init(&b, "head_split", IR_I64, 1, spd, split);
    add_init(&b, "two", IR_F32, 0, NULL, &two);
    const char *ri[2] = {h, "head_shape"}, *ro[1] = {"flat"};
    node(&b, "Reshape", "flatten", ri, 2, ro, 1);
    const char *si[2] = {"flat", "head_split"}, *so[2] = {"box", "cls"};
    Onnx__NodeProto *n = node(&b, "Split", "split", si, 2, so, 2);
    if (n && onnx_node_attr_int(n, "axis", 1)) b.fail = 1;
    const char *gi[1] = {"cls"}, *go[1] = {"score"};
    node(&b, "Sigmoid", "score_sigmoid", gi, 1, go, 1);
    const char *mi[2] = {"box", "two"}, *mo[1] = {"box2"};
    node(&b, "Mul", "box_mul", mi, 2, mo, 1);
    const char *ci[2] = {"box2", "score"}, *co[1] = {"output0"};
    n = node(&b, "Concat", "out_cat", ci, 2, co, 1);
    if (n && onnx_node_attr_int(n, "axis", 1)) b.fail = 1;
  }
  if (onnx_model_add_output(b.m, "output0", IR_F32, 3, od)) b.fail = 1;
  *fail = b.fail;
  return b.m;
}

static Onnx__ModelProto *build_misc(int *fail) {
  mb b = {onnx_model_new(13), 0, 0, 11u};
  if (!b.m) return NULL;
  const int64_t xd[3] = {1, 4, 6}, wd[2] = {4, 5}, bd[1] = {5}, gd[1] = {2};
  float w[20], bias[5];
  for (int i = 0; i < 20; i++) w[i] = det_weight(&b);
  for (int i = 0; i < 5; i++) bias[i] = det_weight(&b);
  const int64_t gi[2] = {0, 3}, one[1] = {1}, st[1] = {1}, en[1] = {5};
  const float half = 0.5f;
  if (onnx_model_add_input(b.m, "x", IR_F32, 3, xd)) b.fail = 1;
  add_init(&b, "W", IR_F32, 2, wd, w);
  add_init(&b, "B", IR_F32, 1, bd, bias);
  add_init(&b, "gidx", IR_I64, 1, gd, gi);
  add_init(&b, "starts", IR_I64, 1, one, st);
  add_init(&b, "ends", IR_I64, 1, one, en);
  add_init(&b, "axes", IR_I64, 1, one, one);
  add_init(&b, "half", IR_F32, 0, NULL, &half);
  {
    const char *i[1] = {"x"}, *o[1] = {"xt"};
    Onnx__NodeProto *n = node(&b, "Transpose", "tr", i, 1, o, 1);
    const int64_t perm[3] = {0, 2, 1};
    if (n && onnx_node_attr_ints(n, "perm", perm, 3)) b.fail = 1;
  }
  {
    const char *i[2] = {"xt", "W"}, *o[1] = {"mm"};
    node(&b, "MatMul", "matmul", i, 2, o, 1);
  }
  {
    const char *i[2] = {"mm", "B"}, *o[1] = {"mmb"};
    node(&b, "Add", "addb", i, 2, o, 1);
  }
  {
    const char *i[1] = {"mmb"}, *o[1] = {"th"};
    node(&b, "Tanh", "tanh", i, 1, o, 1);
  }
  {
    const char *i[2] = {"th", "half"}, *o[1] = {"dv"};
    node(&b, "Div", "div", i, 2, o, 1);
  }
  {
    const char *i[1] = {"dv"}, *o[1] = {"sm"};
    Onnx__NodeProto *n = node(&b, "Softmax", "softmax", i, 1, o, 1);
    if (n && onnx_node_attr_int(n, "axis", -1)) b.fail = 1;
  }
  {
    const char *i[2] = {"sm", "gidx"}, *o[1] = {"gathered"};
    Onnx__NodeProto *n = node(&b, "Gather", "gather", i, 2, o, 1);
    if (n && onnx_node_attr_int(n, "axis", 2)) b.fail = 1;
  }
  {
    const char *i[4] = {"sm", "starts", "ends", "axes"}, *o[1] = {"sliced"};
    node(&b, "Slice", "slice", i, 4, o, 1);
  }
  {
    const char *i[2] = {"sliced", "half"}, *o[1] = {"sub"};
    node(&b, "Sub", "subh", i, 2, o, 1);
  }
  const int64_t god[3] = {1, 6, 2}, sod[3] = {1, 4, 5};
  if (onnx_model_add_output(b.m, "gathered", IR_F32, 3, god) || onnx_model_add_output(b.m, "sub", IR_F32, 3, sod))
    b.fail = 1;
  *fail = b.fail;
  return b.m;
}

const char *rel_model_name(rel_model_kind k) {
  switch (k) {
    case REL_MODEL_F32_YOLO: return "f32_yolo";
    case REL_MODEL_QDQ_YOLO: return "qdq_yolo";
    case REL_MODEL_F32_MISC: return "f32_misc";
    case REL_MODEL_F32_YOLO_1CH: return "f32_yolo_1ch";
    case REL_MODEL_F32_YOLO_4CH: return "f32_yolo_4ch";
    case REL_MODEL_DYNQ_YOLO: return "dynq_yolo";
    default: return "?";
  }
}

yrt_status rel_model_onnx(rel_model_kind k, uint8_t **bytes, size_t *size, yrt_error *err) {
  int fail = 0;
  Onnx__ModelProto *m = NULL;
  if (k == REL_MODEL_F32_YOLO || k == REL_MODEL_QDQ_YOLO) m = build_yolo(k == REL_MODEL_QDQ_YOLO, 3, &fail);
  else if (k == REL_MODEL_DYNQ_YOLO) m = build_yolo(2, 3, &fail);
  else if (k == REL_MODEL_F32_YOLO_1CH || k == REL_MODEL_F32_YOLO_4CH)
    m = build_yolo(0, k == REL_MODEL_F32_YOLO_1CH ? 1 : 4, &fail);
  else if (k == REL_MODEL_F32_MISC) m = build_misc(&fail);
  else return yrt_set_error(err, YRT_ERR_INVALID_ARG, "rel_model_onnx: model %d", (int)k);
  if (!m || fail) {
    onnx_model_free(m);
    return yrt_set_error(err, YRT_ERR_NOMEM, "rel_model_onnx: building %s failed", rel_model_name(k));
  }
  yrt_status st = onnx_model_pack(m, bytes, size, err);
  onnx_model_free(m);
  return st;
}

yrt_status rel_model_yrt(rel_model_kind k, void **yrt, size_t *size, yrt_error *err) {
  uint8_t *bytes = NULL;
  size_t n = 0;
  yrt_status st = rel_model_onnx(k, &bytes, &n, err);
  if (st != YRT_OK) return st;
  ir_graph *g = NULL;
  st = onnx_read_memory(bytes, n, &g, err);
  free(bytes);
  if (st != YRT_OK) return st;
  yrt_convert_options o = {0};
  o.source = rel_model_name(k);
  st = yrt_convert_graph(g, &o, yrt, size, NULL, err);
  ir_graph_free(g);
  return st;
}
