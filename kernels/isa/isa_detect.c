/* isa_detect.c — CPU capabilities straight from the CPU and the OS, filled once per session (no
 * global state of ours): CPUID + XGETBV on x86-64, the kernel's hwcaps (getauxval) on Linux ARM.
 * Only libc, so a board support package need not carry cpuinfo; tests/kernels/test_isa_detect.c
 * checks the answer equals cpuinfo's wherever both exist. */
#define _DEFAULT_SOURCE /* syscall() */
#include <string.h>

#include "yk.h"

#if YK_ARCH_X86_64
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define BIT(v, n) (((v) >> (n)) & 1u)

/* XCR0: which register states the OS saves on a context switch (a CPU feature is usable only
 * when its registers survive one). Bytes, not the mnemonic: any assembler, no -mxsave. */
static unsigned long long xcr0(void) {
  unsigned lo = 0, hi = 0;
  __asm__ __volatile__(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}

/* AMX-TILE and AMX-INT8 (CPUID.(EAX=7,ECX=0):EDX bits 24 and 25), usable only once Linux grants
 * the process the tile data state (ARCH_REQ_XCOMP_PERM 0x1023 for XFEATURE_XTILEDATA 18;
 * process-wide and idempotent, so asking on every detect is harmless). Without the permission the
 * first tile instruction faults. Elsewhere (no such call) never. valgrind hides these CPUID bits
 * (and does not know the tile instructions): 0 there. */
static int amx_usable(unsigned edx7) {
  if (!BIT(edx7, 24) || !BIT(edx7, 25)) return 0;
#if defined(__linux__) && defined(SYS_arch_prctl)
  return syscall(SYS_arch_prctl, 0x1023, 18) == 0;
#else
  return 0;
#endif
}

static void detect_x86(yk_isa *isa) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return;
  const unsigned fma = BIT(c, 12);
  /* OSXSAVE (XGETBV may run) and AVX, and the OS saves XMM + YMM (XCR0 bits 1, 2) */
  if (!BIT(c, 27) || !BIT(c, 28)) return;
  const unsigned long long xcr = xcr0();
  if ((xcr & 0x6) != 0x6) return;
  const int zmm_saved = (xcr & 0xe6) == 0xe6; /* + opmask, ZMM0-15 upper halves, ZMM16-31 */
  unsigned a7 = 0, b7 = 0, c7 = 0, d7 = 0;
  if (!__get_cpuid_count(7, 0, &a7, &b7, &c7, &d7)) return;
  /* Our *_avx2.c files are built with -mavx2 -mfma, *_avx512*.c also with -mavx512dq. */
  isa->avx2 = fma && BIT(b7, 5);
  isa->avx512 = isa->avx2 && zmm_saved && BIT(b7, 16) /* F */ && BIT(b7, 17) /* DQ */ && BIT(b7, 30) /* BW */ &&
                BIT(b7, 31) /* VL */;
  isa->avx512vnni = isa->avx512 && BIT(c7, 11);
  isa->avx512vbmi = isa->avx512 && BIT(c7, 1);
  unsigned a71 = 0, b71 = 0, c71 = 0, d71 = 0;
  /* AVX-VNNI: CPUID.(EAX=7,ECX=1):EAX bit 4 (leaf 7's subleaf count is its EAX) */
  if (a7 >= 1 && __get_cpuid_count(7, 1, &a71, &b71, &c71, &d71)) isa->avxvnni = isa->avx2 && BIT(a71, 4);
  isa->amx = amx_usable(d7);
}
#endif

#if (YK_ARCH_AARCH64 || YK_ARCH_ARMV7) && defined(__linux__)
#include <sys/auxv.h>
#endif

void yk_isa_detect(yk_isa *isa) {
  if (!isa) return;
  memset(isa, 0, sizeof(*isa));
#if YK_ARCH_X86_64
  detect_x86(isa);
#elif YK_ARCH_AARCH64
  isa->neon = 1; /* mandatory on AArch64 */
#if defined(__linux__)
  isa->neon_dot = (getauxval(AT_HWCAP) & (1ul << 20)) != 0; /* HWCAP_ASIMDDP (asm/hwcap.h) */
#endif
#elif YK_ARCH_ARMV7
#if defined(__linux__)
  isa->neon = (getauxval(AT_HWCAP) & (1ul << 12)) != 0; /* HWCAP_NEON (asm/hwcap.h) */
#endif
#endif
  yk_isa_select(isa);
}
