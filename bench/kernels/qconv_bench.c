/* qconv_bench.c — single-thread micro-benchmark of yk_qconv over the YOLO11n conv shapes.
 *
 * qconv_bench [--size 640|320] [--file CONVS.txt] [--reps N] [--filter SUBSTR] [--lut]
 *             [--isa amx|avx512vnni|avxvnni|avx2|scalar]  (hide the better ISAs from init)
 *             [--variant amx|planar|avx512vnni]  (that 512-bit variant on every conv it can run,
 *                                 not only where init picks it)
 *             [--mr MR --nz NZ]   (force the blocking of the variant init picks, for tuning)
 *
 * Every groups=1 conv of YOLO11n (built-in table at 640, halved for 320; or the text written by
 * bench/peers/xnnpack/onnx_convs.py / yolort-bench --dump-convs) runs over random data as one
 * yk_qconv_rows call over all rows; best of N on thread CPU time (the machine is shared: other
 * processes on the core do not count), then GMAC/s per conv and the sum of the best times.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yk.h"
#include "yk_qconv.h"

typedef struct conv_shape {
  char name[96];
  int h, w, cin, oh, ow, cout, k, s, groups;
} conv_shape;

/* YOLO11n at 640 (onnx_convs.py order): h w cin oh ow cout k s groups */
static const int k_yolo11n_640[][9] = {
    {640, 640, 3, 320, 320, 16, 3, 2, 1},    {320, 320, 16, 160, 160, 32, 3, 2, 1},
    {160, 160, 32, 160, 160, 32, 1, 1, 1},   {160, 160, 16, 160, 160, 8, 3, 1, 1},
    {160, 160, 8, 160, 160, 16, 3, 1, 1},    {160, 160, 48, 160, 160, 64, 1, 1, 1},
    {160, 160, 64, 80, 80, 64, 3, 2, 1},     {80, 80, 64, 80, 80, 64, 1, 1, 1},
    {80, 80, 32, 80, 80, 16, 3, 1, 1},       {80, 80, 16, 80, 80, 32, 3, 1, 1},
    {80, 80, 96, 80, 80, 128, 1, 1, 1},      {80, 80, 128, 40, 40, 128, 3, 2, 1},
    {40, 40, 128, 40, 40, 128, 1, 1, 1},     {40, 40, 64, 40, 40, 32, 1, 1, 1},
    {40, 40, 64, 40, 40, 32, 1, 1, 1},       {40, 40, 32, 40, 40, 32, 3, 1, 1},
    {40, 40, 32, 40, 40, 32, 3, 1, 1},       {40, 40, 32, 40, 40, 32, 3, 1, 1},
    {40, 40, 32, 40, 40, 32, 3, 1, 1},       {40, 40, 64, 40, 40, 64, 1, 1, 1},
    {40, 40, 192, 40, 40, 128, 1, 1, 1},     {40, 40, 128, 20, 20, 256, 3, 2, 1},
    {20, 20, 256, 20, 20, 256, 1, 1, 1},     {20, 20, 128, 20, 20, 64, 1, 1, 1},
    {20, 20, 128, 20, 20, 64, 1, 1, 1},      {20, 20, 64, 20, 20, 64, 3, 1, 1},
    {20, 20, 64, 20, 20, 64, 3, 1, 1},       {20, 20, 64, 20, 20, 64, 3, 1, 1},
    {20, 20, 64, 20, 20, 64, 3, 1, 1},       {20, 20, 128, 20, 20, 128, 1, 1, 1},
    {20, 20, 384, 20, 20, 256, 1, 1, 1},     {20, 20, 256, 20, 20, 128, 1, 1, 1},
    {20, 20, 512, 20, 20, 256, 1, 1, 1},     {20, 20, 256, 20, 20, 256, 1, 1, 1},
    {20, 20, 128, 20, 20, 256, 1, 1, 1},     {20, 20, 128, 20, 20, 128, 3, 1, 128},
    {20, 20, 128, 20, 20, 128, 1, 1, 1},     {20, 20, 128, 20, 20, 256, 1, 1, 1},
    {20, 20, 256, 20, 20, 128, 1, 1, 1},     {20, 20, 256, 20, 20, 256, 1, 1, 1},
    {40, 40, 384, 40, 40, 128, 1, 1, 1},     {40, 40, 64, 40, 40, 32, 3, 1, 1},
    {40, 40, 32, 40, 40, 64, 3, 1, 1},       {40, 40, 192, 40, 40, 128, 1, 1, 1},
    {80, 80, 256, 80, 80, 64, 1, 1, 1},      {80, 80, 32, 80, 80, 16, 3, 1, 1},
    {80, 80, 16, 80, 80, 32, 3, 1, 1},       {80, 80, 96, 80, 80, 64, 1, 1, 1},
    {80, 80, 64, 40, 40, 64, 3, 2, 1},       {80, 80, 64, 80, 80, 64, 3, 1, 1},
    {80, 80, 64, 80, 80, 64, 3, 1, 64},      {80, 80, 64, 80, 80, 64, 3, 1, 1},
    {80, 80, 64, 80, 80, 80, 1, 1, 1},       {40, 40, 192, 40, 40, 128, 1, 1, 1},
    {80, 80, 64, 80, 80, 64, 1, 1, 1},       {80, 80, 80, 80, 80, 80, 3, 1, 80},
    {40, 40, 64, 40, 40, 32, 3, 1, 1},       {80, 80, 80, 80, 80, 80, 1, 1, 1},
    {40, 40, 32, 40, 40, 64, 3, 1, 1},       {80, 80, 80, 80, 80, 80, 1, 1, 1},
    {40, 40, 192, 40, 40, 128, 1, 1, 1},     {40, 40, 128, 20, 20, 128, 3, 2, 1},
    {40, 40, 128, 40, 40, 64, 3, 1, 1},      {40, 40, 128, 40, 40, 128, 3, 1, 128},
    {40, 40, 64, 40, 40, 64, 3, 1, 1},       {40, 40, 128, 40, 40, 80, 1, 1, 1},
    {20, 20, 384, 20, 20, 256, 1, 1, 1},     {40, 40, 64, 40, 40, 64, 1, 1, 1},
    {40, 40, 80, 40, 40, 80, 3, 1, 80},      {20, 20, 128, 20, 20, 64, 1, 1, 1},
    {20, 20, 128, 20, 20, 64, 1, 1, 1},      {40, 40, 80, 40, 40, 80, 1, 1, 1},
    {20, 20, 64, 20, 20, 64, 3, 1, 1},       {40, 40, 80, 40, 40, 80, 1, 1, 1},
    {20, 20, 64, 20, 20, 64, 3, 1, 1},       {20, 20, 64, 20, 20, 64, 3, 1, 1},
    {20, 20, 64, 20, 20, 64, 3, 1, 1},       {20, 20, 128, 20, 20, 128, 1, 1, 1},
    {20, 20, 384, 20, 20, 256, 1, 1, 1},     {20, 20, 256, 20, 20, 64, 3, 1, 1},
    {20, 20, 256, 20, 20, 256, 3, 1, 256},   {20, 20, 64, 20, 20, 64, 3, 1, 1},
    {20, 20, 256, 20, 20, 80, 1, 1, 1},      {20, 20, 64, 20, 20, 64, 1, 1, 1},
    {20, 20, 80, 20, 20, 80, 3, 1, 80},      {20, 20, 80, 20, 20, 80, 1, 1, 1},
    {4, 8400, 16, 4, 8400, 1, 1, 1, 1},      {20, 20, 80, 20, 20, 80, 1, 1, 1},
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

static int load_builtin(conv_shape *out, int max, int size) {
  int n = 0;
  const int nb = (int)(sizeof k_yolo11n_640 / sizeof k_yolo11n_640[0]);
  for (int i = 0; i < nb && n < max; i++) {
    const int *r = k_yolo11n_640[i];
    conv_shape *c = &out[n++];
    const int dfl = r[0] == 4; /* the DFL conv is [1, 16, 4, anchors]: anchors scale with area */
    const int f = 640 / size;
    c->h = dfl ? 4 : r[0] / f;
    c->w = dfl ? r[1] / (f * f) : r[1] / f;
    c->oh = dfl ? 4 : r[3] / f;
    c->ow = dfl ? r[4] / (f * f) : r[4] / f;
    c->cin = r[2], c->cout = r[5], c->k = r[6], c->s = r[7], c->groups = r[8];
    snprintf(c->name, sizeof c->name, "conv%02d", i);
  }
  return n;
}

/* The text form: "# ..." comments, then name node int8 n h w cin ho wo cout kh kw sh sw pt pl pb pr
 * dh dw groups. Square kernels and symmetric pads only (what YOLO11n has). */
static int load_file(conv_shape *out, int max, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[512];
  int n = 0;
  while (n < max && fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    conv_shape *c = &out[n];
    int node, i8, nb, kw, sw, pt, pl, pb, pr, dh, dw;
    if (sscanf(line, "%95s %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d", c->name,
               &node, &i8, &nb, &c->h, &c->w, &c->cin, &c->oh, &c->ow, &c->cout, &c->k, &kw,
               &c->s, &sw, &pt, &pl, &pb, &pr, &dh, &dw, &c->groups) != 21)
      continue;
    n++;
  }
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  int size = 640, reps = 7, lut_on = 0, force_mr = 0, force_nz = 0, force_variant = 0;
  const char *file = NULL, *filter = NULL, *isa_name = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc) size = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
    else if (!strcmp(argv[i], "--lut")) lut_on = 1;
    else if (!strcmp(argv[i], "--mr") && i + 1 < argc) force_mr = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nz") && i + 1 < argc) force_nz = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--isa") && i + 1 < argc) isa_name = argv[++i];
    else if (!strcmp(argv[i], "--variant") && i + 1 < argc && !strcmp(argv[i + 1], "amx")) force_variant = YK_QCONV_AMX, i++;
    else if (!strcmp(argv[i], "--variant") && i + 1 < argc && !strcmp(argv[i + 1], "planar"))
      force_variant = YK_QCONV_AVX512VNNI_PLANAR, i++;
    else if (!strcmp(argv[i], "--variant") && i + 1 < argc && !strcmp(argv[i + 1], "avx512vnni"))
      force_variant = YK_QCONV_AVX512VNNI, i++;
    else {
      fprintf(stderr, "usage: %s [--size 640|320] [--file CONVS.txt] [--reps N] [--filter S] [--lut] [--isa NAME] [--variant amx|planar|avx512vnni] [--mr M --nz N]\n",
              argv[0]);
      return 2;
    }
  }
  if (size != 640 && size != 320 && size != 160) {
    fprintf(stderr, "qconv_bench: --size must be 640, 320 or 160\n");
    return 2;
  }
  static conv_shape convs[256];
  const int nconv = file ? load_file(convs, 256, file) : load_builtin(convs, 256, size);
  if (nconv < 0) {
    fprintf(stderr, "qconv_bench: cannot read %s\n", file);
    return 1;
  }
  yk_isa isa;
  yk_isa_detect(&isa);
  if (isa_name && yk_isa_cap(&isa, isa_name) != 0) { /* the better ISAs cleared: init picks the one asked */
    fprintf(stderr, "qconv_bench: --isa must be amx, avx512vnni, avx512, avxvnni, avx2 or scalar\n");
    return 2;
  }
  uint64_t seed = 1;
  double total_s = 0, total_mac = 0;
  printf("%-10s %-28s %8s %9s %8s %s\n", "conv", "h w cin -> oh ow cout k s", "MMAC", "ms", "GMAC/s",
         "variant");
  for (int i = 0; i < nconv; i++) {
    const conv_shape *s = &convs[i];
    if (s->groups != 1 || (filter && !strstr(s->name, filter))) continue;
    const size_t nx = (size_t)s->h * s->w * s->cin, nw = (size_t)s->cout * s->k * s->k * s->cin,
                 ny = (size_t)s->oh * s->ow * s->cout;
    int8_t *x = malloc(nx), *wt = malloc(nw), *y = malloc(ny), lut[256];
    int32_t *bias = malloc(sizeof(int32_t) * (size_t)s->cout);
    float *scale = malloc(sizeof(float) * (size_t)s->cout);
    if (!x || !wt || !y || !bias || !scale) {
      fprintf(stderr, "qconv_bench: out of memory\n");
      return 1;
    }
    for (size_t j = 0; j < nx; j++) x[j] = (int8_t)rnext(&seed);
    for (size_t j = 0; j < nw; j++) wt[j] = (int8_t)rnext(&seed);
    for (int j = 0; j < s->cout; j++) bias[j] = (int32_t)(rnext(&seed) % 2001) - 1000, scale[j] = 0.001f;
    for (int j = 0; j < 256; j++) lut[j] = (int8_t)j;
    yk_qconv c = {.n = 1, .h = s->h, .w = s->w, .cin = s->cin, .oh = s->oh, .ow = s->ow,
                  .cout = s->cout, .kh = s->k, .kw = s->k, .sh = s->s, .sw = s->s,
                  .pad_t = s->k / 2, .pad_l = s->k / 2, .dh = 1, .dw = 1, .x_zp = -3, .y_zp = 5,
                  .weights = wt, .bias = bias, .scale = scale, .lut = lut_on ? lut : NULL};
    if (yk_qconv_init(&c, &isa) != 0) {
      fprintf(stderr, "qconv_bench: %s: init failed\n", s->name);
      return 1;
    }
#if YK_ARCH_X86_64
    if (force_variant && (force_variant != YK_QCONV_AMX || isa.amx) && isa.avx512vnni && isa.avx512vbmi &&
        c.variant != YK_QCONV_SCALAR && c.variant != force_variant) {
      yk_qconv t = c;
      t.variant = force_variant;
      if (force_variant == YK_QCONV_AMX) yk_qconv_blocking__amx(t.cout, &t.mr, &t.nz);
      else if (force_variant == YK_QCONV_AVX512VNNI_PLANAR) yk_qconv_blocking__avx512vnni_planar(t.cout, &t.mr, &t.nz);
      else yk_qconv_blocking__avx512vnni(t.cout, &t.mr, &t.nz);
      t.packed_bytes = yk_qconv_packed_bytes(&t);
      if (t.packed_bytes) c = t; /* else it cannot run the shape: init's choice */
    }
#else
    (void)force_variant;
#endif
#if defined(YOLORT_QCONV_HAS_BLOCKING) && YK_ARCH_X86_64
    if (force_mr && force_nz && c.variant != YK_QCONV_SCALAR) {
      c.mr = force_mr, c.nz = force_nz;
      c.packed_bytes = yk_qconv_packed_bytes(&c);
      if (!c.packed_bytes) {
        fprintf(stderr, "qconv_bench: %s: blocking %dx%d not supported\n", s->name, force_mr, force_nz);
        return 1;
      }
    }
#else
    (void)force_mr, (void)force_nz;
#endif
    void *mem = NULL;
    if (c.packed_bytes) {
      mem = aligned_alloc(64, (c.packed_bytes + 63) & ~(size_t)63);
      if (!mem) return 1;
      yk_qconv_pack(&c, mem);
    }
    const double mac = (double)ny * s->k * s->k * s->cin;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
      const double t0 = now_cpu();
      yk_qconv_rows(&c, x, y, 0, s->oh);
      const double t = now_cpu() - t0;
      if (t < best) best = t;
    }
    total_s += best;
    total_mac += mac;
    char shape[64];
    snprintf(shape, sizeof shape, "%d %d %d -> %d %d %d k%d s%d", s->h, s->w, s->cin, s->oh, s->ow,
             s->cout, s->k, s->s);
    printf("%-10s %-28s %8.2f %9.3f %8.1f %d\n", s->name, shape, mac * 1e-6, best * 1e3,
           mac / best * 1e-9, c.variant);
    free(mem), free(x), free(wt), free(y), free(bias), free(scale);
  }
  printf("total: %.1f MMAC in %.3f ms (%.1f GMAC/s), groups=1 convs, 1 thread, best of %d\n",
         total_mac * 1e-6, total_s * 1e3, total_mac / total_s * 1e-9, reps);
  return 0;
}
