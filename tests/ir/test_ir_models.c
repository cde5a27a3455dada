/* test_ir_models — the converter front end on the real models in ../shared:
 * shapes fully inferred, every Reshape shape constant, QDQ annotation clean, FP32 head region. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir.h"
#include "test_data.h"

static ir_graph *load(const char *rel, int annotate) {
  char path[1024];
  yt_data_path(path, sizeof(path), rel);
  ir_graph *g = NULL;
  yrt_error err = {{0}};
  yrt_status st = onnx_read_file(path, &g, &err);
  if (st) fail_msg("read %s: %s", rel, err.msg);
  if ((st = ir_fold_constants(g, &err))) fail_msg("fold %s: %s", rel, err.msg);
  if ((st = ir_infer_shapes(g, &err))) fail_msg("shapes %s: %s", rel, err.msg);
  if (annotate && (st = ir_qdq_annotate(g, &err))) fail_msg("qdq %s: %s", rel, err.msg);
  if ((st = ir_compact(g, &err))) fail_msg("compact %s: %s", rel, err.msg);
  return g;
}

static void check_shapes(const ir_graph *g, int64_t anchors) {
  int out = g->outputs[0];
  const ir_tensor *o = &g->tensors[out];
  assert_string_equal(o->name, "output0");
  assert_int_equal(o->rank, 3);
  assert_int_equal(o->dims[0], 1);
  assert_int_equal(o->dims[1], 84);
  assert_int_equal(o->dims[2], anchors);
  for (int i = 0; i < g->n_tensors; i++)
    if (g->tensors[i].rank < 0) fail_msg("tensor '%s' has unknown rank", g->tensors[i].name);
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    if (ir_node_is(n, "Reshape") && !g->tensors[n->in[1]].data)
      fail_msg("Reshape '%s' shape is not constant", n->name);
    if (ir_node_is(n, "Constant") || ir_node_is(n, "Shape"))
      fail_msg("node '%s' (%s) was not folded", n->name, n->op_type);
  }
}

static void test_fp32_640(void **state) {
  (void)state;
  char p[1024];
  YT_REQUIRE_DATA(p, "models/yolo11n-640.onnx");
  ir_graph *g = load("models/yolo11n-640.onnx", 0);
  check_shapes(g, 8400);
  assert_non_null(g->class_names);
  assert_true(strncmp(g->class_names, "person\nbicycle\ncar\n", 19) == 0);
  assert_int_equal(g->opset, 12);
  ir_graph_free(g);
}

static void test_fp32_320(void **state) {
  (void)state;
  char p[1024];
  YT_REQUIRE_DATA(p, "models/yolo11n-320.onnx");
  ir_graph *g = load("models/yolo11n-320.onnx", 0);
  check_shapes(g, 2100);
  ir_graph_free(g);
}

static void check_annotated(const ir_graph *g) {
  int images = g->inputs[0];
  assert_int_equal(g->tensors[images].q.on, 1);
  assert_int_equal(g->tensors[images].q.dtype, IR_I8);
  int convs = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    if (ir_node_is(n, "QuantizeLinear") || ir_node_is(n, "DequantizeLinear"))
      fail_msg("Q/DQ node '%s' left", n->name);
    if (!ir_node_is(n, "Conv")) continue;
    convs++;
    const ir_tensor *w = &g->tensors[n->in[1]];
    if (!w->data || !w->qdata || !w->q.on || w->q.dtype != IR_I8)
      fail_msg("Conv '%s' weight '%s' is not a quantized constant", n->name, w->name);
    if (w->q.scales) assert_int_equal(w->q.n_scales, w->dims[0]);
    else assert_true(w->q.scale > 0);
    assert_int_equal(w->dtype, IR_F32);
    if (n->n_in > 2) {
      const ir_tensor *b = &g->tensors[n->in[2]];
      if (!b->qdata || b->q.dtype != IR_I32) fail_msg("Conv '%s' bias not int32", n->name);
      assert_int_equal(b->q.zero_point, 0);
    }
    /* activations entering a conv carry a quantization */
    if (!g->tensors[n->in[0]].q.on) fail_msg("Conv '%s' input not quantized", n->name);
  }
  assert_true(convs >= 64);
}

static void test_qdq_s8(void **state) {
  (void)state;
  char p[1024];
  YT_REQUIRE_DATA(p, "models/yolo11n-640.qdq.onnx");
  ir_graph *g = load("models/yolo11n-640.qdq.onnx", 1);
  check_shapes(g, 8400);
  check_annotated(g);
  ir_graph_free(g);
}

static void test_qdq_u8(void **state) {
  (void)state;
  char p[1024];
  YT_REQUIRE_DATA(p, "models/yolo11n-640.qdq-u8.onnx");
  ir_graph *g = load("models/yolo11n-640.qdq-u8.onnx", 1);
  check_shapes(g, 8400);
  check_annotated(g);
  ir_graph_free(g);
}

static void test_qdq_320(void **state) {
  (void)state;
  char p[1024];
  YT_REQUIRE_DATA(p, "models/yolo11n-320.qdq.onnx");
  ir_graph *g = load("models/yolo11n-320.qdq.onnx", 1);
  check_shapes(g, 2100);
  check_annotated(g);
  ir_graph_free(g);
}

static void test_qdq_wild_pertensor(void **state) {
  (void)state;
  char p[1024];
  YT_REQUIRE_DATA(p, "models/wild/yolov8n-640.qdq-u8-pertensor.onnx");
  ir_graph *g = load("models/wild/yolov8n-640.qdq-u8-pertensor.onnx", 1);
  check_shapes(g, 8400);
  check_annotated(g);
  ir_graph_free(g);
}

static void test_qdq_wild_conv_only(void **state) {
  (void)state;
  char p[1024];
  YT_REQUIRE_DATA(p, "models/wild/yolov8n-640.qdq-conv-only.onnx");
  ir_graph *g = load("models/wild/yolov8n-640.qdq-conv-only.onnx", 1);
  check_shapes(g, 8400);
  check_annotated(g);
  ir_graph_free(g);
}

/* The FP32 region is exactly the head: /model.23/ nodes from the Reshapes on, nothing of the
 * attention block in model.10. */
static void test_fp32_region_head(void **state) {
  (void)state;
  char p[1024];
  YT_REQUIRE_DATA(p, "models/yolo11n-640.qdq.onnx");
  ir_graph *g = load("models/yolo11n-640.qdq.onnx", 1);
  yrt_error err;
  assert_int_equal(ir_mark_fp32_region(g, NULL, &err), YRT_OK);
  int n_fp32 = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (n->dead) continue;
    int head = strncmp(n->name, "/model.23/", 10) == 0 && !ir_node_is(n, "Conv") &&
               !ir_node_is(n, "Sigmoid") && !ir_node_is(n, "Mul") && !ir_node_is(n, "Concat");
    if (n->fp32) n_fp32++;
    if (strncmp(n->name, "/model.23/", 10) != 0 && n->fp32)
      fail_msg("node '%s' outside the head is fp32", n->name);
    if (strncmp(n->name, "/model.23/Reshape", 17) == 0 && !n->fp32)
      fail_msg("head reshape '%s' not fp32", n->name);
    if (head && !n->fp32) fail_msg("head node '%s' (%s) not fp32", n->name, n->op_type);
    if (n->fp32)
      for (int j = 0; j < n->n_out; j++)
        if (g->tensors[n->out[j]].q.on) fail_msg("fp32 output '%s' keeps q", g->tensors[n->out[j]].name);
  }
  /* the head convs (cv2/cv3) stay int8, DFL conv is fp32 */
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (ir_node_is(n, "Conv") && strstr(n->name, "/dfl/")) assert_int_equal(n->fp32, 1);
    if (ir_node_is(n, "Conv") && strstr(n->name, "/cv2.0/")) assert_int_equal(n->fp32, 0);
    if (ir_node_is(n, "Softmax") && strstr(n->name, "/model.10/")) assert_int_equal(n->fp32, 0);
  }
  /* the reshape inputs (int8 conv outputs) keep their q */
  for (int i = 0; i < g->n_nodes; i++) {
    const ir_node *n = &g->nodes[i];
    if (strncmp(n->name, "/model.23/Reshape", 17) == 0)
      assert_int_equal(g->tensors[n->in[0]].q.on, 1);
  }
  print_message("fp32 head: %d nodes\n", n_fp32);
  assert_true(n_fp32 > 10);
  ir_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fp32_640),         cmocka_unit_test(test_fp32_320),
      cmocka_unit_test(test_qdq_s8),           cmocka_unit_test(test_qdq_u8),
      cmocka_unit_test(test_qdq_320),          cmocka_unit_test(test_qdq_wild_pertensor),
      cmocka_unit_test(test_qdq_wild_conv_only), cmocka_unit_test(test_fp32_region_head),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
