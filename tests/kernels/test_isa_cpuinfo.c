/* test_isa_cpuinfo.c — yk_isa_detect (CPUID + XGETBV on x86-64, getauxval hwcaps on Linux ARM, no
 * library) against cpuinfo, which it replaced in the core runtime: every capability both can tell
 * must agree on this machine. Built only where cpuinfo is installed; where cpuinfo cannot read the
 * CPU (qemu-user may hide /proc and /sys from it) there is nothing to compare and it says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cpuinfo.h>

#include "yk.h"

static void test_isa_equals_cpuinfo(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  print_message("yk_isa_detect: avx2 %d avx512 %d avx512vnni %d avx512vbmi %d avxvnni %d amx %d neon %d neon_dot %d\n",
                isa.avx2, isa.avx512, isa.avx512vnni, isa.avx512vbmi, isa.avxvnni, isa.amx, isa.neon, isa.neon_dot);
  if (!cpuinfo_initialize()) {
    print_message("cpuinfo cannot read this CPU: nothing to compare\n");
    skip();
  }
#if YK_ARCH_X86_64
  const int avx2 = cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3();
  const int avx512 = avx2 && cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl() &&
                     cpuinfo_has_x86_avx512dq();
  assert_int_equal(isa.avx2, avx2);
  assert_int_equal(isa.avx512, avx512);
  assert_int_equal(isa.avx512vnni, avx512 && cpuinfo_has_x86_avx512vnni());
  assert_int_equal(isa.avx512vbmi, avx512 && cpuinfo_has_x86_avx512vbmi());
  /* Debian's cpuinfo has no AVX-VNNI query: the compiler's own check instead */
#if defined(__clang__) ? __clang_major__ >= 16 : __GNUC__ >= 11
  __builtin_cpu_init();
  assert_int_equal(isa.avxvnni, avx2 && __builtin_cpu_supports("avxvnni"));
#endif
  assert_int_equal(isa.neon, 0);
#elif YK_ARCH_AARCH64
  assert_int_equal(isa.neon, 1);
  assert_int_equal(isa.neon_dot, cpuinfo_has_arm_neon_dot());
#elif YK_ARCH_ARMV7
  assert_int_equal(isa.neon, cpuinfo_has_arm_neon());
#endif
}

/* Two detections agree (nothing cached between them, nothing random). */
static void test_isa_detect_stable(void **state) {
  (void)state;
  yk_isa a, b;
  yk_isa_detect(&a);
  yk_isa_detect(&b);
  assert_memory_equal(&a, &b, sizeof a);
  yk_isa_detect(NULL); /* tolerated */
}

/* yk_isa_cap clears the flags above its level and re-selects: the same table as clearing them by
 * hand; a name that is no level leaves the yk_isa as it was; "scalar" leaves nothing. */
static void test_isa_cap(void **state) {
  (void)state;
  yk_isa a, b, c;
  yk_isa_detect(&a);
  b = a;
  c = a;
  assert_int_equal(yk_isa_cap(&c, "sse9"), -1);
  assert_memory_equal(&a, &c, sizeof a);
#if YK_ARCH_X86_64
  assert_int_equal(yk_isa_cap(&a, "avx2"), 0);
  b.amx = b.avx512 = b.avx512vnni = b.avx512vbmi = b.avxvnni = 0;
  assert_int_equal(yk_isa_cap(&c, "neon"), -1);
#elif YK_ARCH_AARCH64 || YK_ARCH_ARMV7
  assert_int_equal(yk_isa_cap(&a, "neon"), 0);
  b.neon_dot = 0;
#endif
  yk_isa_select(&b);
  assert_memory_equal(&a, &b, sizeof a);
  assert_int_equal(yk_isa_cap(&a, "scalar"), 0);
  yk_isa zero;
  memset(&zero, 0, sizeof zero);
  assert_memory_equal(&a, &zero, sizeof a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_isa_equals_cpuinfo),
      cmocka_unit_test(test_isa_detect_stable),
      cmocka_unit_test(test_isa_cap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
