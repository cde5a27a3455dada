/* test_class_names.c — yolort-convert --names' reader (tools/app/class_names.c): "coco", a file
 * of one name per line (CRLF, a BOM, blanks around names and at the end accepted), and the
 * refusals naming the file and line (a blank name inside, more names than allowed, no names, a
 * missing file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "class_names.h"

/* Writes text to a temporary file, loads it with at most max names: 0 and *names, or -1 and msg. */
static int load_text(const char *text, size_t max, char **names, char *msg, size_t cap, char *path, size_t pcap) {
  snprintf(path, pcap, "/tmp/yrt_names_%ld.txt", (long)getpid());
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  const int rc = class_names_load(path, max, names, msg, cap);
  remove(path);
  return rc;
}

static void test_names_coco(void **state) {
  (void)state;
  char *n = NULL, msg[256];
  assert_int_equal(class_names_load("coco", 1024, &n, msg, sizeof msg), 0);
  size_t lines = 1;
  for (const char *c = n; *c; c++) lines += *c == '\n';
  assert_int_equal(lines, 80);
  assert_true(strncmp(n, "person\nbicycle\n", 15) == 0);
  assert_non_null(strstr(n, "\ntraffic light\n"));
  assert_string_equal(n + strlen(n) - 11, "\ntoothbrush");
  free(n);
}

static void test_names_file(void **state) {
  (void)state;
  char *n = NULL, msg[256], path[64];
  assert_int_equal(load_text("\xEF\xBB\xBF" "cat\r\n  hot dog \r\nbird\n\n\n", 3, &n, msg, sizeof msg, path, sizeof path), 0);
  assert_string_equal(n, "cat\nhot dog\nbird");
  free(n);
  assert_int_equal(load_text("one", 3, &n, msg, sizeof msg, path, sizeof path), 0); /* no final newline */
  assert_string_equal(n, "one");
  free(n);
}

static void test_names_refused(void **state) {
  (void)state;
  char *n = NULL, msg[512], path[64];
  assert_int_equal(load_text("a\n\nb\n", 9, &n, msg, sizeof msg, path, sizeof path), -1);
  assert_null(n);
  assert_non_null(strstr(msg, "line 2 is blank"));
  assert_non_null(strstr(msg, path));
  assert_int_equal(load_text("a\nb\nc\n", 2, &n, msg, sizeof msg, path, sizeof path), -1);
  assert_non_null(strstr(msg, "more than 2 names"));
  assert_int_equal(load_text("\n \n", 9, &n, msg, sizeof msg, path, sizeof path), -1);
  assert_non_null(strstr(msg, "no names"));
  char longline[400];
  memset(longline, 'x', sizeof longline - 1);
  longline[sizeof longline - 1] = '\0';
  assert_int_equal(load_text(longline, 9, &n, msg, sizeof msg, path, sizeof path), -1);
  assert_non_null(strstr(msg, "line 1 is longer than 255 bytes"));
  assert_int_equal(class_names_load("/nonexistent/names.txt", 9, &n, msg, sizeof msg), -1);
  assert_non_null(strstr(msg, "/nonexistent/names.txt"));
  assert_null(n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names_coco),
      cmocka_unit_test(test_names_file),
      cmocka_unit_test(test_names_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
