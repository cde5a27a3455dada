/* cli_usage.h — usage errors one way in every yolort CLI: the argument that was not understood is
 * named on stderr and the exit status is 2 (1 is left for errors while working: a file that
 * cannot be read, a model refused). --help prints every option on stdout and exits 0. */
#ifndef YOLORT_CLI_USAGE_H
#define YOLORT_CLI_USAGE_H

#include <stdio.h>

#define CLI_EXIT_USAGE 2

/* The last lines of every --help (column 20 for the descriptions, as the tools' own lines). */
#define CLI_HELP_TAIL                                     \
  "  --version         print the version and exit\n"     \
  "  -h, --help        print this help and exit\n"

/* arg starts with '-' but is no option of prog, or is an option whose value is missing. */
static inline int cli_bad_option(const char *prog, const char *arg) {
  fprintf(stderr, "%s: '%s': unknown option, or its value is missing (%s --help lists the options)\n", prog, arg,
          prog);
  return CLI_EXIT_USAGE;
}

/* A positional argument beyond those prog takes (or an unexpected one). */
static inline int cli_extra_argument(const char *prog, const char *arg) {
  fprintf(stderr, "%s: unexpected argument '%s'\n", prog, arg);
  return CLI_EXIT_USAGE;
}

/* opt's value is none of the words it takes (want: "minmax, percentile or entropy"). */
static inline int cli_bad_value(const char *prog, const char *opt, const char *value, const char *want) {
  fprintf(stderr, "%s: %s '%s': want %s\n", prog, opt, value, want);
  return CLI_EXIT_USAGE;
}

#endif
