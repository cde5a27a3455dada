/* test_ir_core — ir.c: tensors, hash lookup, nodes, attributes, consumers, topo order, compact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir.h"

static void test_dtype_size(void **state) {
  (void)state;
  assert_int_equal(ir_dtype_size(IR_F32), 4);
  assert_int_equal(ir_dtype_size(IR_I64), 8);
  assert_int_equal(ir_dtype_size(IR_I8), 1);
  assert_int_equal(ir_dtype_size(IR_U8), 1);
  assert_int_equal(ir_dtype_size(IR_I32), 4);
  assert_int_equal(ir_dtype_size((ir_dtype)16), 0);
}

static void test_many_tensors_lookup(void **state) {
  (void)state;
  ir_graph *g = ir_graph_new();
  assert_non_null(g);
  char name[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(name, sizeof(name), "t%d", i);
    int t = ir_add_tensor(g, name, IR_F32);
    assert_int_equal(t, i);
    assert_int_equal(g->tensors[t].rank, -1);
    assert_int_equal(g->tensors[t].producer, -1);
  }
  for (int i = 0; i < 5000; i += 7) {
    snprintf(name, sizeof(name), "t%d", i);
    assert_int_equal(ir_find_tensor(g, name), i);
  }
  assert_int_equal(ir_find_tensor(g, "nope"), -1);
  int anon = ir_add_tensor(g, NULL, IR_F32);
  assert_true(anon >= 0);
  assert_int_equal(ir_find_tensor(g, g->tensors[anon].name), anon);
  ir_graph_free(g);
}

/* a -> A -> b -> B -> c ; a -> C -> d (dead) */
static ir_graph *chain(void) {
  ir_graph *g = ir_graph_new();
  int a = ir_add_tensor(g, "a", IR_F32), b = ir_add_tensor(g, "b", IR_F32);
  int c = ir_add_tensor(g, "c", IR_F32), d = ir_add_tensor(g, "d", IR_F32);
  ir_add_tensor(g, "unused", IR_F32);
  ir_graph_add_input(g, a);
  ir_graph_add_output(g, c);
  /* add B first so that index order is not execution order */
  int nb = ir_add_node(g, "B", "Relu", &b, 1, &c, 1);
  int na = ir_add_node(g, "A", "Relu", &a, 1, &b, 1);
  int nc = ir_add_node(g, "C", "Relu", &a, 1, &d, 1);
  assert_true(nb == 0 && na == 1 && nc == 2);
  g->nodes[nc].dead = 1;
  return g;
}

static void test_nodes_attrs_consumers(void **state) {
  (void)state;
  ir_graph *g = chain();
  assert_int_equal(g->tensors[ir_find_tensor(g, "b")].producer, 1);
  assert_int_equal(ir_set_attr_int(g, 0, "axis", 3), 0);
  assert_int_equal(ir_set_attr_float(g, 0, "alpha", 0.5f), 0);
  assert_int_equal(ir_set_attr_string(g, 0, "mode", "nearest"), 0);
  int64_t v[3] = {1, 2, 3};
  assert_int_equal(ir_set_attr_ints(g, 0, "pads", v, 3), 0);
  assert_int_equal(ir_attr_int(&g->nodes[0], "axis", 0), 3);
  assert_int_equal(ir_attr_int(&g->nodes[0], "missing", 7), 7);
  assert_true(ir_attr_float(&g->nodes[0], "alpha", 0) == 0.5f);
  assert_string_equal(ir_attr_string(&g->nodes[0], "mode", "x"), "nearest");
  assert_string_equal(ir_attr_string(&g->nodes[0], "axis", "x"), "x");
  assert_int_equal(ir_attr_get(&g->nodes[0], "pads")->n_ints, 3);
  assert_int_equal(ir_set_attr_int(g, 0, "axis", 1), 0); /* replace */
  assert_int_equal(g->nodes[0].n_attrs, 4);
  int cons[4];
  assert_int_equal(ir_consumers(g, ir_find_tensor(g, "a"), cons, 4), 1); /* C is dead */
  assert_int_equal(cons[0], 1);
  ir_graph_free(g);
}

static void test_topo_and_compact(void **state) {
  (void)state;
  ir_graph *g = chain();
  yrt_error err;
  int *order, n;
  assert_int_equal(ir_topo_order(g, &order, &n, &err), YRT_OK);
  assert_int_equal(n, 2);
  assert_int_equal(order[0], 1);
  assert_int_equal(order[1], 0);
  free(order);
  assert_int_equal(ir_compact(g, &err), YRT_OK);
  assert_int_equal(g->n_nodes, 2);
  assert_int_equal(g->n_tensors, 3);
  assert_int_equal(ir_find_tensor(g, "d"), -1);
  assert_int_equal(ir_find_tensor(g, "unused"), -1);
  int c = ir_find_tensor(g, "c");
  assert_true(c >= 0);
  assert_int_equal(g->outputs[0], c);
  assert_string_equal(g->nodes[g->tensors[c].producer].name, "B");
  assert_int_equal(g->tensors[g->inputs[0]].is_input, 1);
  ir_graph_free(g);
}

static void test_cycle(void **state) {
  (void)state;
  ir_graph *g = ir_graph_new();
  int a = ir_add_tensor(g, "a", IR_F32), b = ir_add_tensor(g, "b", IR_F32);
  ir_add_node(g, "X", "Relu", &a, 1, &b, 1);
  ir_add_node(g, "Y", "Relu", &b, 1, &a, 1);
  yrt_error err;
  int *order = NULL, n = 0;
  assert_int_equal(ir_topo_order(g, &order, &n, &err), YRT_ERR_FORMAT);
  assert_null(order);
  assert_non_null(strstr(err.msg, "cycle"));
  ir_graph_free(g);
}

static void test_bad_node_indices(void **state) {
  (void)state;
  ir_graph *g = ir_graph_new();
  int a = ir_add_tensor(g, "a", IR_F32);
  int bad = 5;
  assert_int_equal(ir_add_node(g, "X", "Relu", &a, 1, &bad, 1), -1);
  assert_int_equal(ir_add_node(g, "X", "Relu", &bad, 1, &a, 1), -1);
  ir_graph_free(g);
  ir_graph_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dtype_size),        cmocka_unit_test(test_many_tensors_lookup),
      cmocka_unit_test(test_nodes_attrs_consumers), cmocka_unit_test(test_topo_and_compact),
      cmocka_unit_test(test_cycle),             cmocka_unit_test(test_bad_node_indices),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
