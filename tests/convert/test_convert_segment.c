/* test_convert_segment.c — a segment model's structure on small graphs (issue 36 item 3):
 * x [1, 3, 8, 8] -> Reshape -> output0 [1, 4 + nc + nm, 24] (the coefficient rows), Sigmoid(x) ->
 * output1 [1, nm = 3, 8, 8] (the prototypes), task "segment". It converts and loads with
 * yrt_model_mask_channels 3 when output0's rows are 4 + nc + 3; a look-alike head whose rows do not
 * split into nc classes + one coefficient per prototype is refused at convert and, written
 * anyway (META edited), at load; yrt_session_mask's refusals; ConvTranspose through the converter
 * and the runtime against a double-precision transcription of the ONNX definition (float weights, and
 * int8 weights behind a per-channel DequantizeLinear). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "yolort.h"
#include "yolort_format.h"
#include "yrt_view.h"

/* names: one per line (nc = lines); NULL: none, nc from output0's rows less output1's channels */
static ir_graph *seg_graph(const char *names, int64_t rows) {
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  g->task = ir_strdup("segment");
  if (names) g->class_names = ir_strdup(names);
  const int64_t xd[4] = {1, 3, 8, 8}, yd[3] = {1, rows, 192 / rows}, shape[3] = {1, rows, 192 / rows};
  const int x = tb_act(g, "images", 4, xd), sh = tb_const_i64(g, "shape", 3, shape);
  const int y0 = tb_act(g, "output0", 3, yd), y1 = tb_act(g, "output1", 4, xd);
  const int rin[2] = {x, sh};
  ir_add_node(g, "reshape", "Reshape", rin, 2, &y0, 1);
  ir_add_node(g, "proto", "Sigmoid", &x, 1, &y1, 1);
  ir_graph_add_input(g, x);
  ir_graph_add_output(g, y0);
  ir_graph_add_output(g, y1);
  return g;
}

static void test_segment_structure(void **state) {
  (void)state;
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  yrt_convert_report rep;
  /* 8 rows = 4 + 1 class + 3 coefficients: masks */
  ir_graph *g = seg_graph("a", 8);
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  ir_graph_free(g);
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  if (yrt_model_load_memory(buf, size, 1, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  assert_int_equal(yrt_model_mask_channels(m), 3);
  if (yrt_session_create(m, NULL, &s, &err) != YRT_OK) fail_msg("session: %s", err.msg);
  uint8_t mask[64];
  assert_int_equal(yrt_session_mask(s, 0, mask, 8, 8, 8, &err), YRT_ERR_UNSUPPORTED); /* no detect yet */
  assert_non_null(strstr(err.msg, "yrt_session_detect"));
  assert_int_equal(yrt_session_mask(NULL, 0, mask, 8, 8, 8, &err), YRT_ERR_INVALID_ARG);
  yrt_session_free(s);
  yrt_model_free(m);
  free(buf);
  /* without names (nc from the rows less the prototypes), then META edited to 2 classes: 8 rows
   * = 4 + 2 + 2 coefficients for 3 prototypes */
  g = seg_graph(NULL, 8);
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  ir_graph_free(g);
  yrt_file_view im;
  assert_int_equal(yrt_file_map(buf, size, &im, &err), YRT_OK);
  yrt_meta_rec *meta = (yrt_meta_rec *)((uint8_t *)buf + ((const uint8_t *)im.meta - (const uint8_t *)buf));
  meta->num_classes = 2;
  yrt_file_seal(buf, size);
  assert_int_equal(yrt_model_load_memory(buf, size, 1, &m, &err), YRT_ERR_FORMAT);
  print_message("load: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "prototypes"));
  free(buf);
  /* a look-alike at convert: 2 classes named, 8 rows */
  g = seg_graph("a\nb", 8);
  assert_int_not_equal(yrt_convert_graph(g, NULL, &buf, &size, &rep, &err), YRT_OK);
  print_message("convert: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "mask coefficients"));
  ir_graph_free(g);
  /* 12 rows, 1 class: 7 coefficients for 3 prototypes */
  g = seg_graph("a", 12);
  assert_int_not_equal(yrt_convert_graph(g, NULL, &buf, &size, &rep, &err), YRT_OK);
  assert_non_null(strstr(err.msg, "mask coefficients"));
  ir_graph_free(g);
}

/* A QuantizeLinear -> DequantizeLinear pair (int8, scale sc, zero point zp) from t; returns the
 * DequantizeLinear's output. */
static int qdq_pair(ir_graph *g, int t, const char *name, float sc, int8_t zp) {
  char nm[64];
  const int64_t one = 1;
  snprintf(nm, sizeof nm, "%s_s", name);
  const int ts = tb_const(g, nm, 0, &one, &sc);
  snprintf(nm, sizeof nm, "%s_z", name);
  const int tz = ir_add_tensor(g, nm, IR_I8);
  ir_tensor_set_shape(&g->tensors[tz], 0, &one);
  ir_tensor_set_data(&g->tensors[tz], &zp, 1);
  const ir_tensor *T = &g->tensors[t];
  snprintf(nm, sizeof nm, "%s_q", name);
  const int tq = ir_add_tensor(g, nm, IR_I8);
  ir_tensor_set_shape(&g->tensors[tq], T->rank, T->dims);
  snprintf(nm, sizeof nm, "%s_dq", name);
  const int td = tb_act(g, nm, g->tensors[t].rank, g->tensors[t].dims);
  const int qi[3] = {t, ts, tz}, di[3] = {tq, ts, tz};
  snprintf(nm, sizeof nm, "%s_Q", name);
  ir_add_node(g, nm, "QuantizeLinear", qi, 3, &tq, 1);
  snprintf(nm, sizeof nm, "%s_DQ", name);
  ir_add_node(g, nm, "DequantizeLinear", di, 3, &td, 1);
  return td;
}

/* onnxruntime's QuantizeLinear: round half to even of v / s, plus the zero point, saturated. */
static int q8(double v, float s, int zp) {
  const double r = nearbyint((double)(float)(v / s)) + zp;
  return r < -128 ? -128 : r > 127 ? 127 : (int)r;
}

/* ConvTranspose [1, CI, H, W] -> [1, CO, OH, OW] through the converter and the runtime; qdq 1: the
 * weights as int8 behind a DequantizeLinear with per-channel scales on axis 1 (onnxruntime's QDQ
 * form of ConvTranspose weights), the reference using the dequantized values; qdq 2: x and y too
 * between QuantizeLinear / DequantizeLinear pairs, so the node runs int8 (CONV_TRANSPOSE.i8): the
 * output within one quantization step of the float reference rounded to y's grid, from x rounded
 * to its grid. */
static void convt_case_q(int ci, int h, int w, int co, int group, int kh, int kw, int sh, int sw, const int64_t *pads,
                         int dh, int dw, const int64_t *out_pad, int qdq) {
  const int cog = co / group, cig = ci / group;
  const int oh = (h - 1) * sh - (int)pads[0] - (int)pads[2] + (kh - 1) * dh + 1 + (int)out_pad[0];
  const int ow = (w - 1) * sw - (int)pads[1] - (int)pads[3] + (kw - 1) * dw + 1 + (int)out_pad[1];
  const size_t nx = (size_t)ci * h * w, nw = (size_t)ci * cog * kh * kw, ny = (size_t)co * oh * ow;
  float *x = malloc(nx * 4), *wt = malloc(nw * 4), *b = malloc((size_t)co * 4);
  assert_non_null(x); assert_non_null(wt); assert_non_null(b);
  for (size_t i = 0; i < nx; i++) x[i] = (float)((i * 37) % 17) / 8.0f - 1.0f;
  int8_t *wq = malloc(nw);
  float *ws = malloc((size_t)cog * 4);
  assert_non_null(wq); assert_non_null(ws);
  for (int o = 0; o < cog; o++) ws[o] = 0.01f * (float)(o + 1);
  for (size_t i = 0; i < nw; i++) {
    wq[i] = (int8_t)((int)((i * 29) % 255) - 127);
    /* [ci][cog][kh][kw]: the output channel is axis 1 */
    wt[i] = qdq ? (float)wq[i] * ws[(i / ((size_t)kh * kw)) % (size_t)cog] : (float)((i * 11) % 13) / 6.0f - 1.0f;
  }
  for (int i = 0; i < co; i++) b[i] = 0.25f * (float)i - 0.5f;
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  const int64_t xd[4] = {1, ci, h, w}, wd[4] = {ci, cog, kh, kw}, bd[1] = {co}, yd[4] = {1, co, oh, ow};
  const float sx = 2.0f / 255.0f, sy = 0.05f;
  const int8_t zx = 3, zy = -5;
  const int tx = tb_act(g, "x", 4, xd), tbias = tb_const(g, "b", 1, bd, b);
  if (qdq == 2) /* the reference reads x on its int8 grid */
    for (size_t i = 0; i < nx; i++) x[i] = (float)((q8(x[i], sx, zx) - zx) * (double)sx);
  const int txi = qdq == 2 ? qdq_pair(g, tx, "xq", sx, zx) : tx;
  int tw;
  if (qdq) {
    const int64_t sd[1] = {cog};
    const int q = ir_add_tensor(g, "wq", IR_I8), z = ir_add_tensor(g, "wz", IR_I8), sc = tb_const(g, "ws", 1, sd, ws);
    int8_t zeros[256] = {0};
    assert_true(cog <= 256);
    ir_tensor_set_shape(&g->tensors[q], 4, wd);
    ir_tensor_set_data(&g->tensors[q], wq, nw);
    ir_tensor_set_shape(&g->tensors[z], 1, sd);
    ir_tensor_set_data(&g->tensors[z], zeros, (size_t)cog);
    tw = tb_act(g, "w", 4, wd);
    const int dq_in[3] = {q, sc, z};
    const int dq = ir_add_node(g, "w_dq", "DequantizeLinear", dq_in, 3, &tw, 1);
    ir_set_attr_int(g, dq, "axis", 1);
  } else {
    tw = tb_const(g, "w", 4, wd, wt);
  }
  const int ty = tb_act(g, qdq == 2 ? "y_f" : "y", 4, yd);
  const int in[3] = {txi, tw, tbias};
  const int n = ir_add_node(g, "up", "ConvTranspose", in, 3, &ty, 1);
  const int64_t st[2] = {sh, sw}, dl[2] = {dh, dw};
  ir_set_attr_ints(g, n, "strides", st, 2);
  ir_set_attr_ints(g, n, "dilations", dl, 2);
  ir_set_attr_ints(g, n, "pads", pads, 4);
  ir_set_attr_ints(g, n, "output_padding", out_pad, 2);
  ir_set_attr_int(g, n, "group", group);
  ir_graph_add_input(g, tx);
  ir_graph_add_output(g, qdq == 2 ? qdq_pair(g, ty, "yq", sy, zy) : ty);
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  yrt_convert_report rep;
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  ir_graph_free(g);
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  if (yrt_model_load_memory(buf, size, 1, &m, &err) || yrt_session_create(m, NULL, &s, &err)) fail_msg("%s", err.msg);
  int found_i8 = 0;
  for (int k = 0; yrt_session_node_kind(s, k); k++) found_i8 |= !strcmp(yrt_session_node_kind(s, k), "conv_transpose.i8");
  assert_int_equal(found_i8, qdq == 2);
  if (yrt_session_set_input(s, 0, x, nx, &err) || yrt_session_run(s, &err)) fail_msg("run: %s", err.msg);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
  assert_int_equal(v.count, ny);
  for (int o = 0; o < co; o++)
    for (int oy = 0; oy < oh; oy++)
      for (int ox = 0; ox < ow; ox++) {
        const int gi = o / cog;
        double acc = b[o];
        for (int iy = 0; iy < h; iy++)
          for (int ix = 0; ix < w; ix++)
            for (int ky = 0; ky < kh; ky++)
              for (int kx = 0; kx < kw; kx++) {
                if (iy * sh - pads[0] + ky * dh != oy || ix * sw - pads[1] + kx * dw != ox) continue;
                for (int c = gi * cig; c < (gi + 1) * cig; c++)
                  acc += (double)x[((size_t)c * h + iy) * w + ix] * wt[(((size_t)c * cog + (o - gi * cog)) * kh + ky) * kw + kx];
              }
        const float got = v.data[((size_t)o * oh + oy) * ow + ox];
        if (qdq == 2) { /* the int8 sum is exact; the requantization one rounding away at most */
          const double want = (q8(acc, sy, zy) - zy) * (double)sy;
          if (fabs(got - want) > sy * 1.001) fail_msg("y[%d][%d][%d] = %g, want %g (+- one step)", o, oy, ox, (double)got, want);
        } else if (fabs(got - acc) > 1e-4 * (1 + fabs(acc))) {
          fail_msg("y[%d][%d][%d] = %g, want %g", o, oy, ox, (double)got, acc);
        }
      }
  yrt_session_free(s);
  yrt_model_free(m);
  free(buf);
  free(x); free(wt); free(b); free(wq); free(ws);
}

static void convt_case(int ci, int h, int w, int co, int group, int kh, int kw, int sh, int sw, const int64_t *pads,
                       int dh, int dw, const int64_t *out_pad) {
  convt_case_q(ci, h, w, co, group, kh, kw, sh, sw, pads, dh, dw, out_pad, 0);
}

static void test_conv_transpose(void **state) {
  (void)state;
  const int64_t p0[4] = {0, 0, 0, 0}, p1[4] = {1, 0, 0, 1}, op0[2] = {0, 0}, op1[2] = {1, 0};
  convt_case(5, 7, 9, 6, 1, 2, 2, 2, 2, p0, 1, 1, op0); /* the prototype upsample, odd grid */
  convt_case(4, 5, 3, 6, 2, 3, 2, 2, 3, p1, 1, 2, op1); /* groups, pads, dilation, output padding */
  convt_case_q(5, 7, 9, 6, 1, 2, 2, 2, 2, p0, 1, 1, op0, 1); /* int8 weights, per-channel on axis 1 */
  convt_case_q(5, 7, 9, 6, 1, 2, 2, 2, 2, p0, 1, 1, op0, 2); /* int8 x, w, y: runs int8 */
  convt_case_q(4, 5, 3, 11, 1, 3, 2, 2, 3, p1, 1, 2, op1, 2); /* int8, pads, dilation, output padding */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_segment_structure),
      cmocka_unit_test(test_conv_transpose),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
