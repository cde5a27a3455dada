/* test_onnx_io — onnx_write builds models in memory; onnx_read turns them into ir_graphs.
 * Round trips of every initializer encoding, Constant nodes, attributes, metadata; and
 * corrupt inputs (truncated, random bytes, bad sizes, external data) fail cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <math.h>

#include "ir.h"
#include "ir_test_util.h"
#include "onnx_reader.h"
#include "onnx_write.h"

static const int64_t IN_DIMS[4] = {1, 2, 3, 3};

/* images[1,2,3,3] -> Relu -> y, with assorted initializers and constants. */
static Onnx__ModelProto *sample(void) {
  Onnx__ModelProto *m = onnx_model_new(13);
  assert_non_null(m);
  assert_int_equal(onnx_model_add_input(m, "images", IR_F32, 4, IN_DIMS), 0);
  float f[3] = {1.5f, -2.0f, 3.25f};
  int8_t i8[4] = {-128, -1, 0, 127};
  uint8_t u8[2] = {0, 255};
  int32_t i32[2] = {-5, 1 << 30};
  int64_t i64[3] = {-1, 0, (int64_t)1 << 40};
  double f64[1] = {0.125};
  int64_t d3 = 3, d4 = 4, d2 = 2, d1 = 1, d22[2] = {1, 2};
  assert_int_equal(onnx_model_add_initializer(m, "f_raw", IR_F32, 1, &d3, f), 0);
  assert_int_equal(onnx_model_add_initializer_ex(m, "f_typed", IR_F32, 1, &d3, f, 0), 0);
  assert_int_equal(onnx_model_add_initializer_ex(m, "i8_typed", IR_I8, 1, &d4, i8, 0), 0);
  assert_int_equal(onnx_model_add_initializer(m, "i8_raw", IR_I8, 1, &d4, i8), 0);
  assert_int_equal(onnx_model_add_initializer_ex(m, "u8_typed", IR_U8, 1, &d2, u8, 0), 0);
  assert_int_equal(onnx_model_add_initializer_ex(m, "i32_typed", IR_I32, 2, d22, i32, 0), 0);
  assert_int_equal(onnx_model_add_initializer_ex(m, "i64_typed", IR_I64, 1, &d3, i64, 0), 0);
  assert_int_equal(onnx_model_add_initializer_ex(m, "f64_typed", IR_F64, 1, &d1, f64, 0), 0);
  assert_int_equal(onnx_model_add_initializer(m, "empty", IR_F32, 1, (int64_t[]){0}, NULL), 0);
  const char *in[] = {"images"}, *out[] = {"y"};
  Onnx__NodeProto *n = TU_NODE(m, "LeakyRelu", "act", in, out);
  assert_non_null(n);
  assert_int_equal(onnx_node_attr_float(n, "alpha", 0.25f), 0);
  assert_int_equal(onnx_node_attr_int(n, "i", -7), 0);
  assert_int_equal(onnx_node_attr_ints(n, "is", (int64_t[]){1, 2, 3}, 3), 0);
  assert_int_equal(onnx_node_attr_floats(n, "fs", (float[]){0.5f, 1.5f}, 2), 0);
  assert_int_equal(onnx_node_attr_string(n, "s", "nearest"), 0);
  assert_int_equal(onnx_node_attr_tensor(n, "t", onnx_tensor_new("", IR_I64, 1, &d3, i64, 1)), 0);
  /* Constant nodes of every flavour */
  const char *c1[] = {"c_tensor"}, *c2[] = {"c_float"}, *c3[] = {"c_ints"}, *c4[] = {"c_int"};
  n = onnx_model_add_node(m, "Constant", "k1", NULL, 0, c1, 1);
  assert_int_equal(onnx_node_attr_tensor(n, "value", onnx_tensor_new("", IR_F32, 1, &d3, f, 0)), 0);
  n = onnx_model_add_node(m, "Constant", "k2", NULL, 0, c2, 1);
  assert_int_equal(onnx_node_attr_float(n, "value_float", 0.75f), 0);
  n = onnx_model_add_node(m, "Constant", "k3", NULL, 0, c3, 1);
  assert_int_equal(onnx_node_attr_ints(n, "value_ints", (int64_t[]){4, 5}, 2), 0);
  n = onnx_model_add_node(m, "Constant", "k4", NULL, 0, c4, 1);
  assert_int_equal(onnx_node_attr_int(n, "value_int", 9), 0);
  assert_int_equal(onnx_model_add_output(m, "y", IR_F32, 4, IN_DIMS), 0);
  assert_int_equal(onnx_model_set_metadata(m, "names", "{0: 'person', 1: \"bi cycle\", 2: 'it\\'s'}"), 0);
  assert_int_equal(onnx_model_set_metadata(m, "yolort.synthetic", "1"), 0);
  return m;
}

static void test_round_trip(void **state) {
  (void)state;
  ir_graph *g = NULL;
  yrt_error err = {{0}};
  assert_int_equal(tu_to_graph(sample(), &g, &err), YRT_OK);
  assert_int_equal(g->opset, 13);
  assert_int_equal(g->synthetic, 1);
  assert_string_equal(g->class_names, "person\nbi cycle\nit's");
  assert_int_equal(g->n_inputs, 1);
  const ir_tensor *im = &g->tensors[g->inputs[0]];
  assert_string_equal(im->name, "images");
  assert_int_equal(im->rank, 4);
  assert_int_equal(im->dims[3], 3);
  assert_int_equal(im->dtype, IR_F32);
  const char *fs[] = {"f_raw", "f_typed", "c_tensor"};
  for (int k = 0; k < 3; k++) {
    const ir_tensor *t = &g->tensors[ir_find_tensor(g, fs[k])];
    assert_int_equal(t->dtype, IR_F32);
    assert_int_equal(t->nbytes, 12);
    assert_true(ir_const_f64(t, 2) == 3.25);
    assert_int_equal(t->producer, -1);
  }
  for (int k = 0; k < 2; k++) {
    const ir_tensor *t = &g->tensors[ir_find_tensor(g, k ? "i8_raw" : "i8_typed")];
    assert_int_equal(t->dtype, IR_I8);
    assert_int_equal(ir_const_i64(t, 0), -128);
    assert_int_equal(ir_const_i64(t, 3), 127);
  }
  const ir_tensor *u = &g->tensors[ir_find_tensor(g, "u8_typed")];
  assert_int_equal(ir_const_i64(u, 1), 255);
  const ir_tensor *i32 = &g->tensors[ir_find_tensor(g, "i32_typed")];
  assert_int_equal(i32->rank, 2);
  assert_int_equal(ir_const_i64(i32, 1), 1 << 30);
  const ir_tensor *i64 = &g->tensors[ir_find_tensor(g, "i64_typed")];
  assert_true(ir_const_i64(i64, 2) == ((int64_t)1 << 40));
  assert_true(ir_const_f64(&g->tensors[ir_find_tensor(g, "f64_typed")], 0) == 0.125);
  const ir_tensor *e = &g->tensors[ir_find_tensor(g, "empty")];
  assert_non_null(e->data);
  assert_int_equal(ir_numel(e), 0);
  const ir_tensor *cf = &g->tensors[ir_find_tensor(g, "c_float")];
  assert_int_equal(cf->rank, 0);
  assert_true(ir_const_f64(cf, 0) == 0.75);
  const ir_tensor *ci = &g->tensors[ir_find_tensor(g, "c_ints")];
  assert_int_equal(ci->dtype, IR_I64);
  assert_int_equal(ci->dims[0], 2);
  assert_int_equal(ir_const_i64(ci, 1), 5);
  assert_int_equal(ir_const_i64(&g->tensors[ir_find_tensor(g, "c_int")], 0), 9);
  /* Constant nodes do not survive as nodes */
  assert_int_equal(g->n_nodes, 1);
  const ir_node *n = &g->nodes[0];
  assert_string_equal(n->op_type, "LeakyRelu");
  assert_string_equal(n->name, "act");
  assert_true(ir_attr_float(n, "alpha", 0) == 0.25f);
  assert_int_equal(ir_attr_int(n, "i", 0), -7);
  assert_int_equal(ir_attr_get(n, "is")->n_ints, 3);
  assert_int_equal(ir_attr_get(n, "fs")->n_floats, 2);
  assert_string_equal(ir_attr_string(n, "s", ""), "nearest");
  const ir_attr *ta = ir_attr_get(n, "t");
  assert_int_equal(ta->type, IR_ATTR_TENSOR);
  assert_int_equal(ir_const_i64(&g->tensors[ta->tensor], 0), -1);
  assert_int_equal(g->n_outputs, 1);
  assert_int_equal(g->tensors[g->outputs[0]].producer, 0);
  ir_graph_free(g);
}

static void test_edit_and_file(void **state) {
  (void)state;
  Onnx__ModelProto *m = sample();
  assert_int_equal(onnx_model_remove_initializer(m, "f_raw"), 0);
  assert_int_equal(onnx_model_remove_initializer(m, "f_raw"), -1);
  assert_null(onnx_model_find_initializer(m, "f_raw"));
  assert_non_null(onnx_model_find_initializer(m, "f_typed"));
  const char *in[] = {"images"}, *out[] = {"pre"};
  assert_non_null(onnx_model_insert_node(m, 0, "Relu", "first", in, 1, out, 1));
  assert_int_equal(onnx_model_find_node(m, "first"), 0);
  assert_int_equal(onnx_node_set_input(m->graph->node[1], 0, "pre"), 0);
  assert_int_equal(onnx_model_set_opset(m, 17), 0);
  char path[256];
  snprintf(path, sizeof(path), "%s/test_onnx_io_%d.onnx", YOLORT_BINARY_DIR, (int)getpid());
  yrt_error err = {{0}};
  assert_int_equal(onnx_model_write_file(m, path, &err), YRT_OK);
  onnx_model_free(m);
  Onnx__ModelProto *m2 = NULL;
  assert_int_equal(onnx_model_load_file(path, &m2, &err), YRT_OK);
  assert_int_equal(onnx_model_find_node(m2, "first"), 0);
  onnx_model_free(m2);
  ir_graph *g = NULL;
  assert_int_equal(onnx_read_file(path, &g, &err), YRT_OK);
  remove(path);
  assert_int_equal(g->opset, 17);
  assert_int_equal(ir_find_tensor(g, "f_raw"), -1);
  assert_int_equal(g->n_nodes, 2);
  assert_int_equal(g->tensors[g->nodes[1].in[0]].producer, 0);
  ir_graph_free(g);
  assert_int_equal(onnx_read_file("/nonexistent/x.onnx", &g, &err), YRT_ERR_IO);
}

static void pack(Onnx__ModelProto *m, uint8_t **b, size_t *n) {
  yrt_error err;
  assert_int_equal(onnx_model_pack(m, b, n, &err), YRT_OK);
  onnx_model_free(m);
}

static void test_truncated_and_random(void **state) {
  (void)state;
  uint8_t *b;
  size_t n;
  pack(sample(), &b, &n);
  yrt_error err;
  ir_graph *g = NULL;
  /* every truncation either fails cleanly or (rarely, at a field boundary) parses */
  int failures = 0;
  for (size_t len = 1; len < n; len += (len < 64 ? 1 : 7)) {
    yrt_status st = onnx_read_memory(b, len, &g, &err);
    if (st) {
      failures++;
      assert_true(st == YRT_ERR_FORMAT || st == YRT_ERR_UNSUPPORTED);
      assert_null(g);
    } else {
      ir_graph_free(g);
      g = NULL;
    }
  }
  assert_true(failures > 0);
  assert_int_equal(onnx_read_memory(b, n / 2, &g, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "onnx"));
  /* random bytes and bit flips: no crash */
  uint32_t seed = 12345;
  uint8_t *r = malloc(n);
  for (int trial = 0; trial < 300; trial++) {
    memcpy(r, b, n);
    for (int k = 0; k < 1 + trial % 8; k++) {
      seed = seed * 1664525u + 1013904223u;
      r[(seed >> 8) % n] ^= (uint8_t)(1u << ((seed >> 4) & 7));
    }
    if (trial % 3 == 0)
      for (size_t i = 0; i < n; i++) { seed = seed * 1664525u + 1013904223u; r[i] = (uint8_t)(seed >> 24); }
    if (onnx_read_memory(r, n, &g, &err) == YRT_OK) {
      ir_fold_constants(g, &err);
      ir_infer_shapes(g, &err);
      ir_graph_free(g);
    }
    g = NULL;
  }
  free(r);
  free(b);
  assert_int_equal(onnx_read_memory(NULL, 0, &g, &err), YRT_ERR_FORMAT);
}

static void test_bad_initializer_size(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  float f[4] = {0};
  int64_t d = 4;
  onnx_model_add_initializer(m, "w", IR_F32, 1, &d, f);
  m->graph->initializer[0]->dims[0] = 5; /* says 5, holds 4 */
  onnx_model_add_output(m, "w", IR_F32, -1, NULL);
  ir_graph *g = NULL;
  yrt_error err;
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "'w'"));

  m = onnx_model_new(13);
  onnx_model_add_initializer_ex(m, "v", IR_I64, 1, &d, (int64_t[]){1, 2, 3, 4}, 0);
  m->graph->initializer[0]->n_int64_data = 3;
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "'v'"));

  m = onnx_model_new(13);
  onnx_model_add_initializer(m, "neg", IR_F32, 1, &d, f);
  m->graph->initializer[0]->dims[0] = -4;
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_ERR_FORMAT);
}

/* float16 / bfloat16 tensors are read as float32, exactly: zeros, subnormals, normals, the
 * largest half, infinities and NaN, from raw_data and from int32_data; a raw_data of odd
 * length or the wrong count is an error naming the tensor. */
static void test_half_tensors(void **state) {
  (void)state;
  const uint16_t h[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xc000, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x3555};
  const float want[] = {0.0f, -0.0f, 0x1p-24f, 0x3ffp-24f, 0x1p-14f, 1.0f, -2.0f, 65504.0f, INFINITY, -INFINITY, NAN,
                        0x1.554p-2f};
  enum { N = sizeof h / sizeof h[0] };
  for (int src = 0; src < 2; src++) {
    Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
    int64_t dims[1] = {N};
    int32_t bits[N];
    uint8_t raw[2 * N];
    for (int i = 0; i < N; i++) bits[i] = h[i], raw[2 * i] = (uint8_t)h[i], raw[2 * i + 1] = (uint8_t)(h[i] >> 8);
    tp.data_type = IR_ONNX_FLOAT16;
    tp.n_dims = 1;
    tp.dims = dims;
    if (src) {
      tp.n_int32_data = N;
      tp.int32_data = bits;
    } else {
      tp.has_raw_data = 1;
      tp.raw_data.len = sizeof raw;
      tp.raw_data.data = raw;
    }
    ir_dtype dt;
    int rank;
    int64_t od[IR_MAX_RANK];
    void *data = NULL;
    size_t nb;
    yrt_error err;
    assert_int_equal(onnx_tensor_decode(&tp, "h", &dt, &rank, od, &data, &nb, &err), YRT_OK);
    assert_int_equal(dt, IR_F32);
    assert_int_equal(nb, N * 4);
    const float *f = data;
    for (int i = 0; i < N; i++) {
      if (isnan(want[i])) assert_true(isnan(f[i]));
      else assert_memory_equal(&f[i], &want[i], 4);
    }
    free(data);
    if (!src) { /* bfloat16: the upper half of a float's bits */
      tp.data_type = IR_ONNX_BFLOAT16;
      assert_int_equal(onnx_tensor_decode(&tp, "b", &dt, &rank, od, &data, &nb, &err), YRT_OK);
      for (int i = 0; i < N; i++) {
        uint32_t u = (uint32_t)h[i] << 16;
        assert_memory_equal(&((const float *)data)[i], &u, 4);
      }
      free(data);
      tp.raw_data.len = sizeof raw - 1;
      assert_int_equal(onnx_tensor_decode(&tp, "odd_half", &dt, &rank, od, &data, &nb, &err), YRT_ERR_FORMAT);
      assert_non_null(strstr(err.msg, "odd_half"));
    } else {
      tp.n_int32_data = N - 1;
      assert_int_equal(onnx_tensor_decode(&tp, "short_half", &dt, &rank, od, &data, &nb, &err), YRT_ERR_FORMAT);
      assert_non_null(strstr(err.msg, "short_half"));
    }
  }
}

static void test_external_data(void **state) {
  (void)state;
  Onnx__ModelProto *m = onnx_model_new(13);
  float f[4] = {0};
  int64_t d = 4;
  onnx_model_add_initializer(m, "big_weight", IR_F32, 1, &d, f);
  Onnx__TensorProto *t = m->graph->initializer[0];
  t->has_data_location = 1;
  t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  ir_graph *g = NULL;
  yrt_error err;
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "big_weight"));
  assert_non_null(strstr(err.msg, "external"));
}

static void test_structure_errors(void **state) {
  (void)state;
  ir_graph *g = NULL;
  yrt_error err;
  /* node reads a tensor nothing defines */
  Onnx__ModelProto *m = onnx_model_new(13);
  const char *in[] = {"ghost"}, *out[] = {"y"};
  TU_NODE(m, "Relu", "r", in, out);
  onnx_model_add_output(m, "y", IR_F32, -1, NULL);
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "ghost"));
  /* two producers */
  m = onnx_model_new(13);
  onnx_model_add_input(m, "x", IR_F32, 4, IN_DIMS);
  const char *ix[] = {"x"};
  TU_NODE(m, "Relu", "r1", ix, out);
  TU_NODE(m, "Relu", "r2", ix, out);
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_ERR_FORMAT);
  /* undeclared output */
  m = onnx_model_new(13);
  onnx_model_add_output(m, "nowhere", IR_F32, -1, NULL);
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_ERR_FORMAT);
  /* no opset */
  m = onnx_model_new(13);
  m->opset_import[0]->domain[0] = 0;
  free(m->opset_import[0]->domain);
  m->opset_import[0]->domain = ir_strdup("com.other");
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_ERR_FORMAT);
}

static void test_names_parser(void **state) {
  (void)state;
  ir_graph *g = NULL;
  yrt_error err;
  Onnx__ModelProto *m = onnx_model_new(13);
  onnx_model_set_metadata(m, "names", "{1: 'b', 0: 'a'}");
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_OK);
  assert_string_equal(g->class_names, "a\nb");
  ir_graph_free(g);
  m = onnx_model_new(13);
  onnx_model_set_metadata(m, "names", "{0: 'a', 2: 'gap'}"); /* not dense: ignored */
  onnx_model_set_metadata(m, "yolort.synthetic", "0");
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_OK);
  assert_null(g->class_names);
  assert_int_equal(g->synthetic, 0);
  ir_graph_free(g);
  m = onnx_model_new(13);
  onnx_model_set_metadata(m, "names", "{0: 'unterminated");
  assert_int_equal(tu_to_graph(m, &g, &err), YRT_OK);
  assert_null(g->class_names);
  ir_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),         cmocka_unit_test(test_edit_and_file),
      cmocka_unit_test(test_truncated_and_random), cmocka_unit_test(test_bad_initializer_size),
      cmocka_unit_test(test_external_data),      cmocka_unit_test(test_structure_errors),
      cmocka_unit_test(test_names_parser),       cmocka_unit_test(test_half_tensors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
