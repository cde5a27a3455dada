/* test_runtime_op_table.c — the runtime's op registry (runtime/src/op_table.h): every built-in
 * kind has a complete row, and a kind registered only as a table row (an op id the built-in
 * table does not know) is validated, prepared, run, named and released through its row alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "op_table.h"
#include "session_internal.h"
#include "yrt_test_builder.h"

/* ---- every built-in kind has a complete row */

static void test_builtin_rows_complete(void **state) {
  (void)state;
  const yrt_op_table *t = yrt_builtin_ops();
  assert_int_equal(t->count, YRT_OP_COUNT_);
  assert_null(yrt_op_lookup(t, 0));
  assert_null(yrt_op_lookup(t, YRT_OP_COUNT_));
  for (uint32_t op = 1; op < YRT_OP_COUNT_; op++) {
    const yrt_op_def *d = yrt_op_lookup(t, op);
    if (!d) fail_msg("op %u has no row in op_table.c", (unsigned)op);
    assert_non_null(d->name);
    assert_true(d->name[0] != '\0');
    for (int k = 0; k < 3; k++) {
      assert_non_null(d->kind_names[k]);
      assert_memory_equal(d->kind_names[k], d->name, strlen(d->name)); /* "name.dtype" */
    }
    assert_non_null(d->check);
    assert_non_null(d->run);
    assert_true(d->min_in >= 1 && d->min_in <= d->max_in && d->max_in <= YRT_MAX_NODE_IO);
    assert_true(d->n_out >= 1 && d->n_out <= YRT_MAX_NODE_IO);
    assert_true((d->optional_in >> d->max_in) == 0);
    for (uint32_t o = 1; o < op; o++)
      if (!strcmp(yrt_op_lookup(t, o)->name, d->name)) fail_msg("ops %u and %u are both '%s'", o, op, d->name);
  }
}

/* ---- a dummy kind, registered through a table only: y = x + p[0] (f32) */

enum { OP_ADD_CONST = YRT_OP_COUNT_, TEST_OP_COUNT };

static yrt_status check_add_const(const yrt_node_check *v) {
  const yrt_tensor_rec *x = &v->m->tensors[v->n->in[0]], *y = &v->m->tensors[v->n->out[0]];
  if (x->dtype != YRT_F32 || y->dtype != YRT_F32) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "f32 only");
  if (yrt_tensor_numel(x) != yrt_tensor_numel(y)) return yrt_node_fail(v, YRT_ERR_SHAPE, "element counts differ");
  if (v->n->p[0] < -100 || v->n->p[0] > 100)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "constant %d outside -100..100", (int)v->n->p[0]);
  return YRT_OK;
}

/* The kind's own state, inline in its prepared node as every kind's is. */
typedef struct add_const_state {
  float c;
} add_const_state;
YRT_EXEC_STATE_FITS(add_const_state);

/* prepare: the constant as a float, kept in the node's state */
static yrt_status prepare_add_const(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  YRT_EXEC_STATE(add_const_state, e)->c = (float)e->node->p[0];
  return YRT_OK;
}

static yrt_status run_add_const(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  const float c = YRT_EXEC_STATE(add_const_state, e)->c;
  for (size_t i = 0; i < e->numel; i++) ((float *)e->out)[i] = ((const float *)e->in[0])[i] + c;
  return YRT_OK;
}

/* release: leaves a mark in the node's output (the test gives the session its own arena, which
 * outlives the session) */
static void release_add_const(yrt_exec *e) { ((float *)e->out)[0] = -77.0f; }

/* The built-in rows plus the dummy. */
typedef struct test_table {
  yrt_op_def rows[TEST_OP_COUNT];
  yrt_op_table t;
} test_table;

static void make_table(test_table *tt) {
  const yrt_op_table *b = yrt_builtin_ops();
  memset(tt, 0, sizeof *tt);
  memcpy(tt->rows, b->rows, b->count * sizeof *b->rows);
  tt->rows[OP_ADD_CONST] = (yrt_op_def){YRT_OP_NAMES("add_const"), .min_in = 1, .max_in = 1, .n_out = 1,
                                        .check = check_add_const, .prepare = prepare_add_const,
                                        .run = run_add_const, .release = release_add_const};
  tt->t.rows = tt->rows;
  tt->t.count = TEST_OP_COUNT;
}

/* x [1,5] -> add_const(p0) -> relu (a built-in unary, same table) -> y; n_in inputs on the dummy. */
static void *build(int32_t p0, int n_in, size_t *size) {
  const int32_t p[1] = {p0};
  return ytb_kind_then_relu(OP_ADD_CONST, p, 1, n_in, 5, size);
}

static void test_dummy_kind_through_table(void **state) {
  (void)state;
  test_table tt;
  make_table(&tt);
  size_t size;
  void *img = build(3, 1, &size);
  yrt_error err;
  yrt_model *m = NULL;

  char unknown[32];
  snprintf(unknown, sizeof unknown, "unknown op %d", OP_ADD_CONST);

  /* the built-in table does not know the kind */
  assert_int_equal(yrt_model_load_memory(img, size, 1, &m, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, unknown));

  /* with the dummy's row: validated, prepared, run, named and released through it */
  assert_int_equal(yrt_model_load_memory_ops(img, size, 1, &tt.t, &m, &err), YRT_OK);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  yrt_session_options o = {.num_threads = 1, .arena_bytes = info.arena_bytes};
  o.arena = aligned_alloc(64, info.arena_bytes);
  assert_non_null(o.arena);
  yrt_session *s = NULL;
  if (yrt_session_create(m, &o, &s, &err) != YRT_OK) fail_msg("%s", err.msg);
  assert_true(YRT_EXEC_STATE(add_const_state, &s->exec[0])->c == 3.0f); /* its prepare ran */
  const float x[5] = {-5.0f, -3.0f, -1.0f, 0.5f, 2.0f};
  assert_int_equal(yrt_session_set_input(s, 0, x, 5, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
  const float want[5] = {0.0f, 0.0f, 2.0f, 3.5f, 5.0f};
  assert_int_equal(v.count, 5);
  assert_memory_equal(v.data, want, sizeof want);
  assert_string_equal(yrt_session_node_kind(s, 0), "add_const.f32");
  assert_string_equal(yrt_session_node_kind(s, 1), "unary.f32");
  float *t = s->exec[0].out;
  assert_true(t[0] == -2.0f);
  yrt_session_free(s);
  assert_true(t[0] == -77.0f); /* its release ran */
  free(o.arena);
  yrt_model_free(m);
  free(img);

  /* its check is the one that runs: a constant out of its range */
  img = build(1000, 1, &size);
  assert_int_equal(yrt_model_load_memory_ops(img, size, 1, &tt.t, &m, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "(add_const): constant 1000 outside -100..100"));
  free(img);

  /* and its arity */
  img = build(3, 2, &size);
  assert_int_equal(yrt_model_load_memory_ops(img, size, 1, &tt.t, &m, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "(add_const): 2 inputs (want 1..1)"));
  free(img);
}

/* A row without a check is no kind: the validator refuses the op rather than guess. */
static void test_row_without_check_is_unknown(void **state) {
  (void)state;
  test_table tt;
  make_table(&tt);
  tt.rows[OP_ADD_CONST].check = NULL;
  size_t size;
  void *img = build(3, 1, &size);
  yrt_error err;
  yrt_model *m = NULL;
  assert_int_equal(yrt_model_load_memory_ops(img, size, 1, &tt.t, &m, &err), YRT_ERR_UNSUPPORTED);
  char unknown[32];
  snprintf(unknown, sizeof unknown, "unknown op %d", OP_ADD_CONST);
  assert_non_null(strstr(err.msg, unknown));
  free(img);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builtin_rows_complete),
      cmocka_unit_test(test_dummy_kind_through_table),
      cmocka_unit_test(test_row_without_check_is_unknown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
