/* bench_util.h — clock, statistics, memory and file-size helpers of yolort-bench. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>

/* Monotonic wall clock in milliseconds. */
double bench_now_ms(void);

typedef struct bench_stats {
  int n;
  double min, median, p90, mean;
} bench_stats;

/* Sorts v[0..n) in place and fills st. p90 is nearest-rank (same rule as bench_ort.js).
 * n == 0 gives all zeros. */
void bench_stats_compute(double *v, int n, bench_stats *st);

typedef struct bench_mem {
  long maxrss_kb; /* getrusage(RUSAGE_SELF).ru_maxrss */
  long vmhwm_kb;  /* /proc/self/status VmHWM, -1 when unavailable */
  long vmrss_kb;  /* /proc/self/status VmRSS, -1 when unavailable */
} bench_mem;

void bench_mem_read(bench_mem *m);

/* File size in bytes, -1 on error. */
long long bench_file_size(const char *path);

/* Reads a whole file into a malloc'ed buffer. Returns 0 on success, -1 with msg otherwise. */
int bench_read_file(const char *path, void **data, size_t *size, char *msg, size_t cap);

/* CPU model name and whether the CPU reports AVX-512 VNNI / AVX-VNNI (from /proc/cpuinfo;
 * "unknown" and 0 elsewhere). */
typedef struct bench_cpu {
  char model[128];
  int avx2, avx512f, avx512_vnni, avx_vnni, amx_int8, online;
} bench_cpu;
void bench_cpu_read(bench_cpu *c);

#endif
