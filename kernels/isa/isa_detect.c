/* isa_detect.c — CPU capabilities from cpuinfo, filled once per session (no global state of ours). */
#define _DEFAULT_SOURCE /* syscall() */
#include <cpuinfo.h>
#include <string.h>

#include "yk.h"

#if YK_ARCH_X86_64
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* AMX-TILE and AMX-INT8 (CPUID.(EAX=7,ECX=0):EDX bits 24 and 25; this cpuinfo has no AMX query),
 * usable only once Linux grants the process the tile data state (ARCH_REQ_XCOMP_PERM 0x1023 for
 * XFEATURE_XTILEDATA 18; process-wide and idempotent, so asking on every detect is harmless).
 * Without the permission the first tile instruction faults. Elsewhere (no such call) never.
 * valgrind hides these CPUID bits (and does not know the tile instructions): 0 there. */
static int amx_usable(void) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & (1u << 24)) || !(d & (1u << 25))) return 0;
#if defined(__linux__) && defined(SYS_arch_prctl)
  return syscall(SYS_arch_prctl, 0x1023, 18) == 0;
#else
  return 0;
#endif
}
#endif

void yk_isa_detect(yk_isa *isa) {
  if (!isa) return;
  memset(isa, 0, sizeof(*isa));
#if YK_ARCH_AARCH64
  isa->neon = 1; /* mandatory on AArch64: set even if cpuinfo cannot read this CPU (qemu-user) */
#endif
  if (!cpuinfo_initialize()) return;
#if YK_ARCH_X86_64
  /* Our *_avx2.c files are built with -mavx2 -mfma, *_avx512*.c also with -mavx512dq. */
  isa->avx2 = cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3();
  isa->avx512 = isa->avx2 && cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() &&
                cpuinfo_has_x86_avx512vl() && cpuinfo_has_x86_avx512dq();
  isa->avx512vnni = isa->avx512 && cpuinfo_has_x86_avx512vnni();
  isa->avx512vbmi = isa->avx512 && cpuinfo_has_x86_avx512vbmi();
  isa->amx = amx_usable();
  /* This cpuinfo (Debian 2022) has no AVX-VNNI query; gcc's runtime check covers it. */
#if defined(__clang__) && __clang_major__ < 16
  /* clang < 16 does not know "avxvnni" (fuzz build): CPUID.(EAX=7,ECX=1):EAX bit 4. */
  unsigned a = 0, b = 0, c = 0, d = 0;
  isa->avxvnni = isa->avx2 && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 4));
#else
  __builtin_cpu_init();
  isa->avxvnni = isa->avx2 && __builtin_cpu_supports("avxvnni");
#endif
#elif YK_ARCH_AARCH64
  isa->neon_dot = cpuinfo_has_arm_neon_dot();
#elif YK_ARCH_ARMV7
  isa->neon = cpuinfo_has_arm_neon();
#endif
}
