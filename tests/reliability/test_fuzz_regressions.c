/* test_fuzz_regressions.c — inputs the fuzzers of tests/fuzz crashed on (or made misbehave), each
 * reduced to a small byte array (never a copy of shared data), fed through the same entry points
 * as the fuzz target, with the status it must now return. docs/reliability.md lists each finding
 * and its fix. The ONNX arrays were written with python onnx (helper.make_model) to the shape the
 * fuzzer found; the comment on each says what it contains. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "convert.h"
#include "ir_passes.h"
#include "onnx_write.h"
#include "rel_models.h"
#include "yolort.h"
#include "yolort_format.h"

/* The fuzz_onnx_convert pipeline: read, convert, and whatever converts must load. */
static yrt_status onnx_pipeline(const uint8_t *data, size_t size, yrt_error *err) {
  ir_graph *g = NULL;
  err->msg[0] = 0;
  yrt_status st = onnx_read_memory(data, size, &g, err);
  if (st != YRT_OK) return st;
  void *yrt = NULL;
  size_t n = 0;
  st = yrt_convert_graph(g, NULL, &yrt, &n, NULL, err);
  ir_graph_free(g);
  if (st == YRT_OK) {
    yrt_model *m = NULL;
    st = yrt_model_load_memory(yrt, n, 0, &m, err);
    yrt_model_free(m);
  }
  free(yrt);
  return st;
}

static void expect_onnx(const uint8_t *data, size_t size, yrt_status want, const char *msg_part) {
  yrt_error err;
  yrt_status st = onnx_pipeline(data, size, &err);
  if (st != want) fail_msg("got %s (%s), want %s", yrt_status_name(st), err.msg, yrt_status_name(want));
  if (want != YRT_OK) {
    assert_true(err.msg[0] != 0);
    if (msg_part && !strstr(err.msg, msg_part)) fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
  }
}

/* F1 tools/ir/qdq_annotate.c: a DequantizeLinear scale <= 0 freed the scale array, then read it
 * to print the message (NULL + offset read; UBSan). Model: q int8[4], s = -1.0f,
 * w = DequantizeLinear(q, s); y = Add(x[1,4], w). */
static const uint8_t k_neg_scale[] = {
    0x08, 0x08, 0x3a, 0x7f, 0x0a, 0x1f, 0x0a, 0x01, 0x71, 0x0a, 0x01, 0x73, 0x12, 0x01, 0x77, 0x1a, 0x02,
    0x64, 0x71, 0x22, 0x10, 0x44, 0x65, 0x71, 0x75, 0x61, 0x6e, 0x74, 0x69, 0x7a, 0x65, 0x4c, 0x69, 0x6e,
    0x65, 0x61, 0x72, 0x0a, 0x13, 0x0a, 0x01, 0x78, 0x0a, 0x01, 0x77, 0x12, 0x01, 0x79, 0x1a, 0x03, 0x61,
    0x64, 0x64, 0x22, 0x03, 0x41, 0x64, 0x64, 0x12, 0x01, 0x67, 0x2a, 0x0d, 0x08, 0x04, 0x10, 0x03, 0x42,
    0x01, 0x71, 0x4a, 0x04, 0x01, 0x02, 0x03, 0x04, 0x2a, 0x0b, 0x10, 0x01, 0x42, 0x01, 0x73, 0x4a, 0x04,
    0x00, 0x00, 0x80, 0xbf, 0x5a, 0x13, 0x0a, 0x01, 0x78, 0x12, 0x0e, 0x0a, 0x0c, 0x08, 0x01, 0x12, 0x08,
    0x0a, 0x02, 0x08, 0x01, 0x0a, 0x02, 0x08, 0x04, 0x62, 0x13, 0x0a, 0x01, 0x79, 0x12, 0x0e, 0x0a, 0x0c,
    0x08, 0x01, 0x12, 0x08, 0x0a, 0x02, 0x08, 0x01, 0x0a, 0x02, 0x08, 0x04, 0x42, 0x04, 0x0a, 0x00, 0x10,
    0x0d};

static void test_f1_qdq_negative_scale(void **state) {
  (void)state;
  expect_onnx(k_neg_scale, sizeof k_neg_scale, YRT_ERR_UNSUPPORTED, "scale");
}

/* F2 tools/ir/shape_infer.c: Reshape to a constant shape {7782220156096217094, 64} overflowed the
 * int64 element count (signed overflow; UBSan). x [1,4]. */
static const uint8_t k_reshape_overflow[] = {
    0x08, 0x08, 0x3a, 0x57, 0x0a, 0x16, 0x0a, 0x01, 0x78, 0x0a, 0x02, 0x73, 0x68, 0x12, 0x01, 0x79, 0x1a,
    0x01, 0x72, 0x22, 0x07, 0x52, 0x65, 0x73, 0x68, 0x61, 0x70, 0x65, 0x12, 0x01, 0x67, 0x2a, 0x1a, 0x08,
    0x02, 0x10, 0x07, 0x42, 0x02, 0x73, 0x68, 0x4a, 0x10, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6c,
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5a, 0x13, 0x0a, 0x01, 0x78, 0x12, 0x0e, 0x0a, 0x0c,
    0x08, 0x01, 0x12, 0x08, 0x0a, 0x02, 0x08, 0x01, 0x0a, 0x02, 0x08, 0x04, 0x62, 0x09, 0x0a, 0x01, 0x79,
    0x12, 0x04, 0x0a, 0x02, 0x08, 0x01, 0x42, 0x04, 0x0a, 0x00, 0x10, 0x0d};

static void test_f2_reshape_overflow(void **state) {
  (void)state;
  expect_onnx(k_reshape_overflow, sizeof k_reshape_overflow, YRT_ERR_SHAPE, "Reshape");
}

/* F3 tools/ir/ir.c ir_numel + tools/lower/lw_graph.c: a graph input of [2^40, 2^40] overflowed
 * every element count downstream (UBSan). y = Relu(x). */
static const uint8_t k_numel_overflow[] = {
    0x08, 0x08, 0x3a, 0x3e, 0x0a, 0x0f, 0x0a, 0x01, 0x78, 0x12, 0x01, 0x79, 0x1a, 0x01, 0x72, 0x22, 0x04,
    0x52, 0x65, 0x6c, 0x75, 0x12, 0x01, 0x67, 0x5a, 0x1d, 0x0a, 0x01, 0x78, 0x12, 0x18, 0x0a, 0x16, 0x08,
    0x01, 0x12, 0x12, 0x0a, 0x07, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x0a, 0x07, 0x08, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x20, 0x62, 0x09, 0x0a, 0x01, 0x79, 0x12, 0x04, 0x0a, 0x02, 0x08, 0x01, 0x42, 0x04,
    0x0a, 0x00, 0x10, 0x0d};

static void test_f3_numel_overflow(void **state) {
  (void)state;
  yrt_error err;
  yrt_status st = onnx_pipeline(k_numel_overflow, sizeof k_numel_overflow, &err);
  assert_int_not_equal(st, YRT_OK);
  assert_true(err.msg[0] != 0);
}

/* F4 tools/lower/yrt_writer.c: the converter wrote META input 0x0 for a model whose input is not
 * an image (and class names that did not match the class count); its own loader rejected the
 * file. Found on the seed f32_misc (input [1,4,6]); now such files load. */
static void test_f4_converted_non_image_model_loads(void **state) {
  (void)state;
  uint8_t *bytes = NULL;
  size_t n = 0;
  yrt_error err;
  assert_int_equal(rel_model_onnx(REL_MODEL_F32_MISC, &bytes, &n, &err), YRT_OK);
  expect_onnx(bytes, n, YRT_OK, NULL);
  free(bytes);
}

/* F5 runtime kernels (dwconv3x3_i8_avx2.c:65, qconv_nhwc_avx512vnni.c:97, the scalar tails): an
 * int32 bias of INT32_MIN overflowed the int32 accumulator (UBSan). Fixed twice: the converter
 * clamps biases to INT32_MAX - span (tools/lower/lower_conv.c) and the loader rejects a bias that
 * can overflow (runtime/src/ops/conv.c). Model: x[1,1,3,3] -Q/DQ-> Conv 1x1 with
 * int8 weight 3 and int32 bias INT32_MIN -> Q/DQ -> out. */
static uint8_t *bias_min_model(size_t *n) {
  Onnx__ModelProto *m = onnx_model_new(13);
  assert_non_null(m);
  const int64_t xd[4] = {1, 1, 3, 3}, wd[4] = {1, 1, 1, 1}, one[1] = {1};
  const float s = 0.1f, bs = 0.01f;
  const int8_t z = 0, w = 3;
  const int32_t b = INT32_MIN, bz = 0;
  assert_int_equal(onnx_model_add_input(m, "x", IR_F32, 4, xd), 0);
  assert_int_equal(onnx_model_add_output(m, "out", IR_F32, 4, xd), 0);
  assert_int_equal(onnx_model_add_initializer(m, "s", IR_F32, 0, NULL, &s), 0);
  assert_int_equal(onnx_model_add_initializer(m, "z", IR_I8, 0, NULL, &z), 0);
  assert_int_equal(onnx_model_add_initializer(m, "w", IR_I8, 4, wd, &w), 0);
  assert_int_equal(onnx_model_add_initializer(m, "ws", IR_F32, 1, one, &s), 0);
  assert_int_equal(onnx_model_add_initializer(m, "wz", IR_I8, 1, one, &z), 0);
  assert_int_equal(onnx_model_add_initializer(m, "b", IR_I32, 1, one, &b), 0);
  assert_int_equal(onnx_model_add_initializer(m, "bs", IR_F32, 1, one, &bs), 0);
  assert_int_equal(onnx_model_add_initializer(m, "bz", IR_I32, 1, one, &bz), 0);
  const char *q0[3] = {"x", "s", "z"}, *d0[3] = {"xq", "s", "z"}, *dw[3] = {"w", "ws", "wz"},
             *db[3] = {"b", "bs", "bz"}, *cv[3] = {"xd", "wd", "bd"}, *q1[3] = {"y", "s", "z"},
             *d1[3] = {"yq", "s", "z"};
  const char *o_xq[1] = {"xq"}, *o_xd[1] = {"xd"}, *o_wd[1] = {"wd"}, *o_bd[1] = {"bd"}, *o_y[1] = {"y"},
             *o_yq[1] = {"yq"}, *o_out[1] = {"out"};
  assert_non_null(onnx_model_add_node(m, "QuantizeLinear", "q0", q0, 3, o_xq, 1));
  assert_non_null(onnx_model_add_node(m, "DequantizeLinear", "d0", d0, 3, o_xd, 1));
  assert_int_equal(onnx_node_attr_int(onnx_model_add_node(m, "DequantizeLinear", "dw", dw, 3, o_wd, 1), "axis", 0), 0);
  assert_int_equal(onnx_node_attr_int(onnx_model_add_node(m, "DequantizeLinear", "db", db, 3, o_bd, 1), "axis", 0), 0);
  assert_non_null(onnx_model_add_node(m, "Conv", "c", cv, 3, o_y, 1));
  assert_non_null(onnx_model_add_node(m, "QuantizeLinear", "q1", q1, 3, o_yq, 1));
  assert_non_null(onnx_model_add_node(m, "DequantizeLinear", "d1", d1, 3, o_out, 1));
  uint8_t *bytes = NULL;
  yrt_error err;
  assert_int_equal(onnx_model_pack(m, &bytes, n, &err), YRT_OK);
  onnx_model_free(m);
  return bytes;
}

static void test_f5_int8_bias_overflow(void **state) {
  (void)state;
  size_t n = 0;
  uint8_t *onnx = bias_min_model(&n);
  ir_graph *g = NULL;
  yrt_error err;
  assert_int_equal(onnx_read_memory(onnx, n, &g, &err), YRT_OK);
  free(onnx);
  void *yrt = NULL;
  size_t ny = 0;
  yrt_convert_report rep;
  if (yrt_convert_graph(g, NULL, &yrt, &ny, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  ir_graph_free(g);
  assert_int_equal(rep.n_int8_nodes > 0, 1);
  /* The converter clamped the bias: the file loads and runs (no UB under the sanitizers). */
  yrt_model *m = NULL;
  if (yrt_model_load_memory(yrt, ny, 0, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  yrt_session *s = NULL;
  assert_int_equal(yrt_session_create(m, NULL, &s, &err), YRT_OK);
  const float x[9] = {1, -1, 0.5f, 12, -12, 0, 3, 2, 1};
  assert_int_equal(yrt_session_set_input(s, 0, x, 9, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_session_free(s);
  yrt_model_free(m);
  /* Put INT32_MIN back into the file (the clamped value is INT32_MIN + 255 * 128): the loader
   * must refuse it. */
  const int32_t clamped = INT32_MIN + 255 * 128, raw = INT32_MIN;
  int patched = 0;
  for (size_t off = 64; off + 4 <= ny; off += 4)
    if (memcmp((uint8_t *)yrt + off, &clamped, 4) == 0) {
      memcpy((uint8_t *)yrt + off, &raw, 4);
      patched++;
    }
  assert_int_equal(patched, 1);
  yrt_file_header h;
  memcpy(&h, yrt, sizeof h);
  h.crc32 = yrt_crc32(0, (uint8_t *)yrt + sizeof h, ny - sizeof h);
  memcpy(yrt, &h, sizeof h);
  err.msg[0] = 0;
  assert_int_equal(yrt_model_load_memory(yrt, ny, 0, &m, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "bias"));
  free(yrt);
}

/* F6 tools/ir/qdq_annotate.c: a denormal DequantizeLinear scale (2.97e-39) passed the converter's
 * "> 0" check and the converter wrote a file its loader refuses (scales must be normal). Model:
 * q int8[4], s = 2.97e-39f, w = DequantizeLinear(q, s); y = Add(x[1,4], w). */
static void test_f6_denormal_scale(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  assert_non_null(m);
  const int64_t xd[2] = {1, 4}, qd[1] = {4};
  const int8_t q[4] = {1, 2, 3, 4};
  const float s = 2.97389e-39f;
  assert_int_equal(onnx_model_add_input(m, "x", IR_F32, 2, xd), 0);
  assert_int_equal(onnx_model_add_output(m, "y", IR_F32, 2, xd), 0);
  assert_int_equal(onnx_model_add_initializer(m, "q", IR_I8, 1, qd, q), 0);
  assert_int_equal(onnx_model_add_initializer(m, "s", IR_F32, 0, NULL, &s), 0);
  const char *di[2] = {"q", "s"}, *dout[1] = {"w"}, *ai[2] = {"x", "w"}, *aout[1] = {"y"};
  assert_non_null(onnx_model_add_node(m, "DequantizeLinear", "dq", di, 2, dout, 1));
  assert_non_null(onnx_model_add_node(m, "Add", "add", ai, 2, aout, 1));
  uint8_t *bytes = NULL;
  size_t n = 0;
  yrt_error err;
  assert_int_equal(onnx_model_pack(m, &bytes, &n, &err), YRT_OK);
  onnx_model_free(m);
  expect_onnx(bytes, n, YRT_ERR_UNSUPPORTED, "scale");
  free(bytes);
}

/* F7 tools/lower/lw_graph.c: an integer operand read from a float constant (7.5e28, outside int64)
 * was converted with a plain cast (UBSan: outside the range of representable values). The
 * fuzzer's model (692 bytes, session 6): Transpose, MatMul, Gather with float indices, Add, Tanh,
 * Div, Softmax, Gather, Slice, Shape. Now such a value is no integer and the graph is refused. */
static const uint8_t k_float_index[] = {
    0x08, 0x08, 0x12, 0x06, 0x79, 0x6f, 0x6c, 0x6f, 0x72, 0x74, 0x3a, 0xa1, 0x05, 0x0a, 0x29, 0x0a, 0x01,
    0x78, 0x12, 0x02, 0x78, 0x74, 0x1a, 0x02, 0x74, 0x72, 0x22, 0x09, 0x54, 0x72, 0x61, 0x6e, 0x73, 0x70,
    0x6f, 0x73, 0x65, 0x2a, 0x0f, 0x0a, 0x04, 0x70, 0x65, 0x72, 0x6d, 0x40, 0x00, 0x40, 0x02, 0x40, 0x01,
    0xa0, 0x01, 0x0f, 0x3a, 0x00, 0x0a, 0x1d, 0x0a, 0x02, 0x78, 0x74, 0x0a, 0x01, 0x57, 0x12, 0x02, 0x6d,
    0x6d, 0x1a, 0x06, 0x6d, 0x61, 0x74, 0x6d, 0x75, 0x6c, 0x22, 0x06, 0x47, 0x61, 0x74, 0x68, 0x65, 0x72,
    0x3a, 0x00, 0x0a, 0x19, 0x0a, 0x02, 0x6d, 0x6d, 0x0a, 0x01, 0x42, 0x12, 0x03, 0x6d, 0x6d, 0x62, 0x1a,
    0x04, 0x61, 0x64, 0x64, 0x62, 0x22, 0x03, 0x41, 0x64, 0x64, 0x3a, 0x00, 0x0a, 0x17, 0x0a, 0x03, 0x6d,
    0x6d, 0x62, 0x12, 0x02, 0x74, 0x68, 0x1a, 0x04, 0x74, 0x61, 0x6e, 0x68, 0x22, 0x04, 0x54, 0x61, 0x6e,
    0x68, 0x3a, 0x00, 0x0a, 0x1a, 0x0a, 0x02, 0x74, 0x68, 0x0a, 0x04, 0x68, 0x61, 0x6c, 0x66, 0x12, 0x02,
    0x64, 0x76, 0x1a, 0x03, 0x64, 0x69, 0x76, 0x22, 0x03, 0x44, 0x69, 0x76, 0x3a, 0x00, 0x0a, 0x32, 0x0a,
    0x02, 0x64, 0x76, 0x12, 0x02, 0x73, 0x6d, 0x1a, 0x07, 0x73, 0x6f, 0x66, 0x74, 0x6d, 0x61, 0x78, 0x22,
    0x07, 0x53, 0x6f, 0x66, 0x74, 0x6d, 0x61, 0x78, 0x2a, 0x14, 0x0a, 0x04, 0x61, 0x78, 0x69, 0x73, 0x18,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0xa0, 0x01, 0x02, 0x3a, 0x00, 0x0a, 0x33,
    0x0a, 0x02, 0x73, 0x6d, 0x0a, 0x04, 0x67, 0x69, 0x64, 0x78, 0x12, 0x08, 0x67, 0x61, 0x74, 0x68, 0x65,
    0x72, 0x65, 0x64, 0x1a, 0x06, 0x67, 0x61, 0x74, 0x68, 0x65, 0x72, 0x22, 0x06, 0x47, 0x61, 0x74, 0x68,
    0x65, 0x72, 0x2a, 0x0b, 0x0a, 0x04, 0x61, 0x78, 0x69, 0x73, 0x18, 0x00, 0xa0, 0x01, 0x02, 0x3a, 0x00,
    0x0a, 0x30, 0x1a, 0x02, 0x73, 0x6d, 0x0a, 0x06, 0x73, 0x74, 0x61, 0x72, 0x74, 0x73, 0x0a, 0x04, 0x65,
    0x6e, 0x64, 0x73, 0x0a, 0x04, 0x61, 0x78, 0x65, 0x73, 0x12, 0x06, 0x73, 0x6c, 0x69, 0x63, 0x65, 0x64,
    0x1a, 0x05, 0x73, 0x6c, 0x69, 0x63, 0x65, 0x22, 0x05, 0x53, 0x68, 0x61, 0x70, 0x65, 0x3a, 0x00, 0x0a,
    0x20, 0x0a, 0x06, 0x73, 0x6c, 0x69, 0x63, 0x65, 0x64, 0x0a, 0x04, 0x68, 0x61, 0x6c, 0x66, 0x12, 0x03,
    0x73, 0x75, 0x62, 0x1a, 0x04, 0x73, 0x75, 0x62, 0x68, 0x22, 0x03, 0x53, 0x75, 0x62, 0x3a, 0x00, 0x12,
    0x06, 0x79, 0x6f, 0x6c, 0x6f, 0x72, 0x74, 0x2a, 0x5b, 0x08, 0x04, 0x08, 0x05, 0x10, 0x01, 0x42, 0x01,
    0x57, 0x4a, 0x50, 0xcd, 0xcc, 0x4c, 0xbd, 0xe1, 0x7a, 0x14, 0xbe, 0x9a, 0x99, 0x19, 0x3d, 0x14, 0xae,
    0x07, 0xbe, 0xf6, 0x28, 0x5c, 0xbe, 0x66, 0x66, 0x66, 0x3e, 0x48, 0xe1, 0x7a, 0x3e, 0x00, 0x00, 0x80,
    0x3e, 0x5c, 0x8f, 0x42, 0xbe, 0x66, 0x66, 0xe6, 0xbd, 0xec, 0x51, 0xb8, 0x3c, 0x52, 0xb8, 0x5e, 0x3e,
    0xb8, 0x1e, 0x05, 0x3d, 0x0a, 0x67, 0x72, 0x6f, 0x75, 0x70, 0x94, 0xbd, 0xec, 0x51, 0x38, 0x3e, 0xcd,
    0xcc, 0x0c, 0x3e, 0xf6, 0x28, 0x1c, 0xbe, 0xb8, 0x1e, 0x05, 0x3e, 0xcd, 0xcc, 0x4c, 0xbd, 0x2a, 0x1d,
    0x08, 0x05, 0x10, 0x01, 0x42, 0x01, 0x42, 0x4a, 0x14, 0x1f, 0x85, 0x6b, 0xbe, 0x52, 0xb8, 0x5e, 0x3e,
    0xae, 0x47, 0x21, 0xbe, 0x14, 0xae, 0xc7, 0x3d, 0x8f, 0xc2, 0x75, 0xbd, 0x2a, 0x1c, 0x08, 0x02, 0x10,
    0x07, 0x42, 0x04, 0x67, 0x69, 0x64, 0x78, 0x4a, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x16, 0x08, 0x01, 0x10, 0x07, 0x42, 0x06, 0x73,
    0x74, 0x61, 0x72, 0x74, 0x73, 0x4a, 0x08, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x14,
    0x08, 0x01, 0x10, 0x07, 0x42, 0x04, 0x65, 0x6e, 0x64, 0x73, 0x4a, 0x08, 0x05, 0x00, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x2a, 0x14, 0x08, 0x01, 0x10, 0x07, 0x42, 0x04, 0x61, 0x78, 0x65, 0x73, 0x4a, 0x08,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x0e, 0x10, 0x01, 0x42, 0x04, 0x68, 0x61, 0x6c,
    0x66, 0x4a, 0x04, 0x00, 0x00, 0x00, 0x3f, 0x5a, 0x17, 0x0a, 0x01, 0x78, 0x12, 0x12, 0x0a, 0x10, 0x08,
    0x01, 0x12, 0x0c, 0x0a, 0x02, 0x08, 0x01, 0x0a, 0x02, 0x08, 0x04, 0x0a, 0x02, 0x08, 0x06, 0x62, 0x1e,
    0x0a, 0x08, 0x67, 0x61, 0x74, 0x68, 0x65, 0x72, 0x65, 0x64, 0x12, 0x12, 0x0a, 0x10, 0x08, 0x01, 0x12,
    0x0c, 0x0a, 0x02, 0x08, 0x01, 0x0a, 0x02, 0x08, 0x06, 0x0a, 0x02, 0x08, 0x02, 0x62, 0x19, 0x0a, 0x03,
    0x73, 0x75, 0x62, 0x12, 0x12, 0x0a, 0x10, 0x08, 0x01, 0x12, 0x0c, 0x0a, 0x02, 0x08, 0x01, 0x0a, 0x02,
    0x08, 0x04, 0x0a, 0x02, 0x08, 0x05, 0x42, 0x04, 0x0a, 0x00, 0x10, 0x0d,
};

static void test_f7_float_index_out_of_int64(void **state) {
  (void)state;
  yrt_error err;
  const yrt_status st = onnx_pipeline(k_float_index, sizeof k_float_index, &err);
  if (st != YRT_OK) assert_true(err.msg[0] != 0);
}

/* A model built here, serialised (and freed). */
static uint8_t *pack_and_free(Onnx__ModelProto *m, size_t *n) {
  uint8_t *bytes = NULL;
  yrt_error err;
  assert_int_equal(onnx_model_pack(m, &bytes, n, &err), YRT_OK);
  onnx_model_free(m);
  return bytes;
}

/* F8 tools/onnx/onnx_reader.c (fuzz_onnx_values, issue 40): an initializer whose dims say 2^31
 * int64 elements over 16 bytes of data was allocated (16 GiB, zeroed under ASan: a 30 s timeout)
 * before its data was counted. Now the count is checked first: YRT_ERR_FORMAT, nothing
 * allocated. Without ASan the address space is capped 1 GiB above what the process maps, so the
 * old order would fail with YRT_ERR_NOMEM instead. */
#if defined(__SANITIZE_ADDRESS__)
#define F8_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define F8_ASAN 1
#endif
#endif
static void test_f8_dims_claim_more_than_data(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  assert_non_null(m);
  const int64_t d2[1] = {2}, xd[2] = {1, 2}, v[2] = {1, 2};
  assert_int_equal(onnx_model_add_input(m, "x", IR_I64, 2, xd), 0);
  assert_int_equal(onnx_model_add_initializer(m, "w", IR_I64, 1, d2, v), 0);
  Onnx__TensorProto *t = onnx_model_find_initializer(m, "w");
  assert_non_null(t);
  int64_t *dims = realloc(t->dims, 2 * sizeof *dims);
  assert_non_null(dims);
  dims[0] = (int64_t)1 << 30, dims[1] = 2; /* 2^31 elements claimed, 2 stored */
  t->dims = dims;
  t->n_dims = 2;
  const char *in[2] = {"x", "w"}, *out[1] = {"y"};
  assert_non_null(onnx_model_add_node(m, "Add", "add", in, 2, out, 1));
  assert_int_equal(onnx_model_add_output(m, "y", IR_I64, -1, NULL), 0);
  size_t n = 0;
  uint8_t *bytes = pack_and_free(m, &n);
  yrt_error err;
#ifndef F8_ASAN
  struct rlimit old, cap;
  long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%ld", &pages) != 1) pages = 0;
    fclose(f);
  }
  const int capped = pages > 0 && getrlimit(RLIMIT_AS, &old) == 0;
  if (capped) {
    cap = old;
    cap.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)1 << 30);
    if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < cap.rlim_cur) cap.rlim_cur = old.rlim_cur;
    assert_int_equal(setrlimit(RLIMIT_AS, &cap), 0);
  }
#endif
  ir_graph *g = NULL;
  const yrt_status st = onnx_read_memory(bytes, n, &g, &err);
#ifndef F8_ASAN
  if (capped) assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
#endif
  free(bytes);
  ir_graph_free(g);
  if (st != YRT_ERR_FORMAT) fail_msg("got %s (%s), want FORMAT", yrt_status_name(st), err.msg);
  if (!strstr(err.msg, "'w'") || !strstr(err.msg, "2147483648")) fail_msg("message: %s", err.msg);
}

/* F9 tools/ir/shape_compute.c pool_geometry (fuzz_onnx_values, issue 40): a Conv whose pads (or
 * kernel, stride, dilation, input side) were near INT64_MAX overflowed the window arithmetic
 * (UBSan). Each is now bounded (2^24; a side 2^40) and the node refused naming the values. */
static void test_f9_conv_geometry_overflow(void **state) {
  (void)state;
  const int64_t big[4] = {INT64_MAX, 1, INT64_MAX - 1, (int64_t)1 << 25};
  for (int k = 0; k < 4; k++) {
    Onnx__ModelProto *m = onnx_model_new(13);
    assert_non_null(m);
    const int64_t xd[4] = {1, 1, 4, 4}, wd[4] = {1, 1, 1, 1};
    const float w = 0.5f;
    assert_int_equal(onnx_model_add_input(m, "x", IR_F32, 4, xd), 0);
    assert_int_equal(onnx_model_add_initializer(m, "w", IR_F32, 4, wd, &w), 0);
    const char *in[2] = {"x", "w"}, *out[1] = {"y"};
    Onnx__NodeProto *c = onnx_model_add_node(m, "Conv", "conv", in, 2, out, 1);
    assert_non_null(c);
    const int64_t pads[4] = {0, 0, big[k], 0}, one[2] = {1, 1}, huge[2] = {big[k], 1};
    if (k < 3) assert_int_equal(onnx_node_attr_ints(c, "pads", pads, 4), 0);
    else assert_int_equal(onnx_node_attr_ints(c, "dilations", huge, 2), 0);
    assert_int_equal(onnx_node_attr_ints(c, "strides", one, 2), 0);
    assert_int_equal(onnx_model_add_output(m, "y", IR_F32, -1, NULL), 0);
    size_t n = 0;
    uint8_t *bytes = pack_and_free(m, &n);
    if (k == 1) expect_onnx(bytes, n, YRT_OK, NULL); /* the control: a sane Conv converts */
    else expect_onnx(bytes, n, YRT_ERR_SHAPE, "out of range");
    free(bytes);
  }
}

/* F10 tools/ir/shape_movement.c ir_shape_resize (fuzz_onnx_values, issue 40): an input side near
 * INT64_MAX times a Resize scale was cast to int64 out of its range (UBSan). Now an output side
 * of 2^40 or more is refused first. */
static void test_f10_resize_side_overflow(void **state) {
  (void)state;
  const int64_t sides[2] = {INT64_MAX / 2, 8};
  for (int k = 0; k < 2; k++) {
    Onnx__ModelProto *m = onnx_model_new(13);
    assert_non_null(m);
    const int64_t xd[4] = {1, 1, sides[k], 4}, sd[1] = {4};
    const float sc[4] = {1, 1, 4, 1};
    assert_int_equal(onnx_model_add_input(m, "x", IR_F32, 4, xd), 0);
    assert_int_equal(onnx_model_add_initializer(m, "scales", IR_F32, 1, sd, sc), 0);
    const char *in[3] = {"x", "", "scales"}, *out[1] = {"y"};
    assert_non_null(onnx_model_add_node(m, "Resize", "up", in, 3, out, 1));
    assert_int_equal(onnx_model_add_output(m, "y", IR_F32, -1, NULL), 0);
    size_t n = 0;
    uint8_t *bytes = pack_and_free(m, &n);
    ir_graph *g = NULL;
    yrt_error err;
    yrt_status st = onnx_read_memory(bytes, n, &g, &err);
    if (st == YRT_OK) st = ir_infer_shapes(g, &err);
    ir_graph_free(g);
    free(bytes);
    if (k == 1) assert_int_equal(st, YRT_OK); /* the control */
    else if (st != YRT_ERR_SHAPE || !strstr(err.msg, "too large")) fail_msg("%s: %s", yrt_status_name(st), err.msg);
  }
}

/* F11 tools/ir/shape_movement.c ir_shape_split (fuzz_onnx_values, issue 40): split sizes near
 * INT64_MAX overflowed their sum (UBSan). The sum is checked now: "sizes overflow"; Concat's
 * axis sum likewise (refused, by the reader or the check). */
static void test_f11_split_sizes_overflow(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  assert_non_null(m);
  const int64_t xd[2] = {1, 4}, sd[1] = {2}, sizes[2] = {INT64_MAX, 2};
  assert_int_equal(onnx_model_add_input(m, "x", IR_F32, 2, xd), 0);
  assert_int_equal(onnx_model_add_initializer(m, "split", IR_I64, 1, sd, sizes), 0);
  const char *in[2] = {"x", "split"}, *out[2] = {"a", "b"};
  Onnx__NodeProto *sp = onnx_model_add_node(m, "Split", "sp", in, 2, out, 2);
  assert_non_null(sp);
  assert_int_equal(onnx_node_attr_int(sp, "axis", 1), 0);
  assert_int_equal(onnx_model_add_output(m, "a", IR_F32, -1, NULL), 0);
  assert_int_equal(onnx_model_add_output(m, "b", IR_F32, -1, NULL), 0);
  size_t n = 0;
  uint8_t *bytes = pack_and_free(m, &n);
  expect_onnx(bytes, n, YRT_ERR_SHAPE, "sizes overflow");
  free(bytes);
  /* Concat's axis sum, the same pattern: two inputs of 2^62 + 1 along the axis */
  m = onnx_model_new(13);
  assert_non_null(m);
  const int64_t cd[2] = {1, ((int64_t)1 << 62) + 1};
  assert_int_equal(onnx_model_add_input(m, "p", IR_F32, 2, cd), 0);
  assert_int_equal(onnx_model_add_input(m, "q", IR_F32, 2, cd), 0);
  const char *cin[2] = {"p", "q"}, *cout[1] = {"c"};
  Onnx__NodeProto *c = onnx_model_add_node(m, "Concat", "cat", cin, 2, cout, 1);
  assert_non_null(c);
  assert_int_equal(onnx_node_attr_int(c, "axis", 1), 0);
  assert_int_equal(onnx_model_add_output(m, "c", IR_F32, -1, NULL), 0);
  bytes = pack_and_free(m, &n);
  ir_graph *g = NULL;
  yrt_error err;
  yrt_status st = onnx_read_memory(bytes, n, &g, &err);
  if (st == YRT_OK) st = ir_infer_shapes(g, &err);
  ir_graph_free(g);
  free(bytes);
  assert_int_not_equal(st, YRT_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f1_qdq_negative_scale),
      cmocka_unit_test(test_f2_reshape_overflow),
      cmocka_unit_test(test_f3_numel_overflow),
      cmocka_unit_test(test_f4_converted_non_image_model_loads),
      cmocka_unit_test(test_f5_int8_bias_overflow),
      cmocka_unit_test(test_f6_denormal_scale),
      cmocka_unit_test(test_f7_float_index_out_of_int64),
      cmocka_unit_test(test_f8_dims_claim_more_than_data),
      cmocka_unit_test(test_f9_conv_geometry_overflow),
      cmocka_unit_test(test_f10_resize_side_overflow),
      cmocka_unit_test(test_f11_split_sizes_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
