/* test_convert_lower.c — the converter back end on small IR graphs, checked structurally:
 * SiLU and Relu fusion, weight packing, int8 selection and its conversions, layout transposes where
 * logical order matters, Concat/Split in NHWC, fp32 exclusions, errors, memory plan. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "yrt_view.h"

static const float SY = 0.05f, SS = 1.0f / 255.0f, SZ = 0.04f;

/* x[1,3,8,8] -> Conv(4x3x3x3, pad 1) -> y; Sigmoid(y) -> s; Mul(y, s) -> z (output). */
static ir_graph *conv_silu_graph(int quant) {
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  int64_t xd[4] = {1, 3, 8, 8}, wd[4] = {4, 3, 3, 3}, yd[4] = {1, 4, 8, 8};
  float w[108], b[4] = {0.1f, -0.2f, 0.3f, 0.0f};
  for (int i = 0; i < 108; i++) w[i] = (float)((i * 37) % 17 - 8) / 16.0f;
  tb_conv_silu_ids t = tb_conv_silu(g, xd, wd, yd, w, b);
  int64_t ks[2] = {3, 3};
  ir_set_attr_ints(g, t.conv, "kernel_shape", ks, 2);
  if (quant) {
    tb_quant(g, t.x, 1.0f / 255.0f, -128);
    tb_quant_weights(g, t.w);
    tb_quant(g, t.y, SY, 10);
    tb_quant(g, t.s, SS, -128);
    tb_quant(g, t.z, SZ, -5);
  }
  return g;
}

/* Converts g (must succeed), opens the image in v and checks its plan; returns the image
 * (free()). */
static void *convert_ok(ir_graph *g, const yrt_convert_options *o, yrt_convert_report *rep, yv *v) {
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  err.msg[0] = 0;
  yrt_status st = yrt_convert_graph(g, o, &buf, &size, rep, &err);
  if (st != YRT_OK) fail_msg("convert failed: %s", err.msg);
  assert_int_equal(yv_open(v, buf, size), 0);
  assert_int_equal(yv_check_plan(v), 0);
  return buf;
}

/* Makes conv_silu_graph's output z an inner tensor again (returned), for tests that extend the
 * graph past it. */
static int unmark_output(ir_graph *g) {
  int z = g->outputs[0];
  g->tensors[z].is_output = 0;
  g->n_outputs = 0;
  return z;
}

static void test_f32_conv_silu_fused(void **state) {
  (void)state;
  ir_graph *g = conv_silu_graph(0);
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, NULL, &rep, &v);
  assert_int_equal(rep.n_fused_silu, 1);
  assert_int_equal(v.nn, 2);
  const yrt_node_rec *c = &v.n[0];
  assert_int_equal(c->op, YRT_OP_CONV2D);
  assert_int_equal(c->p[YRT_CONV_P_ACT], YRT_UNARY_SILU);
  assert_int_equal(c->p[YRT_CONV_P_LUT], -1);
  assert_int_equal(c->p[YRT_CONV_P_PAD_T], 1);
  assert_int_equal(c->p[YRT_CONV_P_KH], 3);
  assert_int_equal(c->n_in, 3);
  const yrt_tensor_rec *x = &v.t[c->in[0]], *w = &v.t[c->in[1]], *y = &v.t[c->out[0]];
  assert_int_equal(x->kind, YRT_TENSOR_INPUT);
  assert_int_equal(x->layout, YRT_LAYOUT_NHWC);
  assert_int_equal(x->dims[1], 8);
  assert_int_equal(x->dims[3], 3);
  assert_int_equal(y->layout, YRT_LAYOUT_NHWC);
  assert_int_equal(y->dims[3], 4);
  /* weights packed [Cout][kh][kw][Cin]: element (o=2, ky=1, kx=0, i=2) */
  const float *wp = (const float *)(v.weights + w->offset);
  int o = 2, ky = 1, kx = 0, i = 2;
  float want = (float)(((((o * 3 + i) * 3 + ky) * 3 + kx) * 37) % 17 - 8) / 16.0f;
  assert_float_equal(wp[((o * 3 + ky) * 3 + kx) * 3 + i], want, 0.0f);
  /* the output is PLAIN float, through a TRANSPOSE NHWC -> NCHW */
  const yrt_node_rec *tr = &v.n[1];
  assert_int_equal(tr->op, YRT_OP_TRANSPOSE);
  assert_int_equal(tr->p[1], 3);
  const yrt_tensor_rec *out = &v.t[v.io[v.plan->n_inputs]];
  assert_int_equal(out->kind, YRT_TENSOR_OUTPUT);
  assert_int_equal(out->layout, YRT_LAYOUT_PLAIN);
  assert_int_equal(out->dims[1], 4);
  assert_string_equal(yv_str(&v, out->name), "z");
  assert_int_equal(v.h->flags & YRT_FLAG_INT8, 0);
  assert_int_equal(v.meta->input_w, 8);
  free(buf);
  ir_graph_free(g);
}

static void test_i8_conv_silu_lut(void **state) {
  (void)state;
  ir_graph *g = conv_silu_graph(1);
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, NULL, &rep, &v);
  assert_int_equal(rep.n_fused_silu, 1);
  assert_true(v.h->flags & YRT_FLAG_INT8);
  /* QUANTIZE input, CONV2D i8 + LUT, TRANSPOSE i8, DEQUANTIZE to the float output */
  assert_int_equal(v.nn, 4);
  assert_int_equal(v.n[0].op, YRT_OP_QUANTIZE);
  const yrt_node_rec *c = &v.n[1];
  assert_int_equal(c->op, YRT_OP_CONV2D);
  const yrt_tensor_rec *y = &v.t[c->out[0]], *w = &v.t[c->in[1]], *b = &v.t[c->in[2]];
  assert_int_equal(y->dtype, YRT_I8);
  assert_float_equal(y->scale, SZ, 0);
  assert_int_equal(y->zero_point, -5);
  assert_int_equal(w->dtype, YRT_I8);
  assert_int_equal(w->n_scales, 4);
  assert_int_equal(b->dtype, YRT_I32);
  assert_int_equal(c->p[YRT_CONV_P_ACT], YRT_UNARY_NONE);
  int lut = c->p[YRT_CONV_P_LUT];
  assert_true(lut >= 0 && (uint32_t)lut < v.nt);
  assert_int_equal(v.t[lut].kind, YRT_TENSOR_CONST);
  assert_int_equal(v.t[lut].nbytes, 256);
  assert_float_equal(v.t[lut].scale, SY, 0); /* the conv requantizes to q(y) */
  /* bias recomputed at s_x * s_w[c] */
  const float *ws = (const float *)(v.weights + w->scales_offset);
  const int32_t *bq = (const int32_t *)(v.weights + b->offset);
  assert_int_equal(bq[1], (int32_t)nearbyintf(-0.2f / ((1.0f / 255.0f) * ws[1])));
  assert_int_equal(v.n[2].op, YRT_OP_TRANSPOSE);
  assert_int_equal(v.t[v.n[2].out[0]].dtype, YRT_I8);
  assert_int_equal(v.n[3].op, YRT_OP_DEQUANTIZE);
  assert_int_equal(rep.n_int8[YRT_OP_CONV2D], 1);
  free(buf);
  ir_graph_free(g);
}

/* W8A16: x and z1 annotated int16 (an int16 Q/DQ pair's annotation): conv1 (x int16) writes z1
 * int16 with its SiLU computed by the kernel (act SILU, no LUT); conv2 reads z1 int16 and writes
 * int8 through a SiLU LUT; with --keep-fp32 conv1 runs float and its output is quantized to int16. */
static ir_graph *conv16_graph(void) {
  ir_graph *g = ir_graph_new();
  g->opset = 21;
  int64_t xd[4] = {1, 3, 8, 8}, w1d[4] = {4, 3, 3, 3}, w2d[4] = {5, 4, 1, 1}, y1d[4] = {1, 4, 8, 8}, y2d[4] = {1, 5, 8, 8};
  float w1[108], w2[20], b1[4] = {0.1f, -0.2f, 0.3f, 0.0f}, b2[5] = {0.5f, 0.0f, -0.5f, 0.25f, 1.0f};
  for (int i = 0; i < 108; i++) w1[i] = (float)((i * 37) % 17 - 8) / 16.0f;
  for (int i = 0; i < 20; i++) w2[i] = (float)((i * 11) % 13 - 6) / 8.0f;
  const int64_t b1d[1] = {4}, b2d[1] = {5}, pads[4] = {1, 1, 1, 1};
  int x = tb_act(g, "x", 4, xd), wa = tb_const(g, "w1", 4, w1d, w1), ba = tb_const(g, "b1", 1, b1d, b1);
  int y1 = tb_act(g, "y1", 4, y1d), s1 = tb_act(g, "s1", 4, y1d), z1 = tb_act(g, "z1", 4, y1d);
  int wb = tb_const(g, "w2", 4, w2d, w2), bb = tb_const(g, "b2", 1, b2d, b2);
  int y2 = tb_act(g, "y2", 4, y2d), s2 = tb_act(g, "s2", 4, y2d), z2 = tb_act(g, "z2", 4, y2d);
  ir_graph_add_input(g, x);
  ir_graph_add_output(g, z2);
  int in1[3] = {x, wa, ba}, in2[3] = {z1, wb, bb}, m1[2] = {y1, s1}, m2[2] = {y2, s2};
  int c1 = ir_add_node(g, "conv1", "Conv", in1, 3, &y1, 1);
  ir_set_attr_ints(g, c1, "pads", pads, 4);
  ir_add_node(g, "sig1", "Sigmoid", &y1, 1, &s1, 1);
  ir_add_node(g, "mul1", "Mul", m1, 2, &z1, 1);
  ir_add_node(g, "conv2", "Conv", in2, 3, &y2, 1);
  ir_add_node(g, "sig2", "Sigmoid", &y2, 1, &s2, 1);
  ir_add_node(g, "mul2", "Mul", m2, 2, &z2, 1);
  tb_quant(g, x, 1.0f / 32767.0f, 0);
  g->tensors[x].q.dtype = IR_I16;
  tb_quant(g, z1, 4.0f / 32767.0f, 0);
  g->tensors[z1].q.dtype = IR_I16;
  tb_quant_weights(g, wa);
  tb_quant_weights(g, wb);
  tb_quant(g, y2, SY, 10);
  tb_quant(g, s2, SS, -128);
  tb_quant(g, z2, SZ, -5);
  return g;
}

static void test_i16_conv_chain(void **state) {
  (void)state;
  ir_graph *g = conv16_graph();
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, NULL, &rep, &v);
  assert_int_equal(rep.n_conv16, 2);
  int convs = 0;
  for (uint32_t i = 0; i < v.nn; i++) {
    const yrt_node_rec *n = &v.n[i];
    if (n->op == YRT_OP_QUANTIZE && convs == 0) assert_int_equal(v.t[n->out[0]].dtype, YRT_I16);
    if (n->op != YRT_OP_CONV2D) continue;
    const yrt_tensor_rec *x = &v.t[n->in[0]], *y = &v.t[n->out[0]], *b = &v.t[n->in[2]];
    assert_int_equal(x->dtype, YRT_I16);
    assert_int_equal(b->dtype, YRT_I32);
    const int32_t *bq = (const int32_t *)(v.weights + b->offset);
    for (int32_t c = 0; c < b->dims[0]; c++) assert_true(bq[c] <= 1073741823 && bq[c] >= -1073741823);
    if (convs++ == 0) { /* int16 out, the SiLU in the kernel */
      assert_int_equal(y->dtype, YRT_I16);
      assert_int_equal(y->zero_point, 0);
      assert_float_equal(y->scale, 4.0f / 32767.0f, 0);
      assert_int_equal(n->p[YRT_CONV_P_ACT], YRT_UNARY_SILU);
      assert_int_equal(n->p[YRT_CONV_P_LUT], -1);
    } else { /* int8 out through the SiLU table */
      assert_int_equal(y->dtype, YRT_I8);
      assert_float_equal(y->scale, SZ, 0);
      assert_int_equal(n->p[YRT_CONV_P_ACT], YRT_UNARY_NONE);
      assert_true(n->p[YRT_CONV_P_LUT] >= 0);
    }
  }
  assert_int_equal(convs, 2);
  free(buf);
  ir_graph_free(g);
  /* conv1 kept in float: it reads the float x, its output quantized to int16 for conv2 */
  g = conv16_graph();
  const char *keep[] = {"conv1", NULL};
  yrt_convert_options o = {0};
  o.keep_fp32 = keep;
  buf = convert_ok(g, &o, &rep, &v);
  assert_int_equal(rep.n_conv16, 1);
  int q16 = 0, dq16 = 0;
  for (uint32_t i = 0; i < v.nn; i++) {
    if (v.n[i].op == YRT_OP_QUANTIZE && v.t[v.n[i].out[0]].dtype == YRT_I16) q16++;
    if (v.n[i].op == YRT_OP_DEQUANTIZE && v.t[v.n[i].in[0]].dtype == YRT_I16) dq16++;
  }
  assert_int_equal(q16, 1);  /* conv1's float output, for conv2 (x is read as given: no round trip) */
  assert_int_equal(dq16, 0);
  free(buf);
  ir_graph_free(g);
}

static void test_keep_fp32_excludes(void **state) {
  (void)state;
  ir_graph *g = conv_silu_graph(1);
  const char *keep[] = {"conv", NULL};
  yrt_convert_options o;
  memset(&o, 0, sizeof o);
  o.keep_fp32 = keep;
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, &o, &rep, &v);
  int c = yv_find_op(&v, YRT_OP_CONV2D, 0);
  assert_true(c >= 0);
  assert_int_equal(v.t[v.n[c].out[0]].dtype, YRT_F32);
  assert_int_equal(v.n[c].p[YRT_CONV_P_ACT], YRT_UNARY_SILU);
  assert_int_equal(rep.n_int8_nodes, 0);
  int found = 0;
  for (int i = 0; i < rep.n_notes; i++)
    if (strcmp(rep.fp32[i].node, "conv") == 0 && strcmp(rep.fp32[i].reason, "excluded") == 0)
      found = 1;
  assert_true(found);
  free(buf);
  ir_graph_free(g);
}

/* Conv -> Reshape [1,4,64] -> output: the reshape must see logical NCHW order. */
static void test_reshape_gets_plain_input(void **state) {
  (void)state;
  ir_graph *g = conv_silu_graph(0);
  int z = unmark_output(g);
  int64_t rd[3] = {1, 4, 64}, shape[3] = {1, 4, 64};
  int sh = tb_const_i64(g, "shape", 3, shape);
  int r = tb_act(g, "r", 3, rd);
  int in[2] = {z, sh};
  ir_add_node(g, "reshape", "Reshape", in, 2, &r, 1);
  ir_graph_add_output(g, r);
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, NULL, &rep, &v);
  int k = yv_find_op(&v, YRT_OP_RESHAPE, 0);
  assert_true(k > 0);
  const yrt_tensor_rec *rin = &v.t[v.n[k].in[0]];
  assert_int_equal(rin->layout, YRT_LAYOUT_PLAIN);
  assert_int_equal(rin->dims[1], 4);
  assert_int_equal(v.n[k - 1].op, YRT_OP_TRANSPOSE);
  assert_int_equal(v.t[v.n[k].out[0]].kind, YRT_TENSOR_OUTPUT);
  free(buf);
  ir_graph_free(g);
}

/* Conv -> Split(axis 1: 1+3) -> Concat(b, a) -> Conv 1x1 -> output: all NHWC, no transposes
 * but the final one; axis 1 becomes physical axis 3. */
static void test_split_concat_stay_nhwc(void **state) {
  (void)state;
  ir_graph *g = conv_silu_graph(0);
  int z = unmark_output(g);
  int64_t ad[4] = {1, 1, 8, 8}, bd[4] = {1, 3, 8, 8}, cd[4] = {1, 4, 8, 8}, w2d[4] = {2, 4, 1, 1},
          od[4] = {1, 2, 8, 8};
  int a = tb_act(g, "a", 4, ad), b = tb_act(g, "b2", 4, bd), cat = tb_act(g, "cat", 4, cd);
  int outs[2] = {a, b};
  int sp = ir_add_node(g, "split", "Split", &z, 1, outs, 2);
  ir_set_attr_int(g, sp, "axis", 1);
  int64_t split[2] = {1, 3};
  ir_set_attr_ints(g, sp, "split", split, 2);
  int ba[2] = {b, a};
  int cn = ir_add_node(g, "concat", "Concat", ba, 2, &cat, 1);
  ir_set_attr_int(g, cn, "axis", 1);
  float w2[8] = {1, 0, 0, 0, 0, 1, 0, 0};
  int w2t = tb_const(g, "w2", 4, w2d, w2);
  int o = tb_act(g, "o", 4, od);
  int ci[2] = {cat, w2t};
  ir_add_node(g, "conv2", "Conv", ci, 2, &o, 1);
  ir_graph_add_output(g, o);
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, NULL, &rep, &v);
  assert_int_equal(yv_count_op(&v, YRT_OP_TRANSPOSE), 1);
  assert_int_equal(yv_count_op(&v, YRT_OP_SLICE), 2);
  int s1 = yv_find_op(&v, YRT_OP_SLICE, 0);
  int s2 = yv_find_op(&v, YRT_OP_SLICE, s1 + 1);
  assert_int_equal(v.n[s1].p[3], 0);
  assert_int_equal(v.n[s2].p[3], 1); /* second output starts at channel 1 */
  assert_int_equal(v.t[v.n[s2].out[0]].dims[3], 3);
  int k = yv_find_op(&v, YRT_OP_CONCAT, 0);
  assert_int_equal(v.n[k].p[0], 3);
  assert_int_equal(v.t[v.n[k].out[0]].layout, YRT_LAYOUT_NHWC);
  free(buf);
  ir_graph_free(g);
}

/* Conv -> Split(axis 1: 1+3) -> Concat(a, b, b) (C2f's cat of the chunks and a branch): the
 * in-order run (a, b) is read as the Split input, so only b's slice (read twice) is lowered. */
static void test_split_concat_rejoined(void **state) {
  (void)state;
  ir_graph *g = conv_silu_graph(0);
  int z = unmark_output(g);
  int64_t ad[4] = {1, 1, 8, 8}, bd[4] = {1, 3, 8, 8}, cd[4] = {1, 7, 8, 8};
  int a = tb_act(g, "a", 4, ad), b = tb_act(g, "b2", 4, bd), cat = tb_act(g, "cat", 4, cd);
  int outs[2] = {a, b};
  int sp = ir_add_node(g, "split", "Split", &z, 1, outs, 2);
  ir_set_attr_int(g, sp, "axis", 1);
  int64_t split[2] = {1, 3};
  ir_set_attr_ints(g, sp, "split", split, 2);
  int abb[3] = {a, b, b};
  int cn = ir_add_node(g, "concat", "Concat", abb, 3, &cat, 1);
  ir_set_attr_int(g, cn, "axis", 1);
  ir_graph_add_output(g, cat);
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, NULL, &rep, &v);
  assert_int_equal(rep.n_split_concat, 1);
  assert_int_equal(yv_count_op(&v, YRT_OP_SLICE), 1);
  int k = yv_find_op(&v, YRT_OP_CONCAT, 0);
  assert_int_equal(v.n[k].n_in, 2);
  assert_int_equal(v.t[v.n[k].in[0]].dims[3], 4); /* the whole Split input */
  assert_int_equal(v.t[v.n[k].in[1]].dims[3], 3);
  free(buf);
  ir_graph_free(g);
}

/* A long chain with a skip connection: the plan reuses memory and never overlaps live data. */
static void test_memory_plan_reuses(void **state) {
  (void)state;
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  int64_t d[4] = {1, 8, 16, 16}, wd[4] = {8, 8, 1, 1};
  float w[64];
  for (int i = 0; i < 64; i++) w[i] = (i % 9 == 0) ? 0.5f : 0.01f;
  int x = tb_act(g, "x", 4, d);
  ir_graph_add_input(g, x);
  int prev = x, skip = -1;
  char name[32];
  for (int i = 0; i < 8; i++) {
    snprintf(name, sizeof name, "w%d", i);
    int wt = tb_const(g, name, 4, wd, w);
    snprintf(name, sizeof name, "c%d", i);
    int y = tb_act(g, name, 4, d);
    int in[2] = {prev, wt};
    ir_add_node(g, name, "Conv", in, 2, &y, 1);
    if (i == 2) skip = y;
    prev = y;
    if (i == 6) {
      int s = tb_act(g, "sum", 4, d);
      int ab[2] = {y, skip};
      ir_add_node(g, "add", "Add", ab, 2, &s, 1);
      prev = s;
    }
  }
  ir_graph_add_output(g, prev);
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, NULL, &rep, &v);
  uint64_t one = 8 * 16 * 16 * 4, total = 0;
  for (uint32_t i = 0; i < v.nt; i++)
    if (v.t[i].kind != YRT_TENSOR_CONST) total += v.t[i].nbytes;
  assert_true(v.plan->arena_bytes < total);     /* something was reused */
  assert_true(v.plan->arena_bytes >= 4 * one);  /* in, out, skip + one live pair at least */
  assert_int_equal(rep.arena_bytes, v.plan->arena_bytes);
  free(buf);
  ir_graph_free(g);
}

static void test_unsupported_op_named(void **state) {
  (void)state;
  ir_graph *g = conv_silu_graph(0);
  int z = unmark_output(g);
  int64_t d[4] = {1, 4, 8, 8};
  int r = tb_act(g, "r", 4, d);
  ir_add_node(g, "weird_node", "Hardmax", &z, 1, &r, 1);
  ir_graph_add_output(g, r);
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  err.msg[0] = 0;
  yrt_status st = yrt_convert_graph(g, NULL, &buf, &size, NULL, &err);
  assert_int_not_equal(st, YRT_OK);
  assert_null(buf);
  assert_non_null(strstr(err.msg, "weird_node"));
  assert_non_null(strstr(err.msg, "Hardmax"));
  ir_graph_free(g);
}

/* x[1,3,8,8] -> Conv(4x3x3x3, pad 1) -> y -> op (Relu / LeakyRelu alpha 0.1) -> z (output);
 * quant: x, w, y, z quantized (qz 0: z left float). */
static ir_graph *conv_act_graph(int quant, const char *op, int qz) {
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  int64_t xd[4] = {1, 3, 8, 8}, wd[4] = {4, 3, 3, 3}, yd[4] = {1, 4, 8, 8}, bd[1] = {4}, ks[2] = {3, 3};
  const int64_t pads[4] = {1, 1, 1, 1};
  float w[108], b[4] = {0.1f, -0.2f, 0.3f, 0.0f};
  for (int i = 0; i < 108; i++) w[i] = (float)((i * 37) % 17 - 8) / 16.0f;
  int x = tb_act(g, "x", 4, xd), wt = tb_const(g, "w", 4, wd, w), bt = tb_const(g, "b", 1, bd, b);
  int y = tb_act(g, "y", 4, yd), z = tb_act(g, "z", 4, yd);
  ir_graph_add_input(g, x);
  ir_graph_add_output(g, z);
  int in[3] = {x, wt, bt};
  int conv = ir_add_node(g, "conv", "Conv", in, 3, &y, 1);
  ir_set_attr_ints(g, conv, "pads", pads, 4);
  ir_set_attr_ints(g, conv, "kernel_shape", ks, 2);
  int a = ir_add_node(g, "act", op, &y, 1, &z, 1);
  if (!strcmp(op, "LeakyRelu")) ir_set_attr_float(g, a, "alpha", 0.1f);
  if (quant) {
    tb_quant(g, x, 1.0f / 255.0f, -128);
    tb_quant_weights(g, wt);
    tb_quant(g, y, SY, 10);
    if (qz) tb_quant(g, z, SZ, -5);
  }
  return g;
}

/* Conv -> Relu, float: the conv's output clamp (act RELU), no UNARY node; a float LeakyRelu
 * (the conv's activation pass has no alpha) stays a node. */
static void test_f32_conv_relu_fused(void **state) {
  (void)state;
  ir_graph *g = conv_act_graph(0, "Relu", 0);
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, NULL, &rep, &v);
  assert_int_equal(rep.n_fused_act, 1);
  assert_int_equal(v.nn, 2);
  assert_int_equal(v.n[0].op, YRT_OP_CONV2D);
  assert_int_equal(v.n[0].p[YRT_CONV_P_ACT], YRT_UNARY_RELU);
  assert_int_equal(v.n[0].p[YRT_CONV_P_LUT], -1);
  assert_int_equal(yv_count_op(&v, YRT_OP_UNARY), 0);
  free(buf);
  ir_graph_free(g);
  g = conv_act_graph(0, "LeakyRelu", 0);
  buf = convert_ok(g, NULL, &rep, &v);
  assert_int_equal(rep.n_fused_act, 0);
  assert_int_equal(yv_count_op(&v, YRT_OP_UNARY), 1);
  free(buf);
  ir_graph_free(g);
}

/* Conv -> Relu / LeakyRelu, int8 both: the activation's table becomes the conv's LUT (indexed
 * in q(y), mapping to q(z)), no LUT node; the table is the one the LUT node had. */
static void test_i8_conv_relu_lut(void **state) {
  (void)state;
  const char *ops[2] = {"Relu", "LeakyRelu"};
  for (int k = 0; k < 2; k++) {
    ir_graph *g = conv_act_graph(1, ops[k], 1);
    yrt_convert_report rep;
    yv v;
    void *buf = convert_ok(g, NULL, &rep, &v);
    assert_int_equal(rep.n_fused_act, 1);
    assert_int_equal(yv_count_op(&v, YRT_OP_LUT), 0);
    int ci = yv_find_op(&v, YRT_OP_CONV2D, 0);
    assert_true(ci >= 0);
    const yrt_node_rec *c = &v.n[ci];
    const yrt_tensor_rec *y = &v.t[c->out[0]];
    assert_int_equal(y->dtype, YRT_I8);
    assert_float_equal(y->scale, SZ, 0);
    assert_int_equal(y->zero_point, -5);
    assert_int_equal(c->p[YRT_CONV_P_ACT], YRT_UNARY_NONE);
    int lut = c->p[YRT_CONV_P_LUT];
    assert_true(lut >= 0 && (uint32_t)lut < v.nt);
    assert_float_equal(v.t[lut].scale, SY, 0); /* the conv requantizes to q(y) */
    assert_int_equal(v.t[lut].zero_point, 10);
    const int8_t *tab = (const int8_t *)(v.weights + v.t[lut].offset);
    for (int q = -128; q < 128; q++) { /* relu / leaky of the dequantized value, requantized */
      const float xv = SY * (float)(q - 10), r = xv > 0 ? xv : (k ? 0.1f * xv : 0.0f);
      float want = nearbyintf(r / SZ) - 5;
      want = want < -128 ? -128 : want > 127 ? 127 : want;
      assert_true(fabsf((float)tab[q + 128] - want) <= 1.0f);
    }
    free(buf);
    ir_graph_free(g);
  }
}

/* An int8 conv whose activation output stays float: not fused (the conv writes q(y), the Relu
 * reads its dequantized form, as the graph says). */
static void test_i8_conv_float_relu_not_fused(void **state) {
  (void)state;
  ir_graph *g = conv_act_graph(1, "Relu", 0);
  yrt_convert_report rep;
  yv v;
  void *buf = convert_ok(g, NULL, &rep, &v);
  assert_int_equal(rep.n_fused_act, 0);
  assert_int_equal(yv_count_op(&v, YRT_OP_UNARY), 1);
  free(buf);
  ir_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f32_conv_silu_fused),
      cmocka_unit_test(test_i8_conv_silu_lut),
      cmocka_unit_test(test_i16_conv_chain),
      cmocka_unit_test(test_keep_fp32_excludes),
      cmocka_unit_test(test_reshape_gets_plain_input),
      cmocka_unit_test(test_split_concat_stay_nhwc),
      cmocka_unit_test(test_split_concat_rejoined),
      cmocka_unit_test(test_memory_plan_reuses),
      cmocka_unit_test(test_unsupported_op_named),
      cmocka_unit_test(test_f32_conv_relu_fused),
      cmocka_unit_test(test_i8_conv_relu_lut),
      cmocka_unit_test(test_i8_conv_float_relu_not_fused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
