/* test_convert_run.c — converted bytes run through the runtime: a Conv+SiLU graph (float, int8,
 * and int8 conv with a float SiLU) against a naive reference, and yolo11n-320 against
 * onnxruntime's output0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "test_data.h"
#include "yolort.h"
#include "yrt_view.h"

enum { CI = 3, CO = 4, H = 9, W = 7 };

/* x[1,3,9,7] -> Conv(4x3x3x3, pad 1, stride 1) -> SiLU -> z */
static ir_graph *graph(int quant, float *w, float *b) {
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  int64_t xd[4] = {1, CI, H, W}, wd[4] = {CO, CI, 3, 3}, yd[4] = {1, CO, H, W};
  for (int i = 0; i < CO * CI * 9; i++) w[i] = (float)((i * 37) % 17 - 8) / 24.0f;
  for (int i = 0; i < CO; i++) b[i] = 0.1f * (float)i - 0.15f;
  tb_conv_silu_ids t = tb_conv_silu(g, xd, wd, yd, w, b);
  if (quant) {
    tb_quant(g, t.x, 1.0f / 255.0f, -128);
    tb_quant_weights(g, t.w);
    memcpy(w, g->tensors[t.w].data, sizeof(float) * CO * CI * 9); /* dequantized weights */
    if (quant == 1) { /* onnxruntime's layout: every tensor quantized */
      tb_quant(g, t.y, 0.02f, 0);
      tb_quant(g, t.s, 1.0f / 256.0f, -128);
    }
    tb_quant(g, t.z, 0.02f, quant == 1 ? -12 : 0); /* QAT layout (2): conv input and z only */
  }
  return g;
}

static void reference(const float *x, const float *w, const float *b, float *z) {
  for (int o = 0; o < CO; o++)
    for (int yy = 0; yy < H; yy++)
      for (int xx = 0; xx < W; xx++) {
        double acc = b[o];
        for (int i = 0; i < CI; i++)
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
              int iy = yy + ky - 1, ix = xx + kx - 1;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              acc += (double)x[(i * H + iy) * W + ix] * w[((o * CI + i) * 3 + ky) * 3 + kx];
            }
        z[(o * H + yy) * W + xx] = (float)(acc / (1.0 + exp(-acc)));
      }
}

static float run(const void *buf, size_t size, const float *x, size_t nx, float *out,
                 size_t nout) {
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  yrt_error err;
  err.msg[0] = 0;
  if (yrt_model_load_memory(buf, size, 0, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  if (yrt_session_create(m, NULL, &s, &err) != YRT_OK) fail_msg("session: %s", err.msg);
  if (yrt_session_set_input(s, 0, x, nx, &err) != YRT_OK) fail_msg("input: %s", err.msg);
  if (yrt_session_run(s, &err) != YRT_OK) fail_msg("run: %s", err.msg);
  yrt_tensor_view v;
  if (yrt_session_output(s, 0, &v, &err) != YRT_OK) fail_msg("output: %s", err.msg);
  assert_int_equal(v.count, nout);
  memcpy(out, v.data, sizeof(float) * nout);
  yrt_session_free(s);
  yrt_model_free(m);
  return 0;
}

static void conv_silu(int quant, float tol) {
  yrt_convert_report rep;
  float w[CO * CI * 9], b[CO], x[CI * H * W], want[CO * H * W], got[CO * H * W];
  ir_graph *g = graph(quant, w, b);
  for (int i = 0; i < CI * H * W; i++) x[i] = (float)((i * 29) % 256) / 255.0f;
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK)
    fail_msg("convert: %s", err.msg);
  /* QAT: the conv output takes the SiLU-input quantization derived from z's: one int8 conv */
  assert_int_equal(rep.n_int8[YRT_OP_CONV2D], quant ? 1 : 0);
  assert_int_equal(rep.n_qat_propagated, quant == 2 ? 1 : 0);
  run(buf, size, x, CI * H * W, got, CO * H * W);
  reference(x, w, b, want);
  float worst = 0;
  for (int i = 0; i < CO * H * W; i++) {
    float d = fabsf(got[i] - want[i]);
    if (d > worst) worst = d;
  }
  print_message("conv+silu %s: max |diff| %g\n", quant == 2 ? "int8 (QAT)" : quant ? "int8" : "f32", worst);
  assert_true(worst <= tol);
  free(buf);
  ir_graph_free(g);
}

static void test_conv_silu_f32(void **state) {
  (void)state;
  conv_silu(0, 1e-4f);
}

static void test_conv_silu_i8(void **state) {
  (void)state;
  /* QDQ rounding: y at 0.02, sigmoid at 1/256, z at 0.02 -> a few LSB of 0.02 */
  conv_silu(1, 0.07f);
}

static void test_conv_silu_qat(void **state) {
  (void)state;
  /* z at 0.02 (symmetric), y at the derived scale: a few LSB of 0.02 */
  conv_silu(2, 0.07f);
}

/* Q/DQ on the conv's input and output only, the SiLU float (onnxruntime quantize_static on
 * YOLOv8: Conv -> Q -> DQ -> Sigmoid/Mul -> Split): z = silu(dq(q(conv(x)))). The conv output's
 * grid is coarse on purpose; skipping its rounding (a float conv with the SiLU fused) moves z by
 * up to half a step. */
static void test_conv_int8_silu_float(void **state) {
  (void)state;
  const float sx = 1.0f / 255.0f, sy = 0.25f;
  const int32_t zx = -128, zy = 3;
  float w[CO * CI * 9], b[CO], x[CI * H * W], want[CO * H * W], got[CO * H * W];
  ir_graph *g = graph(0, w, b);
  const int tx = ir_find_tensor(g, "x"), tw = ir_find_tensor(g, "w"), ty = ir_find_tensor(g, "y");
  assert_true(tx >= 0 && tw >= 0 && ty >= 0);
  tb_quant(g, tx, sx, zx);
  tb_quant_weights(g, tw);
  tb_quant(g, ty, sy, zy);
  const float *wd = g->tensors[tw].data, *sw = g->tensors[tw].q.scales;
  for (int i = 0; i < CI * H * W; i++) x[i] = (float)((i * 29) % 256) / 255.0f;
  for (int o = 0; o < CO; o++) {
    const double bs = (double)sx * sw[o], bq = nearbyint(b[o] / bs) * bs; /* int32 bias */
    for (int yy = 0; yy < H; yy++)
      for (int xx = 0; xx < W; xx++) {
        double acc = bq;
        for (int i = 0; i < CI; i++)
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
              int iy = yy + ky - 1, ix = xx + kx - 1;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              acc += (double)x[(i * H + iy) * W + ix] * wd[((o * CI + i) * 3 + ky) * 3 + kx];
            }
        double q = nearbyint(acc / sy) + zy;
        q = q < -128 ? -128 : (q > 127 ? 127 : q);
        const double v = (q - zy) * sy;
        want[(o * H + yy) * W + xx] = (float)(v / (1.0 + exp(-v)));
      }
  }
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  yrt_convert_report rep;
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  run(buf, size, x, CI * H * W, got, CO * H * W);
  float worst = 0;
  for (int i = 0; i < CO * H * W; i++) worst = fmaxf(worst, fabsf(got[i] - want[i]));
  print_message("int8 conv, float silu: max |diff| %g\n", worst);
  assert_true(worst <= 1e-5f);
  assert_int_equal(rep.n_int8[YRT_OP_CONV2D], 1); /* the conv itself runs int8 */
  free(buf);
  ir_graph_free(g);
}

/* Concat(v, u) along channels, v = conv2(u), u = conv1(x) (or Concat(u, v)), all int8 with the
 * Concat's parameters: u and v could each be written into the Concat's buffer, but not both (conv2
 * would read and write one buffer, which the loader rejects). Converted with and without views,
 * both load and give the same bytes. */
static ir_graph *self_holder_graph(int u_first) {
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  int64_t xd[4] = {1, 4, 6, 5}, wd[4] = {4, 4, 3, 3}, cd[4] = {1, 8, 6, 5}, pads[4] = {1, 1, 1, 1};
  float w1[144], w2[144];
  for (int i = 0; i < 144; i++) w1[i] = (float)((i * 37) % 17 - 8) / 24.0f, w2[i] = (float)((i * 13) % 19 - 9) / 30.0f;
  int x = tb_act(g, "x", 4, xd), u = tb_act(g, "u", 4, xd), v = tb_act(g, "v", 4, xd), cat = tb_act(g, "cat", 4, cd);
  int tw1 = tb_const(g, "w1", 4, wd, w1), tw2 = tb_const(g, "w2", 4, wd, w2);
  ir_graph_add_input(g, x);
  ir_graph_add_output(g, cat);
  int in1[2] = {x, tw1}, in2[2] = {u, tw2}, in3[2] = {u_first ? u : v, u_first ? v : u};
  ir_set_attr_ints(g, ir_add_node(g, "conv1", "Conv", in1, 2, &u, 1), "pads", pads, 4);
  ir_set_attr_ints(g, ir_add_node(g, "conv2", "Conv", in2, 2, &v, 1), "pads", pads, 4);
  ir_set_attr_int(g, ir_add_node(g, "concat", "Concat", in3, 2, &cat, 1), "axis", 1);
  tb_quant(g, x, 1.0f / 64.0f, 0);
  tb_quant_weights(g, tw1);
  tb_quant_weights(g, tw2);
  tb_quant(g, u, 0.05f, 3);
  tb_quant(g, v, 0.05f, 3);
  tb_quant(g, cat, 0.05f, 3);
  return g;
}

static void test_views_never_self_holding(void **state) {
  (void)state;
  float x[4 * 6 * 5], out[2][8 * 6 * 5];
  for (int i = 0; i < 4 * 6 * 5; i++) x[i] = (float)((i * 29) % 61) / 40.0f - 0.7f;
  for (int u_first = 0; u_first < 2; u_first++) {
    for (int nv = 0; nv < 2; nv++) {
      ir_graph *g = self_holder_graph(u_first);
      yrt_convert_options o;
      memset(&o, 0, sizeof o);
      o.no_views = nv;
      o.verbose = getenv("YT_VERBOSE") != NULL;
      yrt_convert_report rep;
      void *buf = NULL;
      size_t size = 0;
      yrt_error err;
      if (yrt_convert_graph(g, &o, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
      assert_int_equal(rep.n_views, nv ? 0 : 1);
      run(buf, size, x, 4 * 6 * 5, out[nv], 8 * 6 * 5);
      free(buf);
      ir_graph_free(g);
    }
    assert_memory_equal(out[0], out[1], sizeof out[0]);
  }
}

/* The whole-model comparisons against onnxruntime live in tests/accuracy. */

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_silu_f32),
      cmocka_unit_test(test_conv_silu_i8),
      cmocka_unit_test(test_conv_silu_qat),
      cmocka_unit_test(test_conv_int8_silu_float),
      cmocka_unit_test(test_views_never_self_holding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
