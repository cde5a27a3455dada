/* cli_num.c — strict numeric CLI arguments (see cli_num.h). */
#include "cli_num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int cli_parse_int(const char *prog, const char *opt, const char *s, long lo, long hi, int *out) {
  char *end = NULL;
  errno = 0;
  const long v = s ? strtol(s, &end, 10) : 0;
  if (!s || !*s || errno || end == s || *end || v < lo || v > hi || v < -2147483647L - 1 ||
      v > 2147483647L) {
    fprintf(stderr, "%s: %s expects an integer in [%ld, %ld], got '%s'\n", prog, opt, lo, hi,
            s ? s : "(nothing)");
    return 0;
  }
  *out = (int)v;
  return 1;
}

int cli_parse_double(const char *prog, const char *opt, const char *s, double lo, double hi,
                     double *out) {
  char *end = NULL;
  errno = 0;
  const double v = s ? strtod(s, &end) : 0.0;
  if (!s || !*s || errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
    fprintf(stderr, "%s: %s expects a number in [%g, %g], got '%s'\n", prog, opt, lo, hi,
            s ? s : "(nothing)");
    return 0;
  }
  *out = v;
  return 1;
}

int cli_parse_float(const char *prog, const char *opt, const char *s, double lo, double hi,
                    float *out) {
  double v;
  if (!cli_parse_double(prog, opt, s, lo, hi, &v)) return 0;
  *out = (float)v;
  return 1;
}

int cli_online_cpus(void) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > CLI_MAX_THREADS ? CLI_MAX_THREADS : (int)n;
}

int cli_default_threads(void) { return cli_online_cpus(); }

int cli_parse_threads(const char *prog, const char *opt, const char *s, int *out) {
  int n;
  if (!cli_parse_int(prog, opt, s, 1, CLI_MAX_THREADS, &n)) return 0;
  const int cpus = cli_online_cpus();
  if (n > cpus) {
    fprintf(stderr, "%s: %s %d capped at the %d online CPUs\n", prog, opt, n, cpus);
    n = cpus;
  }
  *out = n;
  return 1;
}
