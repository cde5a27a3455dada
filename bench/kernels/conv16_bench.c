/* conv16_bench.c — single-thread cost of the int16-activation conv (yk_conv16, W8A16) against the
 * int8 one (yk_qconv, the variant its init picks) on the convs where int16 would go: the stem of a
 * YOLO11n / YOLOv8n at 640 (model.0-2).
 *
 * conv16_bench [--reps N]
 *
 * Random data, one rows call over all rows, best of N on thread CPU time (the machine is shared:
 * other processes on the core do not count); every yk_conv16 variant the CPU runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yk.h"
#include "yk_conv16.h"
#include "yk_qconv.h"

static double now_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* name, h w cin oh ow cout k s (pad k / 2) */
static const struct {
  const char *name;
  int h, w, cin, oh, ow, cout, k, s;
} k_shapes[] = {
    {"model.0 3x3 s2 3->16", 640, 640, 3, 320, 320, 16, 3, 2},
    {"model.1 3x3 s2 16->32", 320, 320, 16, 160, 160, 32, 3, 2},
    {"model.2 1x1 32->32", 160, 160, 32, 160, 160, 32, 1, 1},
};

int main(int argc, char **argv) {
  int reps = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: conv16_bench [--reps N]\n");
      return 2;
    }
  }
  if (reps < 1) reps = 1;
  yk_isa host;
  yk_isa_detect(&host);
  yk_isa_select(&host);
  const yk_isa *isa = &host; /* the variant list's conditions read isa-> */
  for (size_t si = 0; si < sizeof k_shapes / sizeof k_shapes[0]; si++) {
    const int h = k_shapes[si].h, w = k_shapes[si].w, cin = k_shapes[si].cin, oh = k_shapes[si].oh;
    const int ow = k_shapes[si].ow, cout = k_shapes[si].cout, k = k_shapes[si].k, s = k_shapes[si].s;
    const size_t nx = (size_t)h * w * cin, ny = (size_t)oh * ow * cout, nw = (size_t)cout * k * k * cin;
    int8_t *x8 = malloc(nx), *wt = malloc(nw), *y = malloc(ny);
    int16_t *x16 = malloc(nx * 2);
    int32_t *bias = calloc((size_t)cout, 4);
    float *scale = malloc((size_t)cout * 4);
    if (!x8 || !wt || !y || !x16 || !bias || !scale) return 1;
    for (size_t i = 0; i < nx; i++) x8[i] = (int8_t)(rand() % 256 - 128), x16[i] = (int16_t)(rand() % 65535 - 32767);
    for (size_t i = 0; i < nw; i++) wt[i] = (int8_t)(rand() % 255 - 127);
    for (int i = 0; i < cout; i++) scale[i] = 1e-5f;
    const double macs = (double)ny * k * k * cin;

    yk_qconv q = {.n = 1, .h = h, .w = w, .cin = cin, .oh = oh, .ow = ow, .cout = cout, .kh = k, .kw = k,
                  .sh = s, .sw = s, .pad_t = k / 2, .pad_l = k / 2, .dh = 1, .dw = 1, .weights = wt,
                  .bias = bias, .scale = scale};
    double best8 = 1e30;
    void *mem = NULL;
    if (yk_qconv_init(&q, isa) == 0 && posix_memalign(&mem, 64, q.packed_bytes ? q.packed_bytes : 64) == 0) {
      yk_qconv_pack(&q, mem);
      for (int r = 0; r < reps; r++) {
        const double t0 = now_cpu();
        yk_qconv_rows(&q, x8, y, 0, oh);
        const double t = now_cpu() - t0;
        if (t < best8) best8 = t;
      }
      printf("%-24s int8  qconv variant %d      %8.3f ms  %6.1f GMAC/s\n", k_shapes[si].name, q.variant,
             best8 * 1e3, macs / best8 * 1e-9);
    }
    free(mem);
#define YK_CONV16_VARIANT(E, v, sfx, on, lanes, kr, cond)                                                  \
  on({                                                                                                     \
    yk_conv16 c = {.n = 1, .h = h, .w = w, .cin = cin, .oh = oh, .ow = ow, .cout = cout, .kh = k, .kw = k, \
                   .sh = s, .sw = s, .pad_t = k / 2, .pad_l = k / 2, .dh = 1, .dw = 1, .weights = wt,       \
                   .bias = bias, .scale = scale};                                                          \
    void *m16 = NULL;                                                                                      \
    if ((cond) && yk_conv16_init(&c, isa) == 0 && yk_conv16_set_variant(&c, v) == 0 &&                    \
        posix_memalign(&m16, 64, c.packed_bytes ? c.packed_bytes : 64) == 0) {                             \
      yk_conv16_pack(&c, m16);                                                                             \
      double best = 1e30;                                                                                  \
      for (int r = 0; r < reps; r++) {                                                                     \
        const double t0 = now_cpu();                                                                       \
        yk_conv16_rows(&c, x16, y, 0, oh);                                                                 \
        const double t = now_cpu() - t0;                                                                   \
        if (t < best) best = t;                                                                            \
      }                                                                                                    \
      printf("%-24s int16 conv16 %-12s %8.3f ms  %6.1f GMAC/s  %.2fx int8\n", k_shapes[si].name, #sfx,    \
             best * 1e3, macs / best * 1e-9, best / best8);                                                \
    }                                                                                                      \
    free(m16);                                                                                             \
  })
#include "variants/conv16.inc"
#undef YK_CONV16_VARIANT
    free(x8), free(wt), free(y), free(x16), free(bias), free(scale);
  }
  return 0;
}
