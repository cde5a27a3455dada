/* test_bench_units.c — the pure helpers of yolort-bench: statistics, option parsing, the conv
 * list (text round trip, .yrt parsing of bad input without crashing). No model needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench_convs.h"
#include "bench_opts.h"
#include "bench_util.h"
#include "yolort_format.h"

static void test_stats_odd_even(void **state) {
  (void)state;
  double v[5] = {5, 1, 4, 2, 3};
  bench_stats s;
  bench_stats_compute(v, 5, &s);
  assert_true(s.min == 1 && s.median == 3 && s.p90 == 5 && s.mean == 3 && s.n == 5);
  double w[4] = {4, 3, 2, 1};
  bench_stats_compute(w, 4, &s);
  assert_true(s.median == 2.5 && s.p90 == 4);
  double z[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  bench_stats_compute(z, 10, &s);
  assert_true(s.p90 == 9); /* nearest rank: ceil(0.9*10) = 9th */
  bench_stats_compute(NULL, 0, &s);
  assert_int_equal(s.n, 0);
}

static void test_opts(void **state) {
  (void)state;
  bench_opts o;
  char msg[256];
  char *a1[] = {"b", "m.yrt", "--threads", "1,2", "--batch", "1,4,8", "--runs", "3", "--json", "--convs"};
  assert_int_equal(bench_parse_args(10, a1, &o, msg, sizeof msg), 0);
  assert_string_equal(o.model, "m.yrt");
  assert_int_equal(o.n_threads, 2);
  assert_int_equal(o.threads[1], 2);
  assert_int_equal(o.n_batch, 3);
  assert_int_equal(o.batch[2], 8);
  assert_int_equal(o.runs, 3);
  assert_int_equal(o.warmup, 10);
  assert_true(o.json && o.convs && o.profile);
  char *a2[] = {"b", "m.yrt", "--runs", "0"};
  assert_int_equal(bench_parse_args(4, a2, &o, msg, sizeof msg), -1);
  char *a3[] = {"b", "m.yrt", "--batch"};
  assert_int_equal(bench_parse_args(3, a3, &o, msg, sizeof msg), -1);
  char *a4[] = {"b", "--threads", "2,x"};
  assert_int_equal(bench_parse_args(3, a4, &o, msg, sizeof msg), -1);
  char *a5[] = {"b"};
  assert_int_equal(bench_parse_args(1, a5, &o, msg, sizeof msg), -1);
}

static void test_convs_text_round_trip(void **state) {
  (void)state;
  bench_conv c[2];
  memset(c, 0, sizeof c);
  snprintf(c[0].name, sizeof c[0].name, "/model.0/conv/Conv");
  c[0] = (bench_conv){.n = 1, .h = 640, .w = 640, .cin = 3, .ho = 320, .wo = 320, .cout = 16,
                      .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pt = 1, .pl = 1, .pb = 1, .pr = 1,
                      .dh = 1, .dw = 1, .groups = 1, .int8 = 1};
  snprintf(c[0].name, sizeof c[0].name, "/model.0/conv/Conv");
  c[1] = (bench_conv){.n = 1, .h = 20, .w = 20, .cin = 64, .ho = 20, .wo = 20, .cout = 64,
                      .kh = 3, .kw = 3, .sh = 1, .sw = 1, .pt = 1, .pl = 1, .pb = 1, .pr = 1,
                      .dh = 1, .dw = 1, .groups = 64, .node = 7};
  snprintf(c[1].name, sizeof c[1].name, "dw");
  char path[] = "/tmp/yolort_bench_convsXXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  bench_convs_write(f, c, 2);
  fclose(f);
  bench_conv *r = NULL;
  int n = 0;
  char msg[256];
  assert_int_equal(bench_convs_load(path, &r, &n, msg, sizeof msg), 0);
  assert_int_equal(n, 2);
  assert_string_equal(r[0].name, "/model.0/conv/Conv");
  assert_true(r[0].macs == 1.0 * 320 * 320 * 16 * 9 * 3);
  assert_true(r[1].macs == 1.0 * 20 * 20 * 64 * 9);
  assert_int_equal(r[1].node, 7);
  free(r);
  /* a truncated line is an error with a message, not a crash */
  f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "bad 1 2 3\n");
  fclose(f);
  assert_int_equal(bench_convs_load(path, &r, &n, msg, sizeof msg), -1);
  assert_non_null(strstr(msg, ":1:"));
  unlink(path);
}

static void test_yrt_bad_input(void **state) {
  (void)state;
  bench_conv *r = NULL;
  int n = 0;
  char msg[256];
  uint8_t buf[256];
  memset(buf, 0, sizeof buf);
  assert_int_equal(bench_yrt_convs(buf, 10, &r, &n, msg, sizeof msg), -1);
  assert_int_equal(bench_yrt_convs(buf, sizeof buf, &r, &n, msg, sizeof msg), -1); /* magic */
  yrt_file_header h;
  memset(&h, 0, sizeof h);
  h.magic = YRT_MAGIC;
  h.n_sections = 3;
  h.section_table_offset = 250; /* table runs past the end */
  memcpy(buf, &h, sizeof h);
  assert_int_equal(bench_yrt_convs(buf, sizeof buf, &r, &n, msg, sizeof msg), -1);
  h.section_table_offset = 64;
  h.n_sections = 1;
  memcpy(buf, &h, sizeof h);
  yrt_section_rec s = {.kind = YRT_SEC_NODES, .offset = 128, .size = 1000}; /* past the end */
  memcpy(buf + 64, &s, sizeof s);
  assert_int_equal(bench_yrt_convs(buf, sizeof buf, &r, &n, msg, sizeof msg), -1);
  assert_null(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stats_odd_even),
      cmocka_unit_test(test_opts),
      cmocka_unit_test(test_convs_text_round_trip),
      cmocka_unit_test(test_yrt_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
