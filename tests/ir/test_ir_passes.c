/* test_ir_passes — folding, shape inference, BatchNorm folding, QDQ annotation and the FP32
 * region on tiny models built in memory with onnx_write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "convert.h"
#include "ir.h"
#include "ir_passes.h"
#include "ir_test_util.h"
#include "onnx_write.h"

#define N(m, op, name, ...) add_node((m), (op), (name), __VA_ARGS__)

/* add_node(m, op, name, "in1,in2", "out1,out2") */
static Onnx__NodeProto *add_node(Onnx__ModelProto *m, const char *op, const char *name,
                                 const char *ins, const char *outs) {
  char buf[2][512];
  const char *v[2][16];
  int c[2] = {0, 0};
  const char *src[2] = {ins, outs};
  for (int k = 0; k < 2; k++) {
    snprintf(buf[k], sizeof(buf[k]), "%s", src[k]);
    char *p = buf[k];
    if (!*p) continue;
    v[k][c[k]++] = p;
    for (; *p; p++)
      if (*p == ',') { *p = 0; v[k][c[k]++] = p + 1; }
  }
  Onnx__NodeProto *n = onnx_model_add_node(m, op, name, v[0], c[0], v[1], c[1]);
  assert_non_null(n);
  return n;
}

static ir_graph *build(Onnx__ModelProto *m, int infer) {
  ir_graph *g = NULL;
  yrt_error err = {{0}};
  if (tu_to_graph(m, &g, &err)) fail_msg("read: %s", err.msg);
  if (infer && (ir_fold_constants(g, &err) || ir_infer_shapes(g, &err))) fail_msg("infer: %s", err.msg);
  return g;
}

static void expect_shape(const ir_graph *g, const char *name, int rank, const int64_t *dims) {
  int t = ir_find_tensor(g, name);
  if (t < 0) fail_msg("no tensor %s", name);
  const ir_tensor *x = &g->tensors[t];
  if (x->rank != rank) fail_msg("%s: rank %d, expected %d", name, x->rank, rank);
  for (int i = 0; i < rank; i++)
    if (x->dims[i] != dims[i])
      fail_msg("%s: dim %d is %lld, expected %lld", name, i, (long long)x->dims[i], (long long)dims[i]);
}
#define SHAPE(g, name, ...) \
  expect_shape(g, name, (int)(sizeof((int64_t[]){__VA_ARGS__}) / 8), (int64_t[]){__VA_ARGS__})

/* The node that writes tensor `name`. */
static const ir_node *producer_of(const ir_graph *g, const char *name) {
  int t = ir_find_tensor(g, name);
  if (t < 0 || g->tensors[t].producer < 0) fail_msg("no producer of %s", name);
  return &g->nodes[g->tensors[t].producer];
}

/* Shape -> Gather -> Unsqueeze -> Concat -> Reshape, the classic dynamic-reshape chain. */
static void test_fold_shape_chain(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 8, 4, 5});
  onnx_model_add_initializer(m, "idx0", IR_I64, 0, NULL, (int64_t[]){0});
  onnx_model_add_initializer(m, "idx1", IR_I64, 0, NULL, (int64_t[]){1});
  onnx_model_add_initializer(m, "ax0", IR_I64, 1, (int64_t[]){1}, (int64_t[]){0});
  onnx_model_add_initializer(m, "minus1", IR_I64, 1, (int64_t[]){1}, (int64_t[]){-1});
  onnx_model_add_initializer(m, "two", IR_I64, 0, NULL, (int64_t[]){2});
  N(m, "Relu", "relu", "x", "r");
  N(m, "Shape", "shape", "r", "s");
  N(m, "Gather", "g0", "s,idx0", "b");
  N(m, "Gather", "g1", "s,idx1", "c");
  N(m, "Div", "half", "c,two", "c2");
  N(m, "Unsqueeze", "u0", "b,ax0", "bu");
  N(m, "Unsqueeze", "u1", "c2,ax0", "cu");
  Onnx__NodeProto *cat = N(m, "Concat", "cat", "bu,cu,minus1", "shp");
  onnx_node_attr_int(cat, "axis", 0);
  N(m, "Reshape", "reshape", "r,shp", "y");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  ir_graph *g = build(m, 1);
  SHAPE(g, "y", 1, 4, 40);
  const ir_tensor *s = &g->tensors[ir_find_tensor(g, "shp")];
  assert_non_null(s->data);
  assert_int_equal(ir_const_i64(s, 1), 4);
  assert_int_equal(ir_const_i64(s, 2), -1);
  int live = 0;
  for (int i = 0; i < g->n_nodes; i++) live += !g->nodes[i].dead;
  assert_int_equal(live, 2); /* Relu + Reshape */
  yrt_error err;
  assert_int_equal(ir_compact(g, &err), YRT_OK);
  assert_int_equal(g->n_nodes, 2);
  ir_graph_free(g);
}

static void test_fold_arith_slice_transpose(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  float a[6] = {1, 2, 3, 4, 5, 6};
  onnx_model_add_initializer(m, "a", IR_F32, 2, (int64_t[]){2, 3}, a);
  onnx_model_add_initializer(m, "b", IR_F32, 1, (int64_t[]){3}, (float[]){10, 20, 30});
  onnx_model_add_initializer(m, "st", IR_I64, 1, (int64_t[]){1}, (int64_t[]){-1});
  onnx_model_add_initializer(m, "en", IR_I64, 1, (int64_t[]){1}, (int64_t[]){INT64_MIN});
  onnx_model_add_initializer(m, "ax", IR_I64, 1, (int64_t[]){1}, (int64_t[]){1});
  onnx_model_add_initializer(m, "sp", IR_I64, 1, (int64_t[]){1}, (int64_t[]){-2});
  N(m, "Mul", "mul", "a,b", "ab");              /* broadcast [2,3]*[3] */
  N(m, "Slice", "slice", "ab,st,en,ax,sp", "sl"); /* columns 2,0 */
  Onnx__NodeProto *t = N(m, "Transpose", "tr", "sl", "tt");
  onnx_node_attr_ints(t, "perm", (int64_t[]){1, 0}, 2);
  onnx_model_add_output(m, "tt", IR_F32, -1, NULL);
  ir_graph *g = build(m, 0);
  yrt_error err;
  assert_int_equal(ir_fold_constants(g, &err), YRT_OK);
  const ir_tensor *x = &g->tensors[ir_find_tensor(g, "tt")];
  assert_non_null(x->data);
  SHAPE(g, "tt", 2, 2);
  /* ab = [[10,40,90],[40,100,180]]; sl = [[90,10],[180,40]]; tt = [[90,180],[10,40]] */
  assert_true(ir_const_f64(x, 0) == 90 && ir_const_f64(x, 1) == 180);
  assert_true(ir_const_f64(x, 2) == 10 && ir_const_f64(x, 3) == 40);
  ir_graph_free(g);
}

/* Convolutional trunk covering most ops' shape rules. */
static void test_shapes_ops(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 4, 10, 10});
  float w[8 * 4 * 9] = {0};
  onnx_model_add_initializer(m, "w", IR_F32, 4, (int64_t[]){8, 4, 3, 3}, w);
  onnx_model_add_initializer(m, "wd", IR_F32, 4, (int64_t[]){8, 1, 3, 3}, w);
  onnx_model_add_initializer(m, "bias", IR_F32, 1, (int64_t[]){8}, w);
  onnx_model_add_initializer(m, "split", IR_I64, 1, (int64_t[]){2}, (int64_t[]){3, 5});
  onnx_model_add_initializer(m, "scales", IR_F32, 1, (int64_t[]){4}, (float[]){1, 1, 2, 2});
  onnx_model_add_initializer(m, "roi", IR_F32, 1, (int64_t[]){0}, NULL);
  onnx_model_add_initializer(m, "shape3", IR_I64, 1, (int64_t[]){3}, (int64_t[]){0, 8, -1});
  onnx_model_add_initializer(m, "ind", IR_I64, 1, (int64_t[]){2}, (int64_t[]){0, -1});
  onnx_model_add_initializer(m, "axes0", IR_I64, 1, (int64_t[]){1}, (int64_t[]){0});
  Onnx__NodeProto *c = N(m, "Conv", "conv", "x,w,bias", "c");
  onnx_node_attr_ints(c, "pads", (int64_t[]){1, 1, 1, 1}, 4);
  onnx_node_attr_ints(c, "strides", (int64_t[]){2, 2}, 2);
  c = N(m, "Conv", "dw", "c,wd", "d"); /* depthwise, auto_pad SAME_UPPER */
  onnx_node_attr_int(c, "group", 8);
  onnx_node_attr_string(c, "auto_pad", "SAME_UPPER");
  Onnx__NodeProto *p = N(m, "MaxPool", "pool", "d", "p");
  onnx_node_attr_ints(p, "kernel_shape", (int64_t[]){2, 2}, 2);
  onnx_node_attr_ints(p, "strides", (int64_t[]){2, 2}, 2);
  onnx_node_attr_int(p, "ceil_mode", 1);
  Onnx__NodeProto *s = N(m, "Split", "split", "p,split", "s0,s1");
  onnx_node_attr_int(s, "axis", 1);
  N(m, "Resize", "resize", "s1,roi,scales", "rs");
  Onnx__NodeProto *cat = N(m, "Concat", "cat", "rs,rs", "cc");
  onnx_node_attr_int(cat, "axis", -3);
  N(m, "Sigmoid", "sig", "cc", "sg");
  N(m, "Reshape", "reshape", "sg,shape3", "r3");
  Onnx__NodeProto *tr = N(m, "Transpose", "tr", "r3", "t3");
  onnx_node_attr_ints(tr, "perm", (int64_t[]){0, 2, 1}, 3);
  N(m, "MatMul", "mm", "t3,r3", "mm");
  Onnx__NodeProto *sm = N(m, "Softmax", "sm", "mm", "smo");
  onnx_node_attr_int(sm, "axis", -1);
  Onnx__NodeProto *ga = N(m, "Gather", "gather", "smo,ind", "ga");
  onnx_node_attr_int(ga, "axis", 1);
  N(m, "Unsqueeze", "unsq", "ga,axes0", "un");
  N(m, "Squeeze", "sq", "un,axes0", "sq");
  N(m, "Flatten", "flat", "sq", "fl");
  N(m, "GlobalAveragePool", "gap", "s0", "gp");
  Onnx__NodeProto *ca = N(m, "Cast", "cast", "gp", "ci");
  onnx_node_attr_int(ca, "to", IR_I64);
  onnx_model_add_output(m, "fl", IR_F32, -1, NULL);
  onnx_model_add_output(m, "ci", IR_F32, -1, NULL);
  ir_graph *g = build(m, 1);
  SHAPE(g, "c", 1, 8, 5, 5);
  SHAPE(g, "d", 1, 8, 5, 5);
  SHAPE(g, "p", 1, 8, 3, 3); /* ceil_mode */
  SHAPE(g, "s0", 1, 3, 3, 3);
  SHAPE(g, "s1", 1, 5, 3, 3);
  SHAPE(g, "rs", 1, 5, 6, 6);
  SHAPE(g, "cc", 1, 10, 6, 6);
  SHAPE(g, "r3", 1, 8, 45);
  SHAPE(g, "t3", 1, 45, 8);
  SHAPE(g, "mm", 1, 45, 45);
  SHAPE(g, "ga", 1, 2, 45);
  SHAPE(g, "un", 1, 1, 2, 45);
  SHAPE(g, "sq", 1, 2, 45);
  SHAPE(g, "fl", 1, 90);
  SHAPE(g, "gp", 1, 3, 1, 1);
  assert_int_equal(g->tensors[ir_find_tensor(g, "ci")].dtype, IR_I64);
  /* normalised attributes for the lowering */
  const ir_node *dw = &g->nodes[g->tensors[ir_find_tensor(g, "d")].producer];
  const ir_attr *pads = ir_attr_get(dw, "pads");
  assert_int_equal(pads->n_ints, 4);
  assert_int_equal(pads[0].ints[0], 1);
  assert_string_equal(ir_attr_string(dw, "auto_pad", ""), "NOTSET");
  const ir_node *sp = &g->nodes[g->tensors[ir_find_tensor(g, "s0")].producer];
  assert_int_equal(ir_attr_get(sp, "split")->ints[1], 5);
  const ir_node *cn = &g->nodes[g->tensors[ir_find_tensor(g, "cc")].producer];
  assert_int_equal(ir_attr_int(cn, "axis", -9), 1);
  ir_graph_free(g);
}

static void test_split_variants(void **state) {
  (void)state;
  /* opset 11: split attribute; opset 18: num_outputs with a smaller last chunk */
  Onnx__ModelProto *m = onnx_model_new(11);
  onnx_model_add_input(m, "x", IR_F32, 2, (int64_t[]){1, 7});
  Onnx__NodeProto *s = N(m, "Split", "s", "x", "a,b");
  onnx_node_attr_int(s, "axis", -1);
  onnx_node_attr_ints(s, "split", (int64_t[]){3, 4}, 2);
  N(m, "Unsqueeze", "u", "a", "ua");
  onnx_node_attr_ints(m->graph->node[1], "axes", (int64_t[]){-1}, 1);
  onnx_model_add_output(m, "b", IR_F32, -1, NULL);
  onnx_model_add_output(m, "ua", IR_F32, -1, NULL);
  ir_graph *g = build(m, 1);
  SHAPE(g, "a", 1, 3);
  SHAPE(g, "b", 1, 4);
  SHAPE(g, "ua", 1, 3, 1);
  ir_graph_free(g);
  m = onnx_model_new(18);
  onnx_model_add_input(m, "x", IR_F32, 2, (int64_t[]){1, 7});
  s = N(m, "Split", "s", "x", "a,b,c");
  onnx_node_attr_int(s, "axis", 1);
  onnx_node_attr_int(s, "num_outputs", 3);
  onnx_model_add_output(m, "c", IR_F32, -1, NULL);
  g = build(m, 1);
  SHAPE(g, "a", 1, 3);
  SHAPE(g, "c", 1, 1);
  ir_graph_free(g);
}

static void test_unsupported_op(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 2, 3, 3});
  N(m, "Relu", "ok", "x", "r");
  N(m, "NonMaxSuppression", "nms_node", "r", "y");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  ir_graph *g = build(m, 0);
  yrt_error err;
  assert_int_equal(ir_fold_constants(g, &err), YRT_OK);
  assert_int_equal(ir_infer_shapes(g, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "unsupported op 'NonMaxSuppression'"));
  assert_non_null(strstr(err.msg, "nms_node"));
  ir_graph_free(g);
  /* MaxPool with auto_pad is rejected, shape mismatch is a SHAPE error */
  m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 2, 3, 3});
  Onnx__NodeProto *p = N(m, "MaxPool", "mp", "x", "y");
  onnx_node_attr_ints(p, "kernel_shape", (int64_t[]){2, 2}, 2);
  onnx_node_attr_string(p, "auto_pad", "SAME_UPPER");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  g = build(m, 0);
  assert_int_equal(ir_infer_shapes(g, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "mp"));
  ir_graph_free(g);
  m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 2, (int64_t[]){2, 3});
  onnx_model_add_input(m, "z", IR_F32, 2, (int64_t[]){2, 4});
  N(m, "Add", "add", "x,z", "y");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  g = build(m, 0);
  assert_int_equal(ir_infer_shapes(g, &err), YRT_ERR_SHAPE);
  assert_non_null(strstr(err.msg, "add"));
  ir_graph_free(g);
}

static void test_fold_batchnorm(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 1, 2, 2});
  onnx_model_add_initializer(m, "w", IR_F32, 4, (int64_t[]){2, 1, 1, 1}, (float[]){2, 3});
  onnx_model_add_initializer(m, "b", IR_F32, 1, (int64_t[]){2}, (float[]){1, -1});
  onnx_model_add_initializer(m, "gamma", IR_F32, 1, (int64_t[]){2}, (float[]){0.5f, 2});
  onnx_model_add_initializer(m, "beta", IR_F32, 1, (int64_t[]){2}, (float[]){0.25f, 0});
  onnx_model_add_initializer(m, "mean", IR_F32, 1, (int64_t[]){2}, (float[]){1, 2});
  onnx_model_add_initializer(m, "var", IR_F32, 1, (int64_t[]){2}, (float[]){3, 15});
  N(m, "Conv", "conv", "x,w,b", "c");
  Onnx__NodeProto *bn = N(m, "BatchNormalization", "bn", "c,gamma,beta,mean,var", "y");
  onnx_node_attr_float(bn, "epsilon", 1.0f);
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  ir_graph *g = build(m, 1);
  yrt_error err;
  assert_int_equal(ir_fold_batchnorm(g, &err), YRT_OK);
  assert_int_equal(ir_compact(g, &err), YRT_OK);
  assert_int_equal(g->n_nodes, 1);
  const ir_node *c = &g->nodes[0];
  assert_true(ir_node_is(c, "Conv"));
  assert_string_equal(g->tensors[c->out[0]].name, "y");
  const ir_tensor *w = &g->tensors[c->in[1]], *b = &g->tensors[c->in[2]];
  /* k = gamma/sqrt(var+1) = 0.25, 0.5 */
  assert_true(fabs(ir_const_f64(w, 0) - 0.5) < 1e-6 && fabs(ir_const_f64(w, 1) - 1.5) < 1e-6);
  assert_true(fabs(ir_const_f64(b, 0) - 0.25) < 1e-6);  /* (1-1)*0.25+0.25 */
  assert_true(fabs(ir_const_f64(b, 1) + 1.5) < 1e-6);   /* (-1-2)*0.5+0 */
  /* the original weight is untouched (it might be shared) */
  assert_int_equal(ir_find_tensor(g, "w"), -1); /* compacted away: nothing reads it */
  ir_graph_free(g);
}

/* x -Q/DQ-> conv(DQ(w int8 per-channel), DQ(bias int32)) -> Q/DQ (uint8) -> y */
static Onnx__ModelProto *qdq_model(int mismatch, int scale_as_constant) {
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "images", IR_F32, 4, (int64_t[]){1, 1, 2, 2});
  onnx_model_add_initializer(m, "xs", IR_F32, 0, NULL, (float[]){0.5f});
  onnx_model_add_initializer(m, "xz", IR_U8, 0, NULL, (uint8_t[]){128});
  onnx_model_add_initializer(m, "xs2", IR_F32, 0, NULL, (float[]){mismatch ? 0.25f : 0.5f});
  onnx_model_add_initializer(m, "wq", IR_I8, 4, (int64_t[]){2, 1, 1, 1}, (int8_t[]){-3, 100});
  onnx_model_add_initializer(m, "ws", IR_F32, 1, (int64_t[]){2}, (float[]){0.1f, 0.2f});
  onnx_model_add_initializer(m, "wz", IR_I8, 1, (int64_t[]){2}, (int8_t[]){0, 0});
  onnx_model_add_initializer(m, "bq", IR_I32, 1, (int64_t[]){2}, (int32_t[]){7, -9});
  onnx_model_add_initializer(m, "bs", IR_F32, 1, (int64_t[]){2}, (float[]){0.05f, 0.1f});
  onnx_model_add_initializer(m, "bz", IR_I32, 1, (int64_t[]){2}, (int32_t[]){0, 0});
  onnx_model_add_initializer(m, "ys", IR_F32, 0, NULL, (float[]){0.125f});
  if (scale_as_constant) {
    Onnx__NodeProto *k = N(m, "Constant", "k", "", "yz");
    onnx_node_attr_tensor(k, "value", onnx_tensor_new("", IR_I8, 0, NULL, (int8_t[]){-3}, 1));
  } else {
    onnx_model_add_initializer(m, "yz", IR_I8, 0, NULL, (int8_t[]){-3});
  }
  N(m, "QuantizeLinear", "q_in", "images,xs,xz", "images_q");
  N(m, "DequantizeLinear", "dq_in", "images_q,xs2,xz", "images_dq");
  Onnx__NodeProto *d = N(m, "DequantizeLinear", "dq_w", "wq,ws,wz", "w_dq");
  onnx_node_attr_int(d, "axis", 0);
  d = N(m, "DequantizeLinear", "dq_b", "bq,bs,bz", "b_dq");
  onnx_node_attr_int(d, "axis", 0);
  N(m, "Conv", "conv", "images_dq,w_dq,b_dq", "c");
  N(m, "QuantizeLinear", "q_c", "c,ys,yz", "c_q");
  N(m, "DequantizeLinear", "dq_c1", "c_q,ys,yz", "c_dq1");
  N(m, "DequantizeLinear", "dq_c2", "c_q,ys,yz", "c_dq2");
  N(m, "Add", "add", "c_dq1,c_dq2", "y");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  return m;
}

static void test_qdq_annotate(void **state) {
  (void)state;
  for (int variant = 0; variant < 2; variant++) {
    ir_graph *g = build(qdq_model(0, variant), 1);
    yrt_error err = {{0}};
    if (ir_qdq_annotate(g, &err)) fail_msg("%s", err.msg);
    assert_int_equal(ir_compact(g, &err), YRT_OK);
    assert_int_equal(g->n_nodes, 2);
    const ir_node *conv = &g->nodes[0], *add = &g->nodes[1];
    assert_true(ir_node_is(conv, "Conv") && ir_node_is(add, "Add"));
    const ir_tensor *x = &g->tensors[conv->in[0]];
    assert_string_equal(x->name, "images");
    assert_int_equal(x->q.on, 1);
    assert_int_equal(x->q.dtype, IR_I8);
    assert_int_equal(x->q.zero_point, 0); /* uint8 128 -> int8 0 */
    assert_true(x->q.scale == 0.5f);
    const ir_tensor *w = &g->tensors[conv->in[1]];
    assert_int_equal(w->q.n_scales, 2);
    assert_int_equal(w->q.axis, 0);
    assert_true(w->q.scales[1] == 0.2f);
    assert_int_equal(((int8_t *)w->qdata)[1], 100);
    assert_true(fabsf(((float *)w->data)[1] - 20.0f) < 1e-5f);
    assert_true(fabsf(((float *)w->data)[0] + 0.3f) < 1e-6f);
    const ir_tensor *b = &g->tensors[conv->in[2]];
    assert_int_equal(b->q.dtype, IR_I32);
    assert_int_equal(((int32_t *)b->qdata)[1], -9);
    assert_true(fabsf(((float *)b->data)[1] + 0.9f) < 1e-6f);
    /* both DQs of the conv output collapse onto c */
    const ir_tensor *c = &g->tensors[conv->out[0]];
    assert_int_equal(add->in[0], conv->out[0]);
    assert_int_equal(add->in[1], conv->out[0]);
    assert_int_equal(c->q.zero_point, -3);
    assert_true(c->q.scale == 0.125f);
    ir_graph_free(g);
  }
}

static void test_qdq_errors(void **state) {
  (void)state;
  yrt_error err;
  ir_graph *g = build(qdq_model(1, 0), 1);
  assert_int_equal(ir_qdq_annotate(g, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "q_in"));
  ir_graph_free(g);
  /* Q whose output is read by a non-DQ node */
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 2, (int64_t[]){1, 4});
  onnx_model_add_initializer(m, "s", IR_F32, 0, NULL, (float[]){0.5f});
  onnx_model_add_initializer(m, "z", IR_I8, 0, NULL, (int8_t[]){0});
  N(m, "QuantizeLinear", "lonely_q", "x,s,z", "xq");
  N(m, "Identity", "id", "xq", "y");
  onnx_model_add_output(m, "y", IR_I8, -1, NULL);
  g = build(m, 1);
  assert_int_equal(ir_qdq_annotate(g, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "lonely_q"));
  ir_graph_free(g);
  /* DQ of a graph input */
  m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_I8, 2, (int64_t[]){1, 4});
  onnx_model_add_initializer(m, "s", IR_F32, 0, NULL, (float[]){0.5f});
  N(m, "DequantizeLinear", "dq_input", "x,s", "y");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  g = build(m, 1);
  assert_int_equal(ir_qdq_annotate(g, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "dq_input"));
  ir_graph_free(g);
}

/* int16 / uint16 activation pairs (onnxruntime's QInt16 / QUInt16 activations, W8A16): symmetric
 * ones annotate the tensor int16 with zero point 0 (uint16's 32768 normalised); an asymmetric one
 * is refused naming the node and the setting that writes symmetric ones. */
static void test_qdq_int16_activations(void **state) {
  (void)state;
  for (int v = 0; v < 4; v++) {
    Onnx__ModelProto *m = onnx_model_new(21);
    onnx_model_add_input(m, "x", IR_F32, 2, (int64_t[]){1, 4});
    onnx_model_add_initializer(m, "s", IR_F32, 0, NULL, (float[]){0.25f});
    if (v == 0) onnx_model_add_initializer(m, "z", IR_I16, 0, NULL, (int16_t[]){0});
    if (v == 1) onnx_model_add_initializer(m, "z", IR_U16, 0, NULL, (uint16_t[]){32768});
    if (v == 2) onnx_model_add_initializer(m, "z", IR_I16, 0, NULL, (int16_t[]){-300});
    if (v == 3) onnx_model_add_initializer(m, "z", IR_U16, 0, NULL, (uint16_t[]){0});
    N(m, "QuantizeLinear", "q16", "x,s,z", "xq");
    N(m, "DequantizeLinear", "dq16", "xq,s,z", "xd");
    N(m, "Relu", "relu", "xd", "y");
    onnx_model_add_output(m, "y", IR_F32, -1, NULL);
    ir_graph *g = build(m, 1);
    yrt_error err = {{0}};
    if (v < 2) {
      if (ir_qdq_annotate(g, &err)) fail_msg("variant %d: %s", v, err.msg);
      const ir_tensor *x = &g->tensors[ir_find_tensor(g, "x")];
      assert_int_equal(x->q.on, 1);
      assert_int_equal(x->q.dtype, IR_I16);
      assert_int_equal(x->q.zero_point, 0);
      assert_true(x->q.scale == 0.25f);
    } else {
      assert_int_equal(ir_qdq_annotate(g, &err), YRT_ERR_UNSUPPORTED);
      assert_non_null(strstr(err.msg, "q16"));
      assert_non_null(strstr(err.msg, "ActivationSymmetric"));
    }
    ir_graph_free(g);
  }
}

/* Q(constant) -> DQ -> Add (exporters quantize the head's anchors so): the Q folds into the
 * integer constant (round half to even, saturate), the DQ into a float constant with q + qdata;
 * per-axis scales and opset 21's output_dtype too; block_size and 16-bit types are refused. */
static Onnx__ModelProto *q_const_model(int variant) {
  Onnx__ModelProto *m = onnx_model_new(variant == 1 ? 21 : 13);
  onnx_model_add_input(m, "x", IR_F32, 2, (int64_t[]){2, 3});
  onnx_model_add_initializer(m, "k", IR_F32, 2, (int64_t[]){2, 3},
                             (float[]){0.25f, 0.75f, -0.25f, 100.0f, -100.0f, 1.25f});
  onnx_model_add_initializer(m, "s", IR_F32, 0, NULL, (float[]){0.5f});
  onnx_model_add_initializer(m, "sc", IR_F32, 1, (int64_t[]){2}, (float[]){0.5f, 0.25f});
  onnx_model_add_initializer(m, "z", IR_I8, 0, NULL, (int8_t[]){-128});
  onnx_model_add_initializer(m, "zu", IR_U8, 0, NULL, (uint8_t[]){10});
  Onnx__NodeProto *q = NULL;
  if (variant == 0) q = N(m, "QuantizeLinear", "q_k", "k,s,z", "kq");
  if (variant == 1) { /* opset 21: no zero point, output type from output_dtype (int8) */
    q = N(m, "QuantizeLinear", "q_k", "k,s", "kq");
    onnx_node_attr_int(q, "output_dtype", IR_I8);
  }
  if (variant == 2) { q = N(m, "QuantizeLinear", "q_k", "k,sc,zu", "kq"); onnx_node_attr_int(q, "axis", 0); }
  if (variant == 3) { q = N(m, "QuantizeLinear", "q_k", "k,s,z", "kq"); onnx_node_attr_int(q, "block_size", 2); }
  if (variant == 4) { q = N(m, "QuantizeLinear", "q_k", "k,s", "kq"); onnx_node_attr_int(q, "output_dtype", 5); }
  (void)q;
  Onnx__NodeProto *d = N(m, "DequantizeLinear", "dq_k", variant == 2 ? "kq,sc,zu" : variant == 0 ? "kq,s,z" : "kq,s", "kd");
  if (variant == 2) onnx_node_attr_int(d, "axis", 0);
  N(m, "Add", "add", "x,kd", "y");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  return m;
}

static void test_qdq_q_of_constant(void **state) {
  (void)state;
  /* x / s: 0.5 1.5 -0.5 200 -200 2.5 -> half-even 0 2 -0 200 -200 2 (+ zp, saturated) */
  const int8_t want0[6] = {-128, -126, -128, 72, -128, -126};   /* zp -128 */
  const int8_t want1[6] = {0, 2, 0, 127, -128, 2};               /* zp 0 */
  const int8_t want2[6] = {10 - 128, 12 - 128, 10 - 128, 127, -128, 15 - 128}; /* uint8 zp 10 - 128 */
  const int8_t *want[3] = {want0, want1, want2};
  for (int v = 0; v < 3; v++) {
    ir_graph *g = build(q_const_model(v), 1);
    yrt_error err = {{0}};
    if (ir_qdq_annotate(g, &err)) fail_msg("variant %d: %s", v, err.msg);
    assert_int_equal(ir_compact(g, &err), YRT_OK);
    assert_int_equal(g->n_nodes, 1);
    const ir_tensor *k = &g->tensors[g->nodes[0].in[1]];
    assert_non_null(k->data);
    assert_non_null(k->qdata);
    assert_int_equal(k->q.on, 1);
    for (int i = 0; i < 6; i++) {
      if (((const int8_t *)k->qdata)[i] != want[v][i])
        fail_msg("variant %d: q[%d] = %d, expected %d", v, i, ((const int8_t *)k->qdata)[i], want[v][i]);
      const float s = v == 2 ? (i < 3 ? 0.5f : 0.25f) : 0.5f;
      const float f = (float)(want[v][i] - k->q.zero_point) * s;
      assert_true(((const float *)k->data)[i] == f);
    }
    ir_graph_free(g);
  }
  for (int v = 3; v < 5; v++) {
    ir_graph *g = build(q_const_model(v), 1);
    yrt_error err = {{0}};
    assert_int_equal(ir_qdq_annotate(g, &err), YRT_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "q_k"));
    assert_non_null(strstr(err.msg, v == 3 ? "block_size" : "int16"));
    ir_graph_free(g);
  }
}

/* Conv weights as exporters write them: uint8 per-channel with differing zero points (variant 0:
 * every value - zp fits int8 -> centred exactly; variant 1: full range -> requantized symmetric per
 * channel), and int8 per-axis on the input-channel axis (variant 2 -> per output channel). The
 * float data stays the exact dequantized value; the int8 data is symmetric on axis 0. */
static Onnx__ModelProto *weights_model(int v) {
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 2, 2, 2});
  onnx_model_add_initializer(m, "ws", IR_F32, 1, (int64_t[]){2}, (float[]){0.1f, 0.2f});
  if (v == 0) {
    onnx_model_add_initializer(m, "wq", IR_U8, 4, (int64_t[]){2, 2, 1, 1}, (uint8_t[]){100, 130, 60, 70});
    onnx_model_add_initializer(m, "wz", IR_U8, 1, (int64_t[]){2}, (uint8_t[]){110, 64});
  } else if (v == 1) {
    onnx_model_add_initializer(m, "wq", IR_U8, 4, (int64_t[]){2, 2, 1, 1}, (uint8_t[]){0, 255, 10, 250});
    onnx_model_add_initializer(m, "wz", IR_U8, 1, (int64_t[]){2}, (uint8_t[]){128, 5});
  } else {
    onnx_model_add_initializer(m, "wq", IR_I8, 4, (int64_t[]){2, 2, 1, 1}, (int8_t[]){127, -50, 10, 100});
    onnx_model_add_initializer(m, "wz", IR_I8, 1, (int64_t[]){2}, (int8_t[]){0, 0});
  }
  Onnx__NodeProto *d = N(m, "DequantizeLinear", "dq_w", "wq,ws,wz", "w");
  onnx_node_attr_int(d, "axis", v == 2 ? 1 : 0);
  N(m, "Conv", "conv", "x,w", "y");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  return m;
}

static void test_qdq_weight_variants(void **state) {
  (void)state;
  const float want_f[3][4] = {{-1.0f, 2.0f, -0.8f, 1.2f}, {-12.8f, 12.7f, 1.0f, 49.0f},
                              {12.7f, -10.0f, 1.0f, 20.0f}};
  const int8_t want_q[3][4] = {{-10, 20, -4, 6}, {-127, 126, 3, 127}, {127, -100, 6, 127}};
  for (int v = 0; v < 3; v++) {
    ir_graph *g = build(weights_model(v), 1);
    yrt_error err = {{0}};
    if (ir_qdq_annotate(g, &err)) fail_msg("variant %d: %s", v, err.msg);
    const ir_tensor *w = &g->tensors[ir_find_tensor(g, "w")];
    assert_int_equal(w->q.on, 1);
    assert_int_equal(w->q.dtype, IR_I8);
    assert_int_equal(w->q.zero_point, 0);
    assert_int_equal(w->q.axis, 0);
    assert_int_equal(w->q.n_scales, 2);
    for (int i = 0; i < 4; i++) {
      const float f = ((const float *)w->data)[i];
      if (fabsf(f - want_f[v][i]) > 1e-5f) fail_msg("variant %d: w[%d] = %g, expected %g", v, i, f, want_f[v][i]);
      const int8_t q = ((const int8_t *)w->qdata)[i];
      if (q != want_q[v][i]) fail_msg("variant %d: q[%d] = %d, expected %d", v, i, q, want_q[v][i]);
      /* the int8 data times its scale is the float value, up to half a step */
      assert_true(fabsf(q * w->q.scales[i / 2] - f) <= 0.5f * w->q.scales[i / 2] + 1e-6f);
    }
    ir_graph_free(g);
  }
}

/* onnxruntime's QOperator layout: images -Q-> QLinearConv -> QLinearSigmoid, QLinearMul (a SiLU)
 * -> QLinearLeakyRelu -> QLinearAdd(., silu) -> QLinearConcat(., silu) -DQ-> output, written
 * (qop = 1) as QLinear nodes or (qop = 0) as the QDQ graph they mean. Both convert to models
 * whose outputs are bit-identical. */
static void qop_node(Onnx__ModelProto *m, int qop, const char *op, const char *fop, const char *name,
                     const char *const *x, int nx, const char *y, const char *bias, float alpha) {
  char ins[512] = "", buf[1024]; /* buf holds ins plus one more operand: no truncation warning */
  if (qop) {
    const int concat = strcmp(fop, "Concat") == 0;
    if (concat) snprintf(ins, sizeof ins, "%s_s,%s_z", y, y);
    for (int k = 0; k < nx; k++) {
      snprintf(buf, sizeof buf, "%s%s%s,%s_s,%s_z", ins, ins[0] ? "," : "", x[k], x[k], x[k]);
      memcpy(ins, buf, sizeof ins);
    }
    if (!concat) {
      snprintf(buf, sizeof buf, "%s,%s_s,%s_z%s%s", ins, y, y, bias ? "," : "", bias ? bias : "");
      memcpy(ins, buf, sizeof ins);
    }
    Onnx__NodeProto *n = N(m, op, name, ins, y);
    if (strcmp(op, "QLinearConv") != 0) onnx_node_set_domain(n, "com.microsoft");
    if (concat) onnx_node_attr_int(n, "axis", 1);
    if (alpha != 0) onnx_node_attr_float(n, "alpha", alpha);
    if (strcmp(op, "QLinearConv") == 0) onnx_node_attr_ints(n, "pads", (int64_t[]){1, 1, 1, 1}, 4);
    return;
  }
  for (int k = 0; k < nx; k++) {
    char o[64], nm[64];
    snprintf(o, sizeof o, "%s_f_%s", x[k], name);
    snprintf(nm, sizeof nm, "dq_%s_%s", x[k], name);
    snprintf(buf, sizeof buf, "%s,%s_s,%s_z", x[k], x[k], x[k]);
    Onnx__NodeProto *d = N(m, "DequantizeLinear", nm, buf, o);
    if (k == 1 && bias) onnx_node_attr_int(d, "axis", 0);
    snprintf(buf, sizeof buf, "%s%s%s", ins, ins[0] ? "," : "", o);
    memcpy(ins, buf, sizeof ins);
  }
  if (bias) {
    onnx_node_attr_int(N(m, "DequantizeLinear", "dq_bias", "b,b_s", "b_f"), "axis", 0);
    snprintf(buf, sizeof buf, "%s,b_f", ins);
    memcpy(ins, buf, sizeof ins);
  }
  char yf[64];
  snprintf(yf, sizeof yf, "%s_float", y);
  Onnx__NodeProto *n = N(m, fop, name, ins, yf);
  if (strcmp(fop, "Concat") == 0) onnx_node_attr_int(n, "axis", 1);
  if (alpha != 0) onnx_node_attr_float(n, "alpha", alpha);
  if (strcmp(fop, "Conv") == 0) onnx_node_attr_ints(n, "pads", (int64_t[]){1, 1, 1, 1}, 4);
  snprintf(buf, sizeof buf, "%s,%s_s,%s_z", yf, y, y);
  char qn[64];
  snprintf(qn, sizeof qn, "q_%s", name);
  N(m, "QuantizeLinear", qn, buf, y);
}

static Onnx__ModelProto *qop_model(int qop) {
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "images", IR_F32, 4, (int64_t[]){1, 2, 5, 4});
  const char *names[] = {"xq", "cq", "sq", "mq", "lq", "aq", "kq"};
  const float sc[] = {1.0f / 255.0f, 0.02f, 1.0f / 256.0f, 0.015f, 0.01f, 0.03f, 0.03f};
  const uint8_t zp[] = {0, 120, 0, 20, 30, 10, 10};
  for (int k = 0; k < 7; k++) {
    char s[32], z[32];
    snprintf(s, sizeof s, "%s_s", names[k]);
    snprintf(z, sizeof z, "%s_z", names[k]);
    onnx_model_add_initializer(m, s, IR_F32, 0, NULL, &sc[k]);
    onnx_model_add_initializer(m, z, IR_U8, 0, NULL, &zp[k]);
  }
  int8_t w[3 * 2 * 9];
  for (int i = 0; i < 3 * 2 * 9; i++) w[i] = (int8_t)((i * 37) % 91 - 45);
  onnx_model_add_initializer(m, "w", IR_I8, 4, (int64_t[]){3, 2, 3, 3}, w);
  const float ws[3] = {0.01f, 0.02f, 0.015f}, bs[3] = {ws[0] / 255.0f, ws[1] / 255.0f, ws[2] / 255.0f};
  onnx_model_add_initializer(m, "w_s", IR_F32, 1, (int64_t[]){3}, ws);
  onnx_model_add_initializer(m, "w_z", IR_I8, 1, (int64_t[]){3}, (int8_t[]){0, 0, 0});
  onnx_model_add_initializer(m, "b", IR_I32, 1, (int64_t[]){3}, (int32_t[]){1000, -2000, 300});
  if (!qop) onnx_model_add_initializer(m, "b_s", IR_F32, 1, (int64_t[]){3}, bs);
  N(m, "QuantizeLinear", "q_images", "images,xq_s,xq_z", "xq");
  qop_node(m, qop, "QLinearConv", "Conv", "conv", (const char *[]){"xq", "w"}, 2, "cq", "b", 0);
  qop_node(m, qop, "QLinearSigmoid", "Sigmoid", "sig", (const char *[]){"cq"}, 1, "sq", NULL, 0);
  qop_node(m, qop, "QLinearMul", "Mul", "mul", (const char *[]){"cq", "sq"}, 2, "mq", NULL, 0);
  qop_node(m, qop, "QLinearLeakyRelu", "LeakyRelu", "lrelu", (const char *[]){"mq"}, 1, "lq", NULL, 0.1f);
  qop_node(m, qop, "QLinearAdd", "Add", "add", (const char *[]){"lq", "mq"}, 2, "aq", NULL, 0);
  qop_node(m, qop, "QLinearConcat", "Concat", "cat", (const char *[]){"aq", "mq"}, 2, "kq", NULL, 0);
  N(m, "DequantizeLinear", "dq_out", "kq,kq_s,kq_z", "out");
  onnx_model_add_output(m, "out", IR_F32, -1, NULL);
  return m;
}

static void run_converted(ir_graph *g, const float *x, size_t nx, float *y, size_t ny, int *n_qop) {
  void *buf = NULL;
  size_t size = 0;
  yrt_error err = {{0}};
  yrt_convert_report rep;
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err)) fail_msg("convert: %s", err.msg);
  *n_qop = rep.n_qoperators;
  assert_true(rep.n_int8_nodes >= 4);
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  if (yrt_model_load_memory(buf, size, 1, &m, &err) || yrt_session_create(m, NULL, &s, &err) ||
      yrt_session_set_input(s, 0, x, nx, &err) || yrt_session_run(s, &err))
    fail_msg("run: %s", err.msg);
  yrt_tensor_view v;
  if (yrt_session_output(s, 0, &v, &err)) fail_msg("output: %s", err.msg);
  assert_int_equal(v.count, ny);
  memcpy(y, v.data, ny * sizeof(float));
  yrt_session_free(s);
  yrt_model_free(m);
  free(buf);
}

static void test_qoperator_layout(void **state) {
  (void)state;
  enum { NX = 2 * 5 * 4, NY = 6 * 5 * 4 };
  float x[NX], a[NY], b[NY];
  for (int i = 0; i < NX; i++) x[i] = (float)((i * 53) % 256) / 255.0f;
  int nq_a = 0, nq_b = 0;
  ir_graph *g = build(qop_model(1), 0);
  run_converted(g, x, NX, a, NY, &nq_a);
  ir_graph_free(g);
  g = build(qop_model(0), 0);
  run_converted(g, x, NX, b, NY, &nq_b);
  ir_graph_free(g);
  assert_int_equal(nq_a, 6);
  assert_int_equal(nq_b, 0);
  int nonzero = 0;
  for (int i = 0; i < NY; i++) {
    if (memcmp(&a[i], &b[i], sizeof(float)) != 0) fail_msg("out[%d]: QOperator %g, QDQ %g", i, a[i], b[i]);
    nonzero += a[i] != 0;
  }
  assert_true(nonzero > NY / 4);
  /* QLinearGlobalAveragePool / QLinearAveragePool become DQ -> (Global)AveragePool -> Q, then an
   * int8 depthwise conv (ir_avgpool_as_conv); channels_last is refused */
  for (int cl = 0; cl < 4; cl++) {
    const char *qop = cl < 2 ? "QLinearGlobalAveragePool" : "QLinearAveragePool";
    Onnx__ModelProto *m = onnx_model_new(13);
    onnx_model_add_input(m, "x", IR_U8, 4, (int64_t[]){1, 2, 3, 3});
    onnx_model_add_initializer(m, "s", IR_F32, 0, NULL, (float[]){0.1f});
    onnx_model_add_initializer(m, "z", IR_U8, 0, NULL, (uint8_t[]){3});
    Onnx__NodeProto *n = N(m, qop, "gap", "x,s,z,s,z", "y");
    onnx_node_set_domain(n, "com.microsoft");
    if (cl & 1) onnx_node_attr_int(n, "channels_last", 1);
    if (cl >= 2) {
      onnx_node_attr_ints(n, "kernel_shape", (int64_t[]){2, 2}, 2);
      onnx_node_attr_int(n, "count_include_pad", 1);
    }
    onnx_model_add_output(m, "y", IR_U8, -1, NULL);
    g = build(m, 0);
    yrt_error err = {{0}};
    int nl = 0;
    if (cl & 1) {
      assert_int_equal(ir_lower_qoperators(g, &nl, &err), YRT_ERR_UNSUPPORTED);
      assert_non_null(strstr(err.msg, "gap"));
    } else {
      if (ir_lower_qoperators(g, &nl, &err)) fail_msg("%s", err.msg);
      assert_int_equal(nl, 1);
      int found = 0;
      for (int i = 0; i < g->n_nodes; i++) found += !g->nodes[i].dead && ir_node_is(&g->nodes[i], qop + 7);
      assert_int_equal(found, 1);
      if (ir_fold_constants(g, &err) || ir_infer_shapes(g, &err) || ir_avgpool_as_conv(g, &nl, &err))
        fail_msg("%s", err.msg);
      assert_int_equal(nl, 1);
      const ir_node *q = producer_of(g, "y"); /* Q(conv(DQ(x), DQ(127))) */
      const ir_node *c = &g->nodes[g->tensors[q->in[0]].producer];
      assert_true(ir_node_is_op(q, ONNX_OP_QUANTIZE_LINEAR) && ir_node_is_op(c, ONNX_OP_CONV));
      assert_true(ir_node_is_op(&g->nodes[g->tensors[c->in[1]].producer], ONNX_OP_DEQUANTIZE_LINEAR));
    }
    ir_graph_free(g);
  }
}

/* QAT / TensorRT layout: Q/DQ (zero point 0) on conv inputs only.
 *   images -Q/DQ-> conv1 -> SiLU -> z1 -> MaxPool -> m1; Concat(z1, m1) -Q/DQ(0.05)-> conv2 -> SiLU
 *   -> z2; Add(z2, m1) -Q/DQ(0.08)-> conv3 -> y3 (graph output)
 * After propagation: z1, m1 take the Concat's quantization, z2 the Add's, the conv outputs the
 * SiLU-input quantization of theirs; the Sigmoid outputs and the graph output stay float.
 * conv_out_q: onnxruntime's quantize_static restricted to Conv, conv1 and conv2's outputs also
 * quantized (Q/DQ at 0.1 after them, named y1q / y2q), the SiLUs and the rest float. */
static Onnx__ModelProto *qat_model(int conv_out_q) {
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "images", IR_F32, 4, (int64_t[]){1, 2, 4, 4});
  onnx_model_add_initializer(m, "s_in", IR_F32, 0, NULL, (float[]){1.0f / 127.0f});
  onnx_model_add_initializer(m, "s_c", IR_F32, 0, NULL, (float[]){0.05f});
  onnx_model_add_initializer(m, "s_a", IR_F32, 0, NULL, (float[]){0.08f});
  onnx_model_add_initializer(m, "s_y", IR_F32, 0, NULL, (float[]){0.1f});
  onnx_model_add_initializer(m, "z0", IR_I8, 0, NULL, (int8_t[]){0});
  onnx_model_add_initializer(m, "ws", IR_F32, 0, NULL, (float[]){0.01f});
  onnx_model_add_initializer(m, "w1", IR_I8, 4, (int64_t[]){2, 2, 1, 1}, (int8_t[]){10, -20, 30, 40});
  onnx_model_add_initializer(m, "w2", IR_I8, 4, (int64_t[]){2, 4, 1, 1}, (int8_t[]){1, 2, 3, 4, -5, 6, 7, 8});
  onnx_model_add_initializer(m, "w3", IR_I8, 4, (int64_t[]){2, 2, 1, 1}, (int8_t[]){5, 6, -7, 8});
  N(m, "QuantizeLinear", "q_in", "images,s_in,z0", "xq");
  N(m, "DequantizeLinear", "dq_in", "xq,s_in,z0", "x");
  const char *w[3] = {"w1", "w2", "w3"};
  for (int k = 0; k < 3; k++) {
    char in[64], out[32], name[32];
    snprintf(in, sizeof in, "%s,ws,z0", w[k]);
    snprintf(out, sizeof out, "%s_dq", w[k]);
    snprintf(name, sizeof name, "dq_%s", w[k]);
    N(m, "DequantizeLinear", name, in, out);
  }
  N(m, "Conv", "conv1", "x,w1_dq", conv_out_q ? "y1q" : "y1");
  if (conv_out_q) {
    N(m, "QuantizeLinear", "q_y1", "y1q,s_y,z0", "y1qq");
    N(m, "DequantizeLinear", "dq_y1", "y1qq,s_y,z0", "y1");
  }
  N(m, "Sigmoid", "sig1", "y1", "s1");
  N(m, "Mul", "mul1", "y1,s1", "z1");
  Onnx__NodeProto *mp = N(m, "MaxPool", "pool", "z1", "m1");
  onnx_node_attr_ints(mp, "kernel_shape", (int64_t[]){3, 3}, 2);
  onnx_node_attr_ints(mp, "pads", (int64_t[]){1, 1, 1, 1}, 4);
  Onnx__NodeProto *cc = N(m, "Concat", "cat", "z1,m1", "c");
  onnx_node_attr_int(cc, "axis", 1);
  N(m, "QuantizeLinear", "q_c", "c,s_c,z0", "cq");
  N(m, "DequantizeLinear", "dq_c", "cq,s_c,z0", "c_dq");
  N(m, "Conv", "conv2", "c_dq,w2_dq", conv_out_q ? "y2q" : "y2");
  if (conv_out_q) {
    N(m, "QuantizeLinear", "q_y2", "y2q,s_y,z0", "y2qq");
    N(m, "DequantizeLinear", "dq_y2", "y2qq,s_y,z0", "y2");
  }
  N(m, "Sigmoid", "sig2", "y2", "s2");
  N(m, "Mul", "mul2", "s2,y2", "z2");
  N(m, "Add", "add", "z2,m1", "a");
  N(m, "QuantizeLinear", "q_a", "a,s_a,z0", "aq");
  N(m, "DequantizeLinear", "dq_a", "aq,s_a,z0", "a_dq");
  N(m, "Conv", "conv3", "a_dq,w3_dq", "y3");
  onnx_model_add_output(m, "y3", IR_F32, -1, NULL);
  return m;
}

static void expect_q(const ir_graph *g, const char *name, float scale, int32_t zp) {
  const int t = ir_find_tensor(g, name);
  if (t < 0) fail_msg("no tensor %s", name);
  const ir_quant *q = &g->tensors[t].q;
  if (!q->on || q->scale != scale || q->zero_point != zp)
    fail_msg("%s: q %d scale %g zp %d, expected %g %d", name, q->on, (double)q->scale, q->zero_point,
             (double)scale, zp);
}

static void test_qdq_propagate(void **state) {
  (void)state;
  ir_graph *g = build(qat_model(0), 1);
  yrt_error err = {{0}};
  if (ir_qdq_annotate(g, &err)) fail_msg("%s", err.msg);
  assert_int_equal(ir_qdq_propagate(g), 5); /* z1, m1, z2, y1, y2 */
  expect_q(g, "z1", 0.05f, 0);
  expect_q(g, "m1", 0.05f, 0);
  expect_q(g, "z2", 0.08f, 0);
  float s;
  int32_t zp;
  ir_silu_input_quant(0.05f, 0, &s, &zp);
  expect_q(g, "y1", s, zp);
  assert_true(zp > -128 && zp < 127 && s > 0.05f * 0.5f && s < 0.05f * 2); /* reaches below 0 */
  ir_silu_input_quant(0.08f, 0, &s, &zp);
  expect_q(g, "y2", s, zp);
  assert_false(g->tensors[ir_find_tensor(g, "s1")].q.on);
  assert_false(g->tensors[ir_find_tensor(g, "s2")].q.on);
  assert_false(g->tensors[ir_find_tensor(g, "y3")].q.on);
  ir_graph_free(g);
  /* quantize_static restricted to Conv: the conv outputs keep their own quantization, the
   * SiLU outputs and MaxPool take their consumers' */
  g = build(qat_model(1), 1);
  if (ir_qdq_annotate(g, &err)) fail_msg("%s", err.msg);
  assert_int_equal(ir_qdq_propagate(g), 3); /* z1, m1, z2 */
  expect_q(g, "z1", 0.05f, 0);
  expect_q(g, "m1", 0.05f, 0);
  expect_q(g, "z2", 0.08f, 0);
  expect_q(g, "y1q", 0.1f, 0); /* the Q/DQ pair folds into the conv output */
  expect_q(g, "y2q", 0.1f, 0);
  assert_false(g->tensors[ir_find_tensor(g, "s1")].q.on);
  ir_graph_free(g);
  /* onnxruntime's layout (conv outputs quantized) is left alone */
  g = build(qdq_model(0, 0), 1);
  if (ir_qdq_annotate(g, &err)) fail_msg("%s", err.msg);
  assert_int_equal(ir_qdq_propagate(g), 0);
  ir_graph_free(g);
}

/* conv(4-D) -> Reshape to 3-D -> Sigmoid -> output; attention-like 4-D reshape stays int8 */
/* Pretend every tensor was quantized (the region clears q where nothing int8 reads it). */
static void all_quantized(ir_graph *g) {
  for (int i = 0; i < g->n_tensors; i++) {
    g->tensors[i].q.on = 1;
    g->tensors[i].q.scale = 1;
  }
}

static void test_fp32_region(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 2, 2, 2});
  onnx_model_add_initializer(m, "w", IR_F32, 4, (int64_t[]){2, 2, 1, 1}, (float[]){1, 0, 0, 1});
  onnx_model_add_initializer(m, "s4", IR_I64, 1, (int64_t[]){4}, (int64_t[]){1, 2, 1, 4});
  onnx_model_add_initializer(m, "s3", IR_I64, 1, (int64_t[]){3}, (int64_t[]){1, 2, 4});
  N(m, "Conv", "conv", "x,w", "c");
  N(m, "Reshape", "attn_reshape", "c,s4", "r4");
  N(m, "Softmax", "attn_softmax", "r4", "sm4");
  N(m, "Reshape", "head_reshape", "sm4,s3", "r3");
  N(m, "Sigmoid", "head_sigmoid", "r3", "y");
  N(m, "Relu", "side", "sm4", "side_out");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  onnx_model_add_output(m, "side_out", IR_F32, -1, NULL);
  ir_graph *g = build(m, 1);
  all_quantized(g);
  yrt_error err;
  const char *excl[] = {"side", NULL};
  assert_int_equal(ir_mark_fp32_region(g, excl, &err), YRT_OK);
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    int want = strncmp(n->name, "head_", 5) == 0 || strcmp(n->name, "side") == 0;
    if (n->fp32 != want) fail_msg("node %s fp32=%d", n->name, n->fp32);
  }
  assert_int_equal(g->tensors[ir_find_tensor(g, "sm4")].q.on, 1); /* border keeps q */
  assert_int_equal(g->tensors[ir_find_tensor(g, "r3")].q.on, 0);
  assert_int_equal(g->tensors[ir_find_tensor(g, "y")].q.on, 0);
  assert_int_equal(g->tensors[ir_find_tensor(g, "side_out")].q.on, 0);
  assert_int_equal(g->tensors[ir_find_tensor(g, "c")].q.on, 1);
  const char *bad[] = {"no_such_node", NULL};
  assert_int_equal(ir_mark_fp32_region(g, bad, &err), YRT_ERR_INVALID_ARG);
  const char *bad_prefix[] = {"attn_x*", NULL};
  assert_int_equal(ir_mark_fp32_region(g, bad_prefix, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "attn_x*"));
  /* "attn_*" keeps the whole attention block in float, and nothing else */
  const char *block[] = {"attn_*", NULL};
  assert_int_equal(ir_mark_fp32_region(g, block, &err), YRT_OK);
  assert_int_equal(g->nodes[1].fp32 + g->nodes[2].fp32, 2);
  assert_int_equal(g->nodes[0].fp32, 0);
  ir_graph_free(g);
}

/* m built, quantized everywhere and its float region marked: exactly the live nodes whose name
 * starts with prefix a or b are float. */
static ir_graph *region_marked(Onnx__ModelProto *m, const char *a, const char *b) {
  ir_graph *g = build(m, 1);
  all_quantized(g);
  yrt_error err;
  if (ir_mark_fp32_region(g, NULL, &err)) fail_msg("%s", err.msg);
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    int want = strncmp(n->name, a, strlen(a)) == 0 || strncmp(n->name, b, strlen(b)) == 0;
    if (n->fp32 != want) fail_msg("node %s fp32=%d", n->name, n->fp32);
  }
  return g;
}

/* ShuffleNetV2's channel shuffle (YOLOv5-Lite): Reshape [N, 2, C/2, H, W], Transpose (0, 2, 1, 3,
 * 4), Reshape [N, C, H, W] is data movement on the grid, not a head: it stays int8. A YOLOv5 raw
 * head (the same 5-D reshape, the class axis moved last, never back to [N, C, H, W]) and a shuffle
 * that moves a spatial axis are float. */
static void test_fp32_region_channel_shuffle(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 4, 3, 5});
  onnx_model_add_initializer(m, "w", IR_F32, 4, (int64_t[]){4, 4, 1, 1}, (float[16]){1, 0, 0, 0, 0, 1});
  onnx_model_add_initializer(m, "g5", IR_I64, 1, (int64_t[]){5}, (int64_t[]){1, 2, 2, 3, 5});
  onnx_model_add_initializer(m, "c4", IR_I64, 1, (int64_t[]){4}, (int64_t[]){1, 4, 3, 5});
  N(m, "Conv", "conv", "x,w", "c");
  N(m, "Reshape", "shuf_split", "c,g5", "s5");
  onnx_node_attr_ints(N(m, "Transpose", "shuf_tr", "s5", "t5"), "perm", (int64_t[]){0, 2, 1, 3, 4}, 5);
  N(m, "Reshape", "shuf_back", "t5,c4", "sh");
  N(m, "Conv", "after_conv", "sh,w", "y");
  /* a spatial axis moved: not a channel permutation, float */
  N(m, "Reshape", "hw_split", "y,g5", "h5");
  onnx_node_attr_ints(N(m, "Transpose", "hw_tr", "h5", "ht"), "perm", (int64_t[]){0, 1, 2, 4, 3}, 5);
  onnx_model_add_initializer(m, "c4t", IR_I64, 1, (int64_t[]){4}, (int64_t[]){1, 4, 5, 3});
  N(m, "Reshape", "hw_back", "ht,c4t", "hb");
  onnx_model_add_output(m, "hb", IR_F32, -1, NULL);
  /* a YOLOv5 raw head: [1, 2, 2, 3, 5] -> [1, 2, 3, 5, 2], an output */
  N(m, "Reshape", "head_split", "y,g5", "r5");
  onnx_node_attr_ints(N(m, "Transpose", "head_tr", "r5", "out"), "perm", (int64_t[]){0, 1, 3, 4, 2}, 5);
  onnx_model_add_output(m, "out", IR_F32, -1, NULL);
  ir_graph *g = region_marked(m, "head_", "hw_");
  assert_int_equal(g->tensors[ir_find_tensor(g, "t5")].q.on, 1);
  ir_graph_free(g);
}

/* A space-to-depth stem made of Reshapes and a Transpose (TI YOLO-Pose's Focus, "contract"):
 * [1, 4, 4, 6] -> [1, 4, 2, 2, 3, 2] -> (0, 3, 5, 1, 2, 4) -> [1, 16, 2, 3], then a conv: data
 * movement, not a head (it took the whole network into float). The same chain ending off the
 * block shape ([1, 8, 4, 3]: not s x s blocks) is float. */
static void test_fp32_region_space_to_depth(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 4, 4, 6});
  onnx_model_add_initializer(m, "b6", IR_I64, 1, (int64_t[]){6}, (int64_t[]){1, 4, 2, 2, 3, 2});
  onnx_model_add_initializer(m, "c4", IR_I64, 1, (int64_t[]){4}, (int64_t[]){1, 16, 2, 3});
  onnx_model_add_initializer(m, "o4", IR_I64, 1, (int64_t[]){4}, (int64_t[]){1, 8, 4, 3});
  onnx_model_add_initializer(m, "w", IR_F32, 4, (int64_t[]){4, 16, 1, 1}, (float[64]){1, 0, 0, 0, 1});
  onnx_model_add_initializer(m, "w8", IR_F32, 4, (int64_t[]){4, 8, 1, 1}, (float[32]){1, 0, 0, 1});
  N(m, "Reshape", "s2d_split", "x,b6", "b");
  onnx_node_attr_ints(N(m, "Transpose", "s2d_tr", "b", "bt"), "perm", (int64_t[]){0, 3, 5, 1, 2, 4}, 6);
  N(m, "Reshape", "s2d_join", "bt,c4", "s2d");
  N(m, "Conv", "conv", "s2d,w", "y");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  N(m, "Reshape", "odd_split", "x,b6", "ob");
  onnx_node_attr_ints(N(m, "Transpose", "odd_tr", "ob", "obt"), "perm", (int64_t[]){0, 3, 5, 1, 2, 4}, 6);
  N(m, "Reshape", "odd_join", "obt,o4", "odd");
  N(m, "Conv", "odd_conv", "odd,w8", "y2");
  onnx_model_add_output(m, "y2", IR_F32, -1, NULL);
  ir_graph_free(region_marked(m, "odd_", "odd_"));
}

/* Attention that flattens (YOLO12 AAttn): the region a flatten starts ends at the first node
 * back on its [N, ., H, W] grid; a head (two grids concatenated) never ends, even when it is
 * rank 4 again. */
static void test_fp32_region_attention(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 4, 3, 5});
  onnx_model_add_initializer(m, "w", IR_F32, 4, (int64_t[]){4, 4, 1, 1}, (float[16]){1, 0, 0, 0, 0, 1});
  onnx_model_add_initializer(m, "tok", IR_I64, 1, (int64_t[]){3}, (int64_t[]){1, 4, 15});
  onnx_model_add_initializer(m, "hwc", IR_I64, 1, (int64_t[]){4}, (int64_t[]){1, 3, 5, 4});
  onnx_model_add_initializer(m, "c4", IR_I64, 1, (int64_t[]){4}, (int64_t[]){1, 4, 15, 1});
  N(m, "Conv", "conv", "x,w", "c");
  N(m, "Reshape", "attn_flatten", "c,tok", "t");                  /* [1,4,15] */
  onnx_node_attr_ints(N(m, "Transpose", "attn_tr", "t", "tt"), "perm", (int64_t[]){0, 2, 1}, 3);
  onnx_node_attr_int(N(m, "Softmax", "attn_softmax", "tt", "sm"), "axis", -1);
  N(m, "Reshape", "attn_hwc", "sm,hwc", "hw");                     /* [1,3,5,4]: not NCHW */
  onnx_node_attr_ints(N(m, "Transpose", "attn_back", "hw", "img"), "perm", (int64_t[]){0, 3, 1, 2}, 4);
  N(m, "Add", "after_add", "img,c", "sum");                        /* back on the grid: int8 */
  N(m, "Conv", "after_conv", "sum,w", "y");
  /* a head: the 3x5 grid and a 1x3 grid flattened, concatenated, made rank 4 */
  onnx_model_add_initializer(m, "tok2", IR_I64, 1, (int64_t[]){3}, (int64_t[]){1, 4, 3});
  onnx_model_add_initializer(m, "s2", IR_I64, 1, (int64_t[]){2}, (int64_t[]){1, 3});
  onnx_model_add_initializer(m, "k2", IR_I64, 1, (int64_t[]){2}, (int64_t[]){3, 3});
  onnx_model_add_initializer(m, "p0", IR_I64, 1, (int64_t[]){4}, (int64_t[]){0, 0, 0, 0});
  onnx_node_attr_ints(N(m, "MaxPool", "down", "y", "d"), "kernel_shape", (int64_t[]){3, 3}, 2);
  N(m, "Reshape", "head_flat0", "y,tok", "h0");
  N(m, "Reshape", "head_flat1", "d,tok2", "h1");
  onnx_node_attr_int(N(m, "Concat", "head_cat", "h0,h1", "hc"), "axis", 2);      /* [1,4,18] */
  onnx_model_add_initializer(m, "h4", IR_I64, 1, (int64_t[]){4}, (int64_t[]){1, 4, 3, 6});
  N(m, "Reshape", "head_r4", "hc,h4", "hr");                        /* rank 4, on no grid */
  N(m, "Sigmoid", "head_sig", "hr", "out");
  onnx_model_add_output(m, "out", IR_F32, -1, NULL);
  ir_graph *g = region_marked(m, "attn_", "head_");
  assert_int_equal(g->tensors[ir_find_tensor(g, "img")].q.on, 1); /* read by int8: keeps q */
  assert_int_equal(g->tensors[ir_find_tensor(g, "sm")].q.on, 0);
  ir_graph_free(g);
}

/* image [1,3,16,16] -> conv s2 (stride 2) -> conv s2 (stride 4) -> conv s2 (stride 8) -> add with
 * an upsample of the stride-8 map back to stride 4 (computed from stride 8: not stem at 4) */
static void test_stem_nodes(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "img", IR_F32, 4, (int64_t[]){1, 3, 16, 16});
  onnx_model_add_initializer(m, "w1", IR_F32, 4, (int64_t[]){3, 3, 1, 1}, (float[]){1, 0, 0, 0, 1, 0, 0, 0, 1});
  onnx_model_add_initializer(m, "w2", IR_F32, 4, (int64_t[]){3, 3, 1, 1}, (float[]){1, 0, 0, 0, 1, 0, 0, 0, 1});
  onnx_model_add_initializer(m, "w3", IR_F32, 4, (int64_t[]){3, 3, 1, 1}, (float[]){1, 0, 0, 0, 1, 0, 0, 0, 1});
  onnx_model_add_initializer(m, "sc", IR_F32, 1, (int64_t[]){4}, (float[]){1, 1, 2, 2});
  onnx_node_attr_ints(N(m, "Conv", "c1", "img,w1", "a"), "strides", (int64_t[]){2, 2}, 2);
  N(m, "Relu", "r1", "a", "ar");
  onnx_node_attr_ints(N(m, "Conv", "c2", "ar,w2", "b"), "strides", (int64_t[]){2, 2}, 2);
  onnx_node_attr_ints(N(m, "Conv", "c3", "b,w3", "c"), "strides", (int64_t[]){2, 2}, 2);
  N(m, "Resize", "up", "c,,sc", "u");
  N(m, "Add", "add", "b,u", "y");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  ir_graph *g = build(m, 1);
  yrt_error err;
  char **names;
  int n;
  assert_int_equal(ir_stem_nodes(g, 4, &names, &n, &err), YRT_OK);
  assert_int_equal(n, 3); /* c1, r1, c2 */
  assert_string_equal(names[0], "c1");
  assert_string_equal(names[1], "r1");
  assert_string_equal(names[2], "c2");
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  assert_int_equal(ir_stem_nodes(g, 8, &names, &n, &err), YRT_OK);
  assert_int_equal(n, 6); /* everything: the graph never goes past stride 8 */
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  assert_int_equal(ir_stem_nodes(g, 1, &names, &n, &err), YRT_OK);
  assert_int_equal(n, 0);
  free(names);
  assert_int_equal(ir_stem_nodes(g, 0, &names, &n, &err), YRT_ERR_INVALID_ARG);
  ir_graph_free(g);
}


/* A Focus stem (YOLOv5 v1-5, YOLOX): image [1,3,16,16] -> Slice (rows 0::2) and Slice (rows
 * 1::2) -> Concat -> conv s2 -> conv s2 (stride 8 in all). The Slices and Concat copy the 8-bit
 * image: not in the stem; the convs from them are. */
static void test_stem_skips_image_copies(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "img", IR_F32, 4, (int64_t[]){1, 3, 16, 16});
  onnx_model_add_initializer(m, "s0", IR_I64, 1, (int64_t[]){1}, (int64_t[]){0});
  onnx_model_add_initializer(m, "s1", IR_I64, 1, (int64_t[]){1}, (int64_t[]){1});
  onnx_model_add_initializer(m, "en", IR_I64, 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
  onnx_model_add_initializer(m, "ax", IR_I64, 1, (int64_t[]){1}, (int64_t[]){2});
  onnx_model_add_initializer(m, "sp", IR_I64, 1, (int64_t[]){1}, (int64_t[]){2});
  float w1[6 * 6], w2[6 * 6];
  for (int i = 0; i < 36; i++) w1[i] = w2[i] = (i % 7 == 0) ? 1.0f : 0.0f;
  onnx_model_add_initializer(m, "w1", IR_F32, 4, (int64_t[]){6, 6, 1, 1}, w1);
  onnx_model_add_initializer(m, "w2", IR_F32, 4, (int64_t[]){6, 6, 1, 1}, w2);
  N(m, "Slice", "sa", "img,s0,en,ax,sp", "a");
  N(m, "Slice", "sb", "img,s1,en,ax,sp", "b");
  onnx_node_attr_int(N(m, "Concat", "cat", "a,b", "ab"), "axis", 1);
  onnx_node_attr_ints(N(m, "Conv", "c1", "ab,w1", "c"), "strides", (int64_t[]){1, 2}, 2);
  onnx_node_attr_ints(N(m, "Conv", "c2", "c,w2", "y"), "strides", (int64_t[]){2, 2}, 2);
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  ir_graph *g = build(m, 1);
  yrt_error err;
  char **names;
  int n;
  assert_int_equal(ir_stem_nodes(g, 8, &names, &n, &err), YRT_OK);
  assert_int_equal(n, 2);
  assert_string_equal(names[0], "c1");
  assert_string_equal(names[1], "c2");
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  ir_graph_free(g);
}

/* onnxruntime quantize_dynamic: DynamicQuantizeLinear -> ConvInteger (u8 per-channel weight zero
 * points) -> Cast -> Mul(., Mul(x_scale, w_scale)) -> Add(bias [1,C,1,1]) becomes one float Conv
 * with weights (Wq - Wzp) * w_scale and the bias; a second form it does not know is named. */
static void test_recover_integer_ops(void **state) {
  (void)state;
  for (int broken = 0; broken < 2; broken++) {
    Onnx__ModelProto *m = onnx_model_new(13);
    onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 1, 2, 2});
    onnx_model_add_initializer(m, "wq", IR_U8, 4, (int64_t[]){2, 1, 1, 1}, (uint8_t[]){130, 7});
    onnx_model_add_initializer(m, "wz", IR_U8, 1, (int64_t[]){2}, (uint8_t[]){128, 10});
    onnx_model_add_initializer(m, "ws", IR_F32, 1, (int64_t[]){2}, (float[]){0.5f, 0.25f});
    onnx_model_add_initializer(m, "b", IR_F32, 4, (int64_t[]){1, 2, 1, 1}, (float[]){1, -1});
    N(m, "DynamicQuantizeLinear", "dq", "x", "xq,xs,xz");
    N(m, "Mul", "smul", "xs,ws", "s");
    N(m, "ConvInteger", "conv", broken ? "xq,wq,,wz" : "xq,wq,xz,wz", "ci");
    Onnx__NodeProto *c = N(m, "Cast", "cast", "ci", "cf");
    onnx_node_attr_int(c, "to", 1);
    N(m, "Mul", "scale", "cf,s", "cs");
    N(m, "Add", "bias", "cs,b", "y");
    onnx_model_add_output(m, "y", IR_F32, -1, NULL);
    ir_graph *g = build(m, 0);
    yrt_error err = {{0}};
    assert_int_equal(ir_fold_constants(g, &err), YRT_OK);
    int n = -1;
    yrt_status st = ir_recover_integer_ops(g, &n, &err);
    if (broken) {
      assert_int_equal(st, YRT_ERR_UNSUPPORTED);
      assert_non_null(strstr(err.msg, "conv"));
      ir_graph_free(g);
      continue;
    }
    assert_int_equal(st, YRT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ir_compact(g, &err), YRT_OK);
    assert_int_equal(g->n_nodes, 1);
    const ir_node *cv = &g->nodes[0];
    assert_true(ir_node_is(cv, "Conv"));
    assert_int_equal(ir_attr_int(cv, "yolort.dynamic_quant", 0), 1);
    const ir_attr *wsa = ir_attr_get(cv, "yolort.dynamic_wscale"); /* the lowering's exact int8 grid */
    assert_non_null(wsa);
    assert_int_equal(wsa->n_floats, 2);
    assert_true(wsa->floats[0] == 0.5f && wsa->floats[1] == 0.25f);
    assert_string_equal(g->tensors[cv->in[0]].name, "x");
    assert_string_equal(g->tensors[cv->out[0]].name, "y");
    const ir_tensor *w = &g->tensors[cv->in[1]], *bt = &g->tensors[cv->in[2]];
    assert_true(fabs(ir_const_f64(w, 0) - 1.0) < 1e-6);  /* (130 - 128) * 0.5 */
    assert_true(fabs(ir_const_f64(w, 1) + 0.75) < 1e-6); /* (7 - 10) * 0.25 */
    assert_true(fabs(ir_const_f64(bt, 1) + 1.0) < 1e-6);
    assert_int_equal(ir_infer_shapes(g, &err), YRT_OK);
    SHAPE(g, "y", 1, 2, 2, 2);
    ir_graph_free(g);
  }
}

/* Issue 40: a dynamic-quant weight scale that is NaN, 0, negative, denormal or infinite is
 * refused as the QDQ path refuses it (it converted and detected garbage), naming the node. */
static void test_recover_integer_bad_scales(void **state) {
  (void)state;
  const float bad[] = {NAN, 0.0f, -0.25f, 1e-40f, INFINITY};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    Onnx__ModelProto *m = onnx_model_new(13);
    onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 1, 2, 2});
    onnx_model_add_initializer(m, "wq", IR_U8, 4, (int64_t[]){2, 1, 1, 1}, (uint8_t[]){130, 7});
    onnx_model_add_initializer(m, "wz", IR_U8, 1, (int64_t[]){2}, (uint8_t[]){128, 10});
    onnx_model_add_initializer(m, "ws", IR_F32, 1, (int64_t[]){2}, (float[]){0.5f, bad[k]});
    N(m, "DynamicQuantizeLinear", "dq", "x", "xq,xs,xz");
    N(m, "Mul", "smul", "xs,ws", "s");
    N(m, "ConvInteger", "conv", "xq,wq,xz,wz", "ci");
    Onnx__NodeProto *c = N(m, "Cast", "cast", "ci", "cf");
    onnx_node_attr_int(c, "to", 1);
    N(m, "Mul", "scale", "cf,s", "y");
    onnx_model_add_output(m, "y", IR_F32, -1, NULL);
    ir_graph *g = build(m, 0);
    yrt_error err = {{0}};
    assert_int_equal(ir_fold_constants(g, &err), YRT_OK);
    int n = -1;
    assert_int_equal(ir_recover_integer_ops(g, &n, &err), YRT_ERR_UNSUPPORTED);
    if (!strstr(err.msg, "'conv'") || !strstr(err.msg, "weight scale [1]")) fail_msg("message: %s", err.msg);
    ir_graph_free(g);
  }
}

static void test_name_matches(void **state) {
  (void)state;
  assert_true(ir_name_matches("/model.10/cv1/conv/Conv", "/model.10/*"));
  assert_true(ir_name_matches("/model.10/cv1/conv/Conv", "/model.10/cv1/conv/Conv"));
  assert_false(ir_name_matches("/model.1/conv/Conv", "/model.10/*"));
  assert_false(ir_name_matches("/model.10/cv1/conv/Conv", "/model.10/"));
  assert_true(ir_name_matches("anything", "*"));
  assert_false(ir_name_matches(NULL, "*"));
  assert_false(ir_name_matches("x", NULL));
  assert_true(ir_name_matches("a*", "a*")); /* a literal '*' in a name still matches as prefix */
}


/* Conv node c: depthwise over ch channels, weights [ch,1,kh,kw] all equal to 1/(kh*kw). */
static void expect_window_conv(const ir_graph *g, const ir_node *c, int64_t ch, int64_t kh, int64_t kw) {
  assert_true(ir_node_is_op(c, ONNX_OP_CONV));
  assert_int_equal(c->n_in, 2);
  assert_int_equal(ir_attr_int(c, "group", 0), ch);
  const ir_attr *ks = ir_attr_get(c, "kernel_shape");
  assert_true(ks && ks->n_ints == 2 && ks->ints[0] == kh && ks->ints[1] == kw);
  const ir_tensor *w = &g->tensors[c->in[1]];
  assert_int_equal(w->rank, 4);
  assert_true(w->dims[0] == ch && w->dims[1] == 1 && w->dims[2] == kh && w->dims[3] == kw);
  assert_non_null(w->data);
  for (int64_t i = 0; i < ch * kh * kw; i++)
    assert_true(((const float *)w->data)[i] == 1.0f / (float)(kh * kw));
}

static Onnx__NodeProto *avg_pool(Onnx__ModelProto *m, const char *name, const char *in, const char *out, int64_t k,
                                 int64_t s, int64_t pad, int64_t include_pad, int64_t ceil_mode) {
  Onnx__NodeProto *p = N(m, "AveragePool", name, in, out);
  onnx_node_attr_ints(p, "kernel_shape", (int64_t[]){k, k}, 2);
  onnx_node_attr_ints(p, "strides", (int64_t[]){s, s}, 2);
  if (pad) onnx_node_attr_ints(p, "pads", (int64_t[]){pad, pad, pad, pad}, 4);
  if (include_pad >= 0) onnx_node_attr_int(p, "count_include_pad", include_pad);
  if (ceil_mode) onnx_node_attr_int(p, "ceil_mode", 1);
  return p;
}

/* AveragePool / GlobalAveragePool as a depthwise Conv of 1/(kh*kw) weights where that is the
 * pool exactly (no padding, or padding counted; no partial ceil_mode window), else left. */
static void test_avgpool_as_conv(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 4, 6, 7});
  avg_pool(m, "adown", "x", "a", 2, 1, 0, -1, 0);      /* YOLOv9 ADown: 2x2 stride 1 */
  avg_pool(m, "padded", "x", "b", 3, 2, 1, 1, 0);      /* padding counted: exact */
  avg_pool(m, "excl", "x", "c", 3, 1, 1, 0, 0);        /* padding not counted: left */
  avg_pool(m, "ceil_cut", "x", "d", 2, 2, 0, -1, 1);   /* 7 wide: a cut last window: left */
  N(m, "Relu", "crop", "x", "xr");
  N(m, "GlobalAveragePool", "gap", "xr", "e");
  for (int i = 0; i < 5; i++) onnx_model_add_output(m, (const char *[]){"a", "b", "c", "d", "e"}[i], IR_F32, -1, NULL);
  ir_graph *g = build(m, 1);
  yrt_error err = {{0}};
  int n = -1;
  if (ir_avgpool_as_conv(g, &n, &err)) fail_msg("%s", err.msg);
  assert_int_equal(n, 3);
  SHAPE(g, "a", 1, 4, 5, 6);
  SHAPE(g, "b", 1, 4, 3, 4);
  SHAPE(g, "e", 1, 4, 1, 1);
  const ir_node *a = producer_of(g, "a"), *b = producer_of(g, "b"), *e = producer_of(g, "e");
  assert_string_equal(a->name, "adown"); /* --keep-fp32 names still match */
  expect_window_conv(g, a, 4, 2, 2);
  expect_window_conv(g, b, 4, 3, 3);
  const ir_attr *pads = ir_attr_get(b, "pads"), *st = ir_attr_get(b, "strides");
  assert_true(pads->n_ints == 4 && pads->ints[0] == 1 && pads->ints[3] == 1);
  assert_true(st->ints[0] == 2 && st->ints[1] == 2);
  expect_window_conv(g, e, 4, 6, 7);
  assert_true(ir_node_is_op(producer_of(g, "c"), ONNX_OP_AVERAGE_POOL));
  assert_true(ir_node_is_op(producer_of(g, "d"), ONNX_OP_AVERAGE_POOL));
  /* the convs' own shape rule gives the pools' shapes back */
  for (int i = 0; i < g->n_nodes; i++)
    if (!g->nodes[i].dead && ir_node_is_op(&g->nodes[i], ONNX_OP_CONV) && ir_infer_node(g, i, &err))
      fail_msg("%s", err.msg);
  SHAPE(g, "a", 1, 4, 5, 6);
  SHAPE(g, "b", 1, 4, 3, 4);
  SHAPE(g, "e", 1, 4, 1, 1);
  ir_graph_free(g);

  /* ceil_mode without a cut window (6 high, 8 wide at stride 2) is exact too */
  m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 2, 6, 8});
  avg_pool(m, "ceil_even", "x", "y", 2, 2, 0, 0, 1);
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  g = build(m, 1);
  if (ir_avgpool_as_conv(g, &n, &err)) fail_msg("%s", err.msg);
  assert_int_equal(n, 1);
  expect_window_conv(g, producer_of(g, "y"), 2, 2, 2);
  SHAPE(g, "y", 1, 2, 3, 4);
  ir_graph_free(g);

  /* QDQ: int8 weights 127 at scale 1/(127*k*k) through a DQ, read by ir_qdq_annotate as the
   * conv's symmetric int8 weights */
  m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, (int64_t[]){1, 3, 5, 5});
  onnx_model_add_initializer(m, "s", IR_F32, 0, NULL, (float[]){0.05f});
  onnx_model_add_initializer(m, "z", IR_I8, 0, NULL, (int8_t[]){3});
  N(m, "QuantizeLinear", "qx", "x,s,z", "xq");
  N(m, "DequantizeLinear", "dqx", "xq,s,z", "xd");
  avg_pool(m, "pool", "xd", "p", 2, 1, 0, -1, 0);
  N(m, "GlobalAveragePool", "gap", "xd", "gp");
  N(m, "QuantizeLinear", "qp", "p,s,z", "pq");
  N(m, "DequantizeLinear", "dqp", "pq,s,z", "y");
  N(m, "QuantizeLinear", "qg", "gp,s,z", "gq");
  N(m, "DequantizeLinear", "dqg", "gq,s,z", "y2");
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  onnx_model_add_output(m, "y2", IR_F32, -1, NULL);
  g = build(m, 1);
  if (ir_avgpool_as_conv(g, &n, &err)) fail_msg("%s", err.msg);
  assert_int_equal(n, 2);
  if (ir_qdq_annotate(g, &err)) fail_msg("%s", err.msg);
  assert_int_equal(ir_compact(g, &err), YRT_OK);
  const int64_t ks[2] = {2, 5};
  const char *outs[2] = {"y", "y2"}; /* the pools' outputs took the graph outputs' names */
  for (int k = 0; k < 2; k++) {
    const ir_node *c = producer_of(g, outs[k]);
    assert_true(ir_node_is_op(c, ONNX_OP_CONV));
    assert_int_equal(ir_attr_int(c, "group", 0), 3);
    const ir_tensor *w = &g->tensors[c->in[1]];
    assert_true(w->q.on && w->q.dtype == IR_I8 && w->q.zero_point == 0);
    assert_true(w->rank == 4 && w->dims[0] == 3 && w->dims[2] == ks[k] && w->dims[3] == ks[k]);
    const float sc = w->q.scales ? w->q.scales[0] : w->q.scale;
    assert_true(sc == 1.0f / (127.0f * (float)(ks[k] * ks[k])));
    for (int64_t i = 0; i < 3 * ks[k] * ks[k]; i++) {
      assert_int_equal(((const int8_t *)w->qdata)[i], 127);
      assert_true(fabsf(((const float *)w->data)[i] * (float)(ks[k] * ks[k]) - 1.0f) < 1e-6f);
    }
    assert_true(g->tensors[c->in[0]].q.on && g->tensors[c->out[0]].q.on);
  }
  ir_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fold_shape_chain), cmocka_unit_test(test_fold_arith_slice_transpose),
      cmocka_unit_test(test_shapes_ops),       cmocka_unit_test(test_split_variants),
      cmocka_unit_test(test_unsupported_op),   cmocka_unit_test(test_fold_batchnorm),
      cmocka_unit_test(test_qdq_annotate),     cmocka_unit_test(test_avgpool_as_conv),
          cmocka_unit_test(test_qdq_errors),
      cmocka_unit_test(test_qdq_q_of_constant),
      cmocka_unit_test(test_qdq_int16_activations), cmocka_unit_test(test_qdq_propagate),
      cmocka_unit_test(test_qdq_weight_variants), cmocka_unit_test(test_qoperator_layout),
      cmocka_unit_test(test_fp32_region),      cmocka_unit_test(test_fp32_region_attention),
      cmocka_unit_test(test_fp32_region_channel_shuffle),
      cmocka_unit_test(test_fp32_region_space_to_depth),
           cmocka_unit_test(test_name_matches),
      cmocka_unit_test(test_stem_nodes),       cmocka_unit_test(test_stem_skips_image_copies),
            cmocka_unit_test(test_recover_integer_ops), cmocka_unit_test(test_recover_integer_bad_scales),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
