/* test_mixed_select.c — yolort-quantize --auto-mixed's choice from measured numbers: the chosen
 * costs never exceed the budget, the ranking is benefit per ms (a ~0 cost floored so a useless
 * free layer does not rank first), unmeasured or harmful candidates are never chosen, equal
 * ratios go by graph order, the same numbers give the same choice, a candidate is judged by what
 * it removes added to the set already chosen (one that removes nothing there is rejected), and
 * the report says what was chosen and what it cost. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mixed_select.h"

static char *names[] = {"/a/Conv", "/b/Conv", "/c/Conv", "/d/Conv", "/e/Conv", "/f/Conv", "/g/Conv", "/h/Conv"};

static void fill(mixed_candidate *c, int n, const double *benefit, const double *cost) {
  memset(c, 0, sizeof *c * (size_t)n);
  for (int i = 0; i < n; i++) {
    c[i].node = names[i];
    c[i].benefit = benefit[i];
    c[i].gain_db = benefit[i] * 10;
    c[i].cost_ms = cost[i];
    c[i].measured = 1;
  }
}

static double chosen_cost(const mixed_candidate *c, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    if (c[i].chosen) s += c[i].cost_ms > 0 ? c[i].cost_ms : 0;
  return s;
}

static void test_budget_respected(void **state) {
  (void)state;
  const double b[8] = {0.40, 0.30, 0.20, 0.10, 0.05, 0.30, 0.02, 0.01};
  const double k[8] = {2.00, 0.50, 0.30, 0.10, 0.05, 3.00, 0.00, 0.20};
  mixed_candidate c[8];
  /* every budget from 0 to above the total: the chosen costs fit and grow with the budget */
  int prev = 0;
  for (double budget = 0; budget < 7.0; budget += 0.05) {
    fill(c, 8, b, k);
    double used = -1;
    const int n = mixed_select(c, 8, budget, 1, NULL, NULL, &used);
    assert_true(used <= budget + 1e-9);
    assert_true(fabs(used - chosen_cost(c, 8)) < 1e-12);
    int count = 0;
    for (int i = 0; i < 8; i++) count += c[i].chosen;
    assert_int_equal(count, n);
    assert_true(n >= prev || budget < 0.1); /* more room never chooses fewer once past the free ones */
    prev = n;
  }
  fill(c, 8, b, k);
  assert_int_equal(mixed_select(c, 8, 1000, 1, NULL, NULL, NULL), 8);
  fill(c, 8, b, k);
  assert_int_equal(mixed_select(c, 8, -1, 1, NULL, NULL, NULL), 0); /* a negative budget chooses nothing */
}

static void test_ranking(void **state) {
  (void)state;
  /* b/c: a 0.2, b 0.6, c 0.667, d 1.0, e 1.0 (ties: d before e), f 0.1, g 0.01/0.01 floor = 1.0 */
  const double b[7] = {0.40, 0.30, 0.20, 0.10, 0.05, 0.30, 0.01};
  const double k[7] = {2.00, 0.50, 0.30, 0.10, 0.05, 3.00, 0.00};
  mixed_candidate c[7];
  fill(c, 7, b, k);
  double used;
  const int n = mixed_select(c, 7, 0.5, 1, NULL, NULL, &used);
  /* d (1.0), e (1.0), g (1.0, free), c (0.667): 0.45 ms; b (0.5) no longer fits */
  assert_int_equal(n, 4);
  assert_int_equal(c[3].rank, 1);
  assert_int_equal(c[4].rank, 2);
  assert_int_equal(c[6].rank, 3);
  assert_int_equal(c[2].rank, 4);
  assert_false(c[1].chosen);
  assert_false(c[0].chosen);
  assert_true(used > 0.449 && used < 0.451);
  /* a candidate that does not fit is skipped, a cheaper one after it still taken */
  const double b2[3] = {0.5, 0.4, 0.01};
  const double k2[3] = {0.5, 1.0, 0.1};
  fill(c, 3, b2, k2);
  assert_int_equal(mixed_select(c, 3, 0.7, 1, NULL, NULL, &used), 2);
  assert_true(c[0].chosen && !c[1].chosen && c[2].chosen);
}

static void test_never_chosen(void **state) {
  (void)state;
  const double b[5] = {0.5, 0.0, -0.2, 0.3, 0.001};
  const double k[5] = {0.1, 0.1, 0.1, 0.1, 0.001};
  mixed_candidate c[5];
  fill(c, 5, b, k);
  c[0].measured = 0; /* not timed: its cost is unknown */
  assert_int_equal(mixed_select(c, 5, 100, 1, NULL, NULL, NULL), 1);
  assert_true(c[3].chosen && !c[0].chosen && !c[1].chosen && !c[2].chosen);
  assert_true(!c[4].chosen && c[4].rejected); /* removes under MIXED_MIN_REMOVED */
}

static void test_deterministic(void **state) {
  (void)state;
  const double b[8] = {0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.05, 0.05};
  const double k[8] = {0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.05, 0.05}; /* every ratio 1 */
  mixed_candidate c[8], d[8];
  fill(c, 8, b, k);
  fill(d, 8, b, k);
  const int n1 = mixed_select(c, 8, 0.35, 1, NULL, NULL, NULL), n2 = mixed_select(d, 8, 0.35, 1, NULL, NULL, NULL);
  assert_int_equal(n1, n2);
  for (int i = 0; i < 8; i++) {
    assert_int_equal(c[i].chosen, d[i].chosen);
    assert_int_equal(c[i].rank, d[i].rank);
  }
  /* equal ratios: graph order (a 0.1, b 0.1, c 0.1 = 0.3; d does not fit, e/f neither, g 0.05) */
  assert_true(c[0].rank == 1 && c[1].rank == 2 && c[2].rank == 3 && c[6].rank == 4);
  /* selecting again resets the previous choice */
  assert_int_equal(mixed_select(c, 8, 0.0, 1, NULL, NULL, NULL), 0);
  for (int i = 0; i < 8; i++) assert_false(c[i].chosen);
}

static void test_unchoose_last(void **state) {
  (void)state;
  const double b[3] = {0.3, 0.2, 0.1};
  const double k[3] = {0.1, 0.1, 0.1};
  mixed_candidate c[3];
  fill(c, 3, b, k);
  assert_int_equal(mixed_select(c, 3, 1, 1, NULL, NULL, NULL), 3);
  assert_int_equal(mixed_unchoose_last(c, 3), 2);
  assert_int_equal(mixed_unchoose_last(c, 3), 1);
  assert_int_equal(mixed_unchoose_last(c, 3), 0);
  assert_int_equal(mixed_unchoose_last(c, 3), -1);
}

/* a/b share a block: once one is float the other removes nothing more; c removes half its own */
static int fake_marginal(void *ctx, const mixed_candidate *c, int n, int i, double *removed) {
  int *calls = ctx;
  (*calls)++;
  (void)n;
  if ((i == 0 && c[1].chosen) || (i == 1 && c[0].chosen)) *removed = 0;
  else if (i == 2) *removed = c[2].benefit / 2;
  else *removed = c[i].benefit;
  return 0;
}

static int failing_marginal(void *ctx, const mixed_candidate *c, int n, int i, double *removed) {
  (void)ctx, (void)c, (void)n, (void)i, (void)removed;
  return 1;
}

static void test_set_aware(void **state) {
  (void)state;
  const double b[4] = {0.40, 0.35, 0.30, 0.10};
  const double k[4] = {0.10, 0.10, 0.10, 0.10};
  mixed_candidate c[4], d[4];
  fill(c, 4, b, k);
  int calls = 0;
  double used;
  /* a first; b then removes nothing (rejected); c removes half its own (0.15) added to a, d 0.10 */
  assert_int_equal(mixed_select(c, 4, 1.0, 4, fake_marginal, &calls, &used), 3);
  assert_true(c[0].chosen && c[0].rank == 1 && c[0].in_set == 0.40);
  assert_true(!c[1].chosen && c[1].rejected);
  assert_true(c[2].chosen && c[2].rank == 2 && c[2].in_set == 0.15);
  assert_true(c[3].chosen && c[3].rank == 3);
  assert_true(used > 0.299 && used < 0.301);
  assert_true(calls > 4);
  /* the same numbers, the same choice */
  fill(d, 4, b, k);
  int calls2 = 0;
  mixed_select(d, 4, 1.0, 4, fake_marginal, &calls2, NULL);
  assert_int_equal(calls, calls2);
  for (int i = 0; i < 4; i++) assert_int_equal(c[i].rank, d[i].rank);
  /* the budget still holds: room for two */
  fill(c, 4, b, k);
  calls = 0;
  assert_int_equal(mixed_select(c, 4, 0.2, 4, fake_marginal, &calls, &used), 2);
  assert_true(used <= 0.2 + 1e-9);
  /* a failing measurement stops it */
  fill(c, 4, b, k);
  assert_int_equal(mixed_select(c, 4, 1.0, 2, failing_marginal, NULL, NULL), -1);
}

static void test_report(void **state) {
  (void)state;
  const double b[3] = {0.30, 0.20, 0.10};
  const double k[3] = {0.25, 0.10, 5.00};
  mixed_candidate c[3];
  fill(c, 3, b, k);
  double used;
  mixed_select(c, 3, 0.5, 1, NULL, NULL, &used);
  mixed_summary s = {.int8_ms = 4.0, .budget_ms = 0.5, .budget_pct = 12.5, .predicted_ms = used,
                     .measured_ms = 0.33, .int8_db = 30.0, .mixed_db = 32.5, .tensor = NULL,
                     .images = 8, .runs = 7, .threads = 1, .candidates = 3, .timed = 3};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  mixed_report_print(f, c, 3, &s);
  fclose(f);
  assert_non_null(strstr(buf, "kept in float (2)"));
  assert_non_null(strstr(buf, "1    /b/Conv"));  /* best per ms first */
  assert_non_null(strstr(buf, "2    /a/Conv"));
  assert_non_null(strstr(buf, "-    /c/Conv"));  /* left out: over the budget */
  assert_non_null(strstr(buf, "all-int8 4.000 ms; budget 0.500 ms (12.5%)"));
  assert_non_null(strstr(buf, "0.350 ms predicted"));
  assert_non_null(strstr(buf, "0.330 ms measured together; mixed 4.330 ms (+8.2%)"));
  assert_non_null(strstr(buf, "all-int8 30.00 dB, mixed 32.50 dB"));
  assert_non_null(strstr(buf, "error on output0 over 8 image(s)"));
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_budget_respected), cmocka_unit_test(test_ranking),
                                     cmocka_unit_test(test_never_chosen), cmocka_unit_test(test_deterministic),
                                     cmocka_unit_test(test_unchoose_last), cmocka_unit_test(test_set_aware),
                                     cmocka_unit_test(test_report)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
