/* bench_opts.c — command-line parsing of yolort-bench (see bench_opts.h). */
#include "bench_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_num.h"

void bench_usage(FILE *f, const char *argv0) {
  fprintf(f,
          "usage: %s MODEL.yrt [options]\n"
          "  --warmup N        untimed runs first (default 10)\n"
          "  --runs N          timed runs (default 50)\n"
          "  --threads L       thread counts, e.g. 2 or 1,2 (" CLI_THREADS_DEFAULT_HELP "); the runtime caps them\n"
          "                    at the online CPUs (the report shows the count used)\n"
          "  --oversubscribe   keep thread counts above the online CPUs (measuring them)\n"
          "  --isa NAME        our kernels' ISA capped at NAME (avx2, avxvnni, avx512, avx512vnni, amx;\n"
          "                    neon, neondot; scalar): e.g. the AVX2 path on a VNNI CPU\n"
          "  --batch L         images per iteration, e.g. 1,4,8 (default 1): the batch-1 model\n"
          "                    is run B times; per-batch and per-image times are reported\n"
          "  --size L          input sizes; MODEL may contain {S} (yolo11n-{S}.yrt), else the\n"
          "                    model must already have that size\n"
          "  --image JPG       end-to-end split: JPEG decode + letterbox / inference / decode + NMS\n"
          "  --frame           with --image, the camera path: the JPEG decoded once (a camera delivers\n"
          "                    frames), then per frame yrt_session_detect (letterbox straight into the\n"
          "                    int8 input, inference, threshold-aware decode, NMS); letterbox alone\n"
          "                    (yrt_session_set_frame) timed beside it; --profile profiles that call\n"
          "  --profile         per-op-kind time profile (separate profiled runs)\n"
          "  --convs           per-conv time and GMAC/s (implies --profile)\n"
          "  --top N           the N slowest nodes, by ONNX name (implies --profile)\n"
          "  --dump-convs F    write the conv layer shapes to F ('-' = stdout) and exit\n"
          "  --streams L       N cameras: N sessions of the model, each run by its own thread,\n"
          "                    e.g. 1,2,4; total frames/s per N and per --threads T (T = 1: each\n"
          "                    session single-threaded; T > 1: one pool of T threads shared by all)\n"
          "  --json            one JSON object on stdout instead of the table\n"
          "  --version         print the version and exit\n"
          "  -h, --help        print this help and exit\n",
          argv0);
}

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

/* "1,4,8" -> list. */
static int parse_list(const char *s, int lo, int hi, int *list, int *n) {
  char buf[128];
  if (strlen(s) >= sizeof buf) return -1;
  snprintf(buf, sizeof buf, "%s", s);
  *n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (*n == BENCH_MAX_LIST || parse_int(tok, lo, hi, &list[*n]) != 0) return -1;
    (*n)++;
  }
  return *n > 0 ? 0 : -1;
}

int bench_parse_args(int argc, char **argv, bench_opts *o, char *msg, size_t cap) {
  memset(o, 0, sizeof(*o));
  o->warmup = 10;
  o->runs = 50;
  o->threads[0] = cli_default_threads(); /* as every yolort CLI */
  o->n_threads = 1;
  o->batch[0] = 1;
  o->n_batch = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
#define NEED_VAL()                                                  \
  do {                                                              \
    if (!val) {                                                     \
      snprintf(msg, cap, "option %s needs a value", a);             \
      return -1;                                                    \
    }                                                               \
    i++;                                                            \
  } while (0)
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      bench_usage(stdout, argv[0]);
      return 1;
    } else if (!strcmp(a, "--warmup")) {
      NEED_VAL();
      if (parse_int(val, 0, 1000000, &o->warmup)) goto bad;
    } else if (!strcmp(a, "--runs")) {
      NEED_VAL();
      if (parse_int(val, 1, 1000000, &o->runs)) goto bad;
    } else if (!strcmp(a, "--threads")) {
      NEED_VAL();
      if (parse_list(val, 1, 256, o->threads, &o->n_threads)) goto bad;
    } else if (!strcmp(a, "--batch")) {
      NEED_VAL();
      if (parse_list(val, 1, 1024, o->batch, &o->n_batch)) goto bad;
    } else if (!strcmp(a, "--size")) {
      NEED_VAL();
      if (parse_list(val, 32, 8192, o->size, &o->n_size)) goto bad;
    } else if (!strcmp(a, "--streams")) {
      NEED_VAL();
      if (parse_list(val, 1, 64, o->streams, &o->n_streams)) goto bad;
    } else if (!strcmp(a, "--frame")) {
      o->frame = 1;
    } else if (!strcmp(a, "--image")) {
      NEED_VAL();
      o->image = val;
    } else if (!strcmp(a, "--dump-convs")) {
      NEED_VAL();
      o->dump_convs = val;
    } else if (!strcmp(a, "--isa")) {
      NEED_VAL();
      o->isa = val;
    } else if (!strcmp(a, "--oversubscribe")) {
      o->oversubscribe = 1;
    } else if (!strcmp(a, "--json")) {
      o->json = 1;
    } else if (!strcmp(a, "--profile")) {
      o->profile = 1;
    } else if (!strcmp(a, "--convs")) {
      o->convs = 1;
      o->profile = 1;
    } else if (!strcmp(a, "--top")) {
      NEED_VAL();
      if (parse_int(val, 1, 100000, &o->top)) goto bad;
      o->profile = 1;
    } else if (a[0] == '-' && a[1]) {
      snprintf(msg, cap, "unknown option %s", a);
      return -1;
    } else if (!o->model) {
      o->model = a;
    } else {
      snprintf(msg, cap, "unexpected argument %s (one model at a time)", a);
      return -1;
    }
    continue;
  bad:
    snprintf(msg, cap, "bad value '%s' for %s", val, a);
    return -1;
#undef NEED_VAL
  }
  if (!o->model) {
    snprintf(msg, cap, "no model given");
    return -1;
  }
  return 0;
}
