/* cpu_count.c — how many CPUs this process may run on: the online CPUs, fewer when the process
 * is pinned to a subset (taskset, cgroup cpusets), so that the default thread count never
 * exceeds the cores the scheduler will give us. */
#if defined(__linux__)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#endif
#include <unistd.h>

#include "cpu_count.h"

int yrt_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
#if defined(__linux__) && defined(CPU_COUNT)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int a = CPU_COUNT(&set);
    if (a >= 1 && a < n) n = a;
  }
#endif
  return n > 1 << 16 ? 1 << 16 : (int)n;
}
