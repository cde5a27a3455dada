/* cpu_count.h — the CPUs a session's default thread count is taken from (cpu_count.c). */
#ifndef YOLORT_CPU_COUNT_H
#define YOLORT_CPU_COUNT_H

/* Online CPUs this process may run on (its affinity mask on Linux), at least 1. */
int yrt_cpu_count(void);

#endif
