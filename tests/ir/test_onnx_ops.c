/* test_onnx_ops — the converter op table (tools/ir/onnx_ops.c): every id has exactly one row
 * (id == index, unique op_type, lookup round trip), rows are consistent (a lowered op has a
 * shape function, int8 rows are lowered, unary/binary rows name a kind, an op kept for the
 * end-to-end head's selection alone never folds or lowers), nodes cache their id, and an op_type
 * without a row (or with one but no shape function) fails in one place with "unsupported op 'X'
 * at node 'Y'". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir.h"
#include "ir_passes.h"
#include "onnx_ops.h"

static void test_every_id_has_its_row(void **state) {
  (void)state;
  assert_null(onnx_op_row_of(ONNX_OP_NONE));
  assert_null(onnx_op_row_of(ONNX_OP_COUNT));
  for (int i = ONNX_OP_NONE + 1; i < ONNX_OP_COUNT; i++) {
    const onnx_op_row *row = onnx_op_row_of((onnx_op)i);
    if (!row) fail_msg("op id %d has no row", i);
    assert_int_equal(row->id, i);
    assert_ptr_equal(onnx_op_find(row->op_type), row); /* also: op_type is unique */
    assert_int_equal(onnx_op_id(row->op_type), i);
  }
  assert_null(onnx_op_find("TotallyNewOp"));
  assert_null(onnx_op_find(NULL));
  assert_int_equal(onnx_op_id("conv"), ONNX_OP_NONE); /* op_type is case sensitive */
}

static void test_rows_are_consistent(void **state) {
  (void)state;
  for (int i = ONNX_OP_NONE + 1; i < ONNX_OP_COUNT; i++) {
    const onnx_op_row *row = onnx_op_row_of((onnx_op)i);
    /* a fused head node's shapes are set by the fusion that makes it */
    if (row->lower != ONNX_LOWER_NONE && !row->shape && !row->domain)
      fail_msg("%s is lowered but has no shape function", row->op_type);
    if (row->domain && row->lower == ONNX_LOWER_NONE) fail_msg("fused node %s is never lowered", row->op_type);
    if (row->qclass != ONNX_Q_FLOAT && row->lower == ONNX_LOWER_NONE)
      fail_msg("%s runs int8 but is never lowered", row->op_type);
    if ((row->flags & ONNX_F_PTQ_SHARE) && row->qclass != ONNX_Q_MOVE)
      fail_msg("%s shares its input's parameters but is not data movement", row->op_type);
    if (row->alpha != 0.0f && row->lower != ONNX_LOWER_UNARY)
      fail_msg("%s has an alpha but is not lowered as a unary", row->op_type);
    /* an end-to-end selection op the converter takes only inside that head: never on its own */
    if ((row->flags & ONNX_F_E2E_SELECT) && !row->shape && (row->fold || row->lower != ONNX_LOWER_NONE))
      fail_msg("%s is taken only in an end-to-end head but folds or lowers on its own", row->op_type);
    assert_true(row->lower >= ONNX_LOWER_NONE && row->lower < ONNX_LOWER_COUNT);
  }
}

static void test_node_caches_its_op(void **state) {
  (void)state;
  ir_graph *g = ir_graph_new();
  assert_non_null(g);
  int x = ir_add_tensor(g, "x", IR_F32), y = ir_add_tensor(g, "y", IR_F32),
      z = ir_add_tensor(g, "z", IR_F32);
  int a = ir_add_node(g, "sig", "Sigmoid", &x, 1, &y, 1);
  int b = ir_add_node(g, "nms", "NonMaxSuppression", &y, 1, &z, 1);
  assert_true(a >= 0 && b >= 0);
  assert_int_equal(g->nodes[a].op, ONNX_OP_SIGMOID);
  assert_true(ir_node_is_op(&g->nodes[a], ONNX_OP_SIGMOID));
  assert_false(ir_node_is_op(&g->nodes[a], ONNX_OP_RELU));
  assert_ptr_equal(ir_node_op(&g->nodes[a]), onnx_op_find("Sigmoid"));
  /* NonMaxSuppression has a row (the converter finds it there to cut it) but no shape function */
  assert_true(ir_node_is_op(&g->nodes[b], ONNX_OP_NON_MAX_SUPPRESSION));
  assert_null(ir_node_op(&g->nodes[b])->shape);
  /* an op of another domain is not the default-domain op of the same name */
  free(g->nodes[a].domain);
  g->nodes[a].domain = ir_strdup("com.example");
  assert_null(ir_node_op(&g->nodes[a]));
  assert_false(ir_node_is_op(&g->nodes[a], ONNX_OP_SIGMOID));
  /* a fused head node is its row only in domain "yolort", and only the live one is "live" */
  int d = ir_add_node(g, "dec", "DetectDecode", &y, 1, &z, 1);
  assert_true(d >= 0);
  assert_null(ir_node_row(&g->nodes[d])); /* default domain: not ours */
  free(g->nodes[d].domain);
  g->nodes[d].domain = ir_strdup("yolort");
  assert_null(ir_node_op(&g->nodes[d])); /* the default-domain passes never see it */
  assert_true(ir_node_is_live_op(&g->nodes[d], ONNX_OP_YOLORT_DETECT_DECODE));
  g->nodes[d].dead = 1;
  assert_false(ir_node_is_live_op(&g->nodes[d], ONNX_OP_YOLORT_DETECT_DECODE));
  assert_true(ir_node_is_op(&g->nodes[d], ONNX_OP_YOLORT_DETECT_DECODE));
  ir_graph_free(g);
}

static void test_unknown_op_error(void **state) {
  (void)state;
  ir_graph *g = ir_graph_new();
  assert_non_null(g);
  int x = ir_add_tensor(g, "x", IR_F32), y = ir_add_tensor(g, "y", IR_F32);
  ir_tensor_set_shape(&g->tensors[x], 2, (int64_t[]){2, 3});
  int n = ir_add_node(g, "odd_node", "TotallyNewOp", &x, 1, &y, 1);
  assert_true(n >= 0);
  yrt_error err = {{0}};
  assert_int_equal(ir_infer_node(g, n, &err), YRT_ERR_UNSUPPORTED);
  assert_string_equal(err.msg, "unsupported op 'TotallyNewOp' at node 'odd_node'");
  /* known op, other domain: the same message naming the domain */
  free(g->nodes[n].op_type);
  g->nodes[n].op_type = ir_strdup("Relu");
  g->nodes[n].op = onnx_op_id("Relu");
  free(g->nodes[n].domain);
  g->nodes[n].domain = ir_strdup("com.example");
  assert_int_equal(ir_infer_node(g, n, &err), YRT_ERR_UNSUPPORTED);
  assert_string_equal(err.msg, "unsupported op 'Relu' (domain 'com.example') at node 'odd_node'");
  /* an op with a row only for the end-to-end head's selection (fuse_e2e_head.c): the same
   * message anywhere else */
  free(g->nodes[n].op_type);
  g->nodes[n].op_type = ir_strdup("TopK");
  g->nodes[n].op = onnx_op_id("TopK");
  free(g->nodes[n].domain);
  g->nodes[n].domain = ir_strdup("");
  assert_true(ir_node_is_op(&g->nodes[n], ONNX_OP_TOPK));
  assert_true(ir_node_op(&g->nodes[n])->flags & ONNX_F_E2E_SELECT);
  assert_int_equal(ir_infer_node(g, n, &err), YRT_ERR_UNSUPPORTED);
  assert_string_equal(err.msg, "unsupported op 'TopK' at node 'odd_node'");
  free(g->nodes[n].op_type);
  g->nodes[n].op_type = ir_strdup("Relu");
  g->nodes[n].op = onnx_op_id("Relu");
  /* and the default-domain Relu goes through its row */
  free(g->nodes[n].domain);
  g->nodes[n].domain = ir_strdup("");
  assert_int_equal(ir_infer_node(g, n, &err), YRT_OK);
  assert_int_equal(g->tensors[y].rank, 2);
  assert_int_equal(g->tensors[y].dims[1], 3);
  ir_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_id_has_its_row),
      cmocka_unit_test(test_rows_are_consistent),
      cmocka_unit_test(test_node_caches_its_op),
      cmocka_unit_test(test_unknown_op_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
