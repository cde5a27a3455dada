/* dwconv_bench.c — single-thread micro-benchmark of the depthwise 3x3 int8 kernels over the
 * YOLO11n depthwise shapes (640 input; stride-2 shapes added for coverage).
 *
 * dwconv_bench [--reps N] [--lut]
 *
 * Each shape runs over random data as one full-range call per variant: yk_dwconv (packed,
 * row-range API) for every variant of include/variants/dwconv.inc the CPU has;
 * best of N on thread CPU time (other processes on the core do not count), in ms and GMAC/s.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yk.h"
#include "yk_dwconv.h"
#include "yk_variants.h"

/* h w c stride */
static const int k_shapes[][4] = {
    {20, 20, 128, 1}, {80, 80, 64, 1}, {80, 80, 80, 1}, {40, 40, 128, 1},
    {40, 40, 80, 1},  {20, 20, 256, 1}, {20, 20, 80, 1}, {80, 80, 80, 2},
};

static double now_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint32_t rnext(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

typedef struct run_ctx {
  const yk_dwconv *d;
  const int8_t *x;
  int8_t *y;
} run_ctx;

static double best_ms(const run_ctx *r, int reps) {
  double best = 1e30;
  for (int i = 0; i < reps; i++) {
    const double t0 = now_cpu();
    yk_dwconv_rows(r->d, r->x, r->y, 0, r->d->p.n * r->d->p.oh);
    const double t = (now_cpu() - t0) * 1e3;
    if (t < best) best = t;
  }
  return best;
}

int main(int argc, char **argv) {
  int reps = 30, use_lut = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lut")) use_lut = 1;
    else {
      fprintf(stderr, "usage: %s [--reps N] [--lut]\n", argv[0]);
      return 2;
    }
  }
  yk_isa host;
  yk_isa_detect(&host);
  /* every variant of the list built here, ok when this CPU runs it (the list's order: best first) */
  const yk_isa *isa = &host;
  const struct {
    const char *name;
    int variant, ok;
  } vs[] = {
#define YK_DWCONV_VARIANT(E, v, s, on, blk, cond) on({#s, v, (cond)},)
#include "variants/dwconv.inc"
#undef YK_DWCONV_VARIANT
  };
  const int nv = (int)(sizeof(vs) / sizeof(vs[0]));
  double total[sizeof vs / sizeof vs[0]] = {0};
  uint64_t seed = 1;
  printf("%-16s", "shape (hxwxc/s)");
  for (int v = 0; v < nv; v++)
    if (vs[v].ok) printf(" %20s", vs[v].name);
  printf("   (ms, GMAC/s; best of %d, 1 thread)\n", reps);
  for (size_t si = 0; si < sizeof(k_shapes) / sizeof(k_shapes[0]); si++) {
    const int H = k_shapes[si][0], W = k_shapes[si][1], C = k_shapes[si][2], S = k_shapes[si][3];
    const int OH = (H + 2 - 3) / S + 1, OW = (W + 2 - 3) / S + 1;
    const size_t nx = (size_t)H * W * C, ny = (size_t)OH * OW * C;
    int8_t *x = malloc(nx), *y = malloc(ny), *w = malloc((size_t)9 * C);
    int32_t *bias = malloc((size_t)C * sizeof(int32_t));
    float *scale = malloc((size_t)C * sizeof(float));
    int8_t lut[256];
    if (!x || !y || !w || !bias || !scale) {
      fprintf(stderr, "out of memory\n");
      return 1;
    }
    for (size_t i = 0; i < nx; i++) x[i] = (int8_t)rnext(&seed);
    for (int i = 0; i < 9 * C; i++) w[i] = (int8_t)rnext(&seed);
    for (int c = 0; c < C; c++) {
      bias[c] = (int32_t)(rnext(&seed) % 20000) - 10000;
      scale[c] = 1e-3f;
    }
    for (int i = 0; i < 256; i++) lut[i] = (int8_t)rnext(&seed);
    const double mmac = (double)ny * 9.0 / 1e6;
    char label[32];
    snprintf(label, sizeof(label), "%dx%dx%d/%d", H, W, C, S);
    printf("%-16s", label);
    for (int v = 0; v < nv; v++) {
      if (!vs[v].ok) continue;
      yk_dwconv d = {.p = {1, H, W, C, OH, OW, S, 1, 1, -3, 5, scale, use_lut ? lut : NULL},
                     .weights = w,
                     .bias = bias};
      void *mem = NULL;
      if (yk_dwconv_init(&d, isa) != 0 || yk_dwconv_set_variant(&d, vs[v].variant) != 0 ||
          posix_memalign(&mem, 64, d.packed_bytes ? d.packed_bytes : 64) != 0) {
        fprintf(stderr, "init failed\n");
        return 1;
      }
      yk_dwconv_pack(&d, mem);
      const run_ctx r = {&d, x, y};
      const double ms = best_ms(&r, reps);
      total[v] += ms;
      printf(" %9.3f %10.1f", ms, mmac / ms);
      free(mem);
    }
    printf("\n");
    free(x);
    free(y);
    free(w);
    free(bias);
    free(scale);
  }
  printf("%-16s", "sum ms");
  for (int v = 0; v < nv; v++)
    if (vs[v].ok) printf(" %9.3f %10s", total[v], "");
  printf("\n");
  return 0;
}
