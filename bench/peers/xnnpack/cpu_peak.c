/* cpu_peak.c — the machine's int8 and fp32 multiply-accumulate peak, measured: the yardstick
 * for the GMAC/s each conv reaches (docs/performance.md). One thread; the peak of N cores is
 * N times this when the clock holds.
 *   avx512-vnni  VPDPBUSD zmm: 64 u8*s8 MAC per instruction
 *   avx-vnni     VPDPBUSD ymm (VEX): 32 MAC
 *   avx2 int8    VPMADDUBSW + VPMADDWD + VPADDD ymm: 32 MAC per 3 instructions (no VNNI)
 *   avx2-exact   VPMADDWD + VPADDD ymm on int16: 16 MAC per 2 instructions, the exact s8 x s8
 *                path our AVX2 conv takes (vpmaddubsw's int16 pair sums saturate): its floor
 *   fma fp32     VFMADD231PS zmm: 16 MAC
 *   amx int8     TDPBSSD: 16x16 int32 += 16x64 s8 * 64x16 s8, 16384 MAC per instruction (4
 *                independent C tiles; Linux must grant the tile state: arch_prctl)
 * AArch64:
 *   armv8.0-exact  SMULL + SMLAL + SADALP: 16 exact s8 x s8 MAC per 3 instructions (two products
 *                summed in int16, safe when no weight is -128), the path of our NEON conv
 *                without dot product (Raspberry Pi 4, Cortex-A72 / A53): its floor
 *   armv8.0-single SMULL + SADALP: 8 MAC per 2 (any weight, -128 included)
 *   sdot         SDOT by lane (ARMv8.2 dot product): 16 MAC
 * 12 independent accumulators hide the latency. Built with target attributes so the file
 * compiles without global -m / -march flags and each part runs only when the CPU has it. */
#define _GNU_SOURCE /* syscall() */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#if defined(__x86_64__)
#include <immintrin.h>

#define ITERS 20000000L

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: other processes on the core do not count */
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define ACC12(op)                                                                              \
  a0 = op(a0); a1 = op(a1); a2 = op(a2); a3 = op(a3); a4 = op(a4); a5 = op(a5);                \
  a6 = op(a6); a7 = op(a7); a8 = op(a8); a9 = op(a9); a10 = op(a10); a11 = op(a11)

/* The timed body every peak shares: 12 independent chains of OP(a) (OP defined by the caller,
 * reading x and w) for ITERS rounds, then a reduction of the accumulators so none is dead.
 * A macro because each caller needs its own target attribute and vector type. */
#define TIMED_PEAK(VEC, ZERO, ADD, SINK_T, REDUCE, MAC_PER_OP)                                  \
  VEC a0 = ZERO, a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0,         \
      a9 = a0, a10 = a0, a11 = a0;                                                               \
  double t = now_s();                                                                            \
  for (long i = 0; i < ITERS; i++) {                                                             \
    ACC12(OP);                                                                                   \
    /* the accumulators opaque too: else gcc merges the 12 identical chains into one */         \
    __asm__ volatile("" : "+v"(x), "+v"(w), "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4),    \
                     "+v"(a5), "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11));     \
  }                                                                                              \
  t = now_s() - t;                                                                               \
  VEC s = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)));                     \
  s = ADD(s, ADD(ADD(a8, a9), ADD(a10, a11)));                                                   \
  volatile SINK_T sink = REDUCE(s);                                                              \
  (void)sink;                                                                                    \
  return 12.0 * (MAC_PER_OP) * ITERS / t * 1e-9

#define EXTRACT0_EPI32(s) _mm256_extract_epi32(s, 0)

__attribute__((target("avx512f,avx512vnni"))) static double peak_avx512_vnni(void) {
  __m512i x = _mm512_set1_epi8(3), w = _mm512_set1_epi8(-2);
#define OP(a) _mm512_dpbusd_epi32(a, x, w)
  TIMED_PEAK(__m512i, _mm512_setzero_si512(), _mm512_add_epi32, int, _mm512_reduce_add_epi32, 64.0);
#undef OP
}

__attribute__((target("avx2,avxvnni"))) static double peak_avx_vnni(void) {
  __m256i x = _mm256_set1_epi8(3), w = _mm256_set1_epi8(-2);
#define OP(a) _mm256_dpbusd_avx_epi32(a, x, w)
  TIMED_PEAK(__m256i, _mm256_setzero_si256(), _mm256_add_epi32, int, EXTRACT0_EPI32, 32.0);
#undef OP
}

__attribute__((target("avx2"))) static double peak_avx2_int8(void) {
  __m256i x = _mm256_set1_epi8(3), w = _mm256_set1_epi8(-2), one = _mm256_set1_epi16(1);
/* the accumulator feeds maddubs so the 12 chains cannot be merged by the compiler */
#define OP(a) _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_maddubs_epi16(a, w), one))
  TIMED_PEAK(__m256i, _mm256_setzero_si256(), _mm256_add_epi32, int, EXTRACT0_EPI32, 32.0);
#undef OP
}

__attribute__((target("avx2"))) static double peak_avx2_exact(void) {
  __m256i x = _mm256_set1_epi16(3), w = _mm256_set1_epi16(-2);
/* the accumulator feeds vpmaddwd so the 12 chains cannot be merged by the compiler */
#define OP(a) _mm256_add_epi32(a, _mm256_madd_epi16(a, w))
  TIMED_PEAK(__m256i, _mm256_setzero_si256(), _mm256_add_epi32, int, EXTRACT0_EPI32, 16.0);
#undef OP
}

__attribute__((target("avx512f"))) static double peak_fma512(void) {
  __m512 x = _mm512_set1_ps(1.0001f), w = _mm512_set1_ps(0.9999f);
#define OP(a) _mm512_fmadd_ps(x, w, a)
  TIMED_PEAK(__m512, _mm512_setzero_ps(), _mm512_add_ps, float, _mm512_reduce_add_ps, 16.0);
#undef OP
}

#if defined(__linux__)
/* AMX: CPUID.(7,0):EDX bits 24 (tile) and 25 (int8), and the kernel's permission for the tile
 * state (ARCH_REQ_XCOMP_PERM 0x1023, XFEATURE_XTILEDATA 18). */
static int amx_usable(void) {
  unsigned a = 7, b = 0, c = 0, d = 0;
  __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
  if ((d & (3u << 24)) != (3u << 24)) return 0;
  return syscall(SYS_arch_prctl, 0x1023, 18) == 0;
}

typedef struct {
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} tile_cfg;

__attribute__((target("amx-tile,amx-int8"))) static double peak_amx(void) {
  tile_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.palette = 1;
  for (int i = 0; i < 8; i++) cfg.colsb[i] = 64, cfg.rows[i] = 16;
  _Alignas(64) static const int8_t ab[16 * 64]; /* zeros: the rate does not depend on values */
  _tile_loadconfig(&cfg);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, ab, 64);
  _tile_loadd(5, ab, 64);
  _tile_loadd(6, ab, 64);
  _tile_loadd(7, ab, 64);
  const long iters = ITERS / 4;
  double t = now_s();
  for (long i = 0; i < iters; i++) {
    _tile_dpbssd(0, 4, 6);
    _tile_dpbssd(1, 4, 7);
    _tile_dpbssd(2, 5, 6);
    _tile_dpbssd(3, 5, 7);
  }
  t = now_s() - t;
  _tile_release();
  return 4.0 * 16384.0 * iters / t * 1e-9;
}
#endif

int main(void) {
  __builtin_cpu_init();
  printf("single-thread multiply-accumulate peak (GMAC/s; x cores for the machine):\n");
  if (__builtin_cpu_supports("avx512vnni")) printf("  int8 avx512-vnni  %8.1f\n", peak_avx512_vnni());
  else printf("  int8 avx512-vnni  (not supported)\n");
  /* gcc 12 has no __builtin_cpu_supports("avxvnni"): CPUID.(7,1):EAX bit 4 */
  unsigned a = 7, b = 0, c = 1, d = 0;
  __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
  if (a & (1u << 4)) printf("  int8 avx-vnni     %8.1f\n", peak_avx_vnni());
  else printf("  int8 avx-vnni     (not supported)\n");
  if (__builtin_cpu_supports("avx2")) printf("  int8 avx2 (no vnni) %6.1f\n", peak_avx2_int8());
  if (__builtin_cpu_supports("avx2")) printf("  int8 avx2-exact    %8.1f\n", peak_avx2_exact());
  if (__builtin_cpu_supports("avx512f")) printf("  fp32 avx512 fma   %8.1f\n", peak_fma512());
#if defined(__linux__)
  if (amx_usable()) printf("  int8 amx          %8.1f\n", peak_amx());
  else printf("  int8 amx          (not supported)\n");
#endif
  return 0;
}
#elif defined(__aarch64__)
#include <arm_neon.h>
#if defined(__linux__)
#include <sys/auxv.h>
#endif

#define ITERS 20000000L

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 12 chains a_i = OP(a_i) from distinct starts; each OP multiplies its own accumulator's bytes
 * (as the x86 ones do), so the compiler can neither merge the chains nor hoist the products;
 * the weights opaque ("w": a SIMD register) so none is folded. */
#define ARM_PEAK(OP, MAC_PER_OP)                                                                \
  int32x4_t a[12];                                                                              \
  for (int i = 0; i < 12; i++) a[i] = vdupq_n_s32(i + 1);                                       \
  double t = now_s();                                                                           \
  for (long it = 0; it < ITERS; it++) {                                                         \
    _Pragma("GCC unroll 12") for (int i = 0; i < 12; i++) a[i] = OP(a[i]);                      \
    __asm__ volatile("" : "+w"(w0), "+w"(w1));                                                 \
  }                                                                                             \
  t = now_s() - t;                                                                              \
  int32x4_t s = a[0];                                                                           \
  for (int i = 1; i < 12; i++) s = vaddq_s32(s, a[i]);                                          \
  volatile int sink = vaddvq_s32(s);                                                            \
  (void)sink;                                                                                   \
  return 12.0 * (MAC_PER_OP) * ITERS / t * 1e-9

static double peak_armv8_exact(void) {
  int8x16_t w0 = vdupq_n_s8(-2), w1 = vdupq_n_s8(3);
#define OP(acc)                                                                                 \
  vpadalq_s16(acc, vmlal_high_s8(vmull_s8(vget_low_s8(vreinterpretq_s8_s32(acc)),                \
                                          vget_low_s8(w0)),                                     \
                                 vreinterpretq_s8_s32(acc), w1))
  ARM_PEAK(OP, 16.0);
#undef OP
}

static double peak_armv8_single(void) {
  int8x16_t w0 = vdupq_n_s8(-2), w1 = vdupq_n_s8(3);
#define OP(acc) vpadalq_s16(acc, vmull_s8(vget_low_s8(vreinterpretq_s8_s32(acc)), vget_low_s8(w0)))
  ARM_PEAK(OP, 8.0);
#undef OP
}

/* SDOT through gcc's target attribute (clang 14 declares the intrinsic only in a file built
 * for ARMv8.2: there the row is left out); called only when HWCAP says the CPU has it. */
#if !defined(__clang__)
#define HAVE_SDOT_PEAK 1
__attribute__((target("arch=armv8.2-a+dotprod"))) static double peak_sdot(void) {
  int8x16_t w0 = vdupq_n_s8(-2), w1 = vdupq_n_s8(3);
#define OP(acc) vdotq_laneq_s32(acc, vreinterpretq_s8_s32(acc), w0, 1)
  ARM_PEAK(OP, 16.0);
#undef OP
}
#endif

int main(void) {
  printf("single-thread multiply-accumulate peak (GMAC/s; x cores for the machine):\n");
  printf("  int8 armv8.0-exact  %7.1f\n", peak_armv8_exact());
  printf("  int8 armv8.0-single %7.1f\n", peak_armv8_single());
#if defined(__linux__) && defined(HWCAP_ASIMDDP) && defined(HAVE_SDOT_PEAK)
  if (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) printf("  int8 sdot           %7.1f\n", peak_sdot());
  else printf("  int8 sdot           (not supported)\n");
#endif
  return 0;
}
#else
int main(void) {
  printf("cpu_peak: x86-64 and AArch64 only\n");
  return 0;
}
#endif
