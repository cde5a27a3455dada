/* bench_util.c — clock, statistics, memory and file helpers (see bench_util.h). */
#include "bench_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double bench_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void bench_stats_compute(double *v, int n, bench_stats *st) {
  memset(st, 0, sizeof(*st));
  if (n <= 0 || !v) return;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += v[i];
  st->n = n;
  st->min = v[0];
  st->median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  /* nearest rank: ceil(0.9 n) - 1 */
  int k = (9 * n + 9) / 10 - 1;
  if (k < 0) k = 0;
  if (k >= n) k = n - 1;
  st->p90 = v[k];
  st->mean = sum / n;
}

static long status_field_kb(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  size_t klen = strlen(key);
  long v = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
      v = strtol(line + klen + 1, NULL, 10);
      break;
    }
  }
  fclose(f);
  return v;
}

void bench_mem_read(bench_mem *m) {
  struct rusage ru;
  memset(m, 0, sizeof(*m));
  if (getrusage(RUSAGE_SELF, &ru) == 0) m->maxrss_kb = ru.ru_maxrss; /* kB on Linux */
  m->vmhwm_kb = status_field_kb("VmHWM");
  m->vmrss_kb = status_field_kb("VmRSS");
}

long long bench_file_size(const char *path) {
  struct stat st;
  if (!path || stat(path, &st) != 0) return -1;
  return (long long)st.st_size;
}

int bench_read_file(const char *path, void **data, size_t *size, char *msg, size_t cap) {
  *data = NULL;
  *size = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, cap, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  long long n = bench_file_size(path);
  if (n < 0) {
    snprintf(msg, cap, "%s: cannot stat", path);
    fclose(f);
    return -1;
  }
  void *buf = malloc(n > 0 ? (size_t)n : 1);
  if (!buf) {
    snprintf(msg, cap, "%s: out of memory for %lld bytes", path, n);
    fclose(f);
    return -1;
  }
  if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    snprintf(msg, cap, "%s: short read", path);
    free(buf);
    fclose(f);
    return -1;
  }
  fclose(f);
  *data = buf;
  *size = (size_t)n;
  return 0;
}

static int has_flag(const char *flags, const char *name) {
  size_t n = strlen(name);
  for (const char *p = flags; (p = strstr(p, name)) != NULL; p += n) {
    int start_ok = (p == flags) || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
    int end_ok = p[n] == ' ' || p[n] == '\n' || p[n] == '\0';
    if (start_ok && end_ok) return 1;
  }
  return 0;
}

void bench_cpu_read(bench_cpu *c) {
  memset(c, 0, sizeof(*c));
  snprintf(c->model, sizeof c->model, "unknown");
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  c->online = online > 0 ? (int)online : 1;
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[4096];
  int got_model = 0, got_flags = 0;
  while (fgets(line, sizeof line, f) && !(got_model && got_flags)) {
    if (!got_model && strncmp(line, "model name", 10) == 0) {
      const char *v = strchr(line, ':');
      if (v) {
        v++;
        while (*v == ' ') v++;
        snprintf(c->model, sizeof c->model, "%s", v);
        c->model[strcspn(c->model, "\n")] = '\0';
        got_model = 1;
      }
    } else if (!got_flags && strncmp(line, "flags", 5) == 0) {
      c->avx2 = has_flag(line, "avx2");
      c->avx512f = has_flag(line, "avx512f");
      c->avx512_vnni = has_flag(line, "avx512_vnni");
      c->avx_vnni = has_flag(line, "avx_vnni");
      c->amx_int8 = has_flag(line, "amx_int8") && has_flag(line, "amx_tile");
      got_flags = 1;
    }
  }
  fclose(f);
}
