/* test_runtime_add_kind.c — adding a node kind touches 3 places of the runtime. The build ran
 * add_kind/add_kind.sh on a scratch copy of runtime/ (the recipe of docs/architecture.md: the
 * yrt_op value in yolort_format.h, the kind's room ops/negate.c + .h, one row in op_table.c); this
 * program is built from the copy's op_table.c and ops/negate.c, linked with the unchanged
 * libyolort: the new kind loads through the public calls (the built-in table), is validated,
 * prepared, run, named and refused through its row alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "node_kind.h"
#include "op_table.h"
#include "yrt_test_builder.h"

/* What differs between runtime/ and the copy, as `diff -rq` listed it at build time: exactly the
 * format header and the table changed, and the kind's two files added. */
static void test_three_places(void **state) {
  (void)state;
  FILE *f = fopen(YRT_ADD_KIND_DIR "/changed.txt", "r");
  assert_non_null(f);
  char line[1024];
  int format = 0, table = 0, kind_c = 0, kind_h = 0, other = 0;
  while (fgets(line, sizeof line, f)) {
    print_message("  %s", line);
    if (strstr(line, "include/yolort_format.h and ") && strstr(line, " differ")) format++;
    else if (strstr(line, "src/op_table.c and ") && strstr(line, " differ")) table++;
    else if (strstr(line, "Only in src/ops: negate.c")) kind_c++;
    else if (strstr(line, "Only in src/ops: negate.h")) kind_h++;
    else other++;
  }
  fclose(f);
  assert_int_equal(format, 1);
  assert_int_equal(table, 1);
  assert_int_equal(kind_c, 1);
  assert_int_equal(kind_h, 1);
  assert_int_equal(other, 0); /* nothing else in the runtime named the kind */
}

/* x [1,6] -> negate -> relu (a built-in kind, same table) -> y; its node is named "dummy". */
static void *build(int n_in, size_t *size) { return ytb_kind_then_relu(YRT_OP_NEGATE, NULL, 0, n_in, 6, size); }

static void test_new_kind_runs(void **state) {
  (void)state;
  assert_int_equal(yrt_builtin_ops()->count, YRT_OP_COUNT_); /* the copy's table, with the row */
  assert_string_equal(yrt_op_name(YRT_OP_NEGATE), "negate");
  size_t size;
  void *img = build(1, &size);
  yrt_error err;
  yrt_model *m = NULL;
  if (yrt_model_load_memory(img, size, 1, &m, &err) != YRT_OK) fail_msg("%s", err.msg);
  for (int threads = 1; threads <= 2; threads++) {
    yrt_session_options o = {.num_threads = threads};
    yrt_session *s = NULL;
    if (yrt_session_create(m, &o, &s, &err) != YRT_OK) fail_msg("%s", err.msg);
    const float x[6] = {-2.0f, -0.5f, 0.0f, 1.0f, 3.0f, -7.0f};
    assert_int_equal(yrt_session_set_input(s, 0, x, 6, &err), YRT_OK);
    assert_int_equal(yrt_session_run(s, &err), YRT_OK);
    yrt_tensor_view v;
    assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
    const float want[6] = {2.0f, 0.5f, 0.0f, 0.0f, 0.0f, 7.0f};
    assert_int_equal(v.count, 6);
    assert_memory_equal(v.data, want, sizeof want);
    assert_string_equal(yrt_session_node_kind(s, 0), "negate.f32");
    assert_string_equal(yrt_session_node_name(s, 0), "dummy");
    yrt_session_free(s);
  }
  yrt_model_free(m);
  free(img);
  /* its row's arity and its check are the ones the validator applies */
  img = build(2, &size);
  assert_int_equal(yrt_model_load_memory(img, size, 1, &m, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "(negate): 2 inputs (want 1..1)"));
  free(img);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_three_places),
      cmocka_unit_test(test_new_kind_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
