/* cli_num.h — strict parsing of numeric command-line arguments, shared by every yolort CLI.
 * The whole argument must be one number inside [lo, hi]: "abc", "", "3x", "1e999", "nan" and values
 * out of range are refused with a message on stderr naming the program, the option and the value
 * ("yolort-detect: --conf expects a number in [0, 1], got '2.0'"), so a typo never silently becomes
 * 0 or a huge value. */
#ifndef YOLORT_CLI_NUM_H
#define YOLORT_CLI_NUM_H

/* The largest --threads any CLI accepts (the runtime refuses more, see YRT_MAX_THREADS). */
#define CLI_MAX_THREADS 256

/* Parse `s` as a base-10 integer in [lo, hi]. Returns 1 and stores *out on success; on failure
 * prints "PROG: OPT expects an integer in [lo, hi], got 'S'" and returns 0 (out untouched). */
int cli_parse_int(const char *prog, const char *opt, const char *s, long lo, long hi, int *out);

/* Same for a finite real number in [lo, hi] (decimal or exponent notation). */
int cli_parse_double(const char *prog, const char *opt, const char *s, double lo, double hi,
                     double *out);
int cli_parse_float(const char *prog, const char *opt, const char *s, double lo, double hi,
                    float *out);

/* The number of online CPUs (>= 1). */
int cli_online_cpus(void);

/* Every CLI's --threads default (one rule for all tools, and the runtime's own default,
 * yrt_session_options.num_threads 0): one thread per online CPU. */
int cli_default_threads(void);
#define CLI_THREADS_DEFAULT_HELP "default: one per online CPU"


/* --threads N: N in [1, CLI_MAX_THREADS], then capped at the online CPUs (more threads than cores
 * only slow a run down: 256 threads on 2 cores took 94 s per image), with a note on stderr. */
int cli_parse_threads(const char *prog, const char *opt, const char *s, int *out);

#endif
