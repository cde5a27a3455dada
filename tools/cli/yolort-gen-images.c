/* yolort-gen-images — write N deterministic synthetic JPEG scenes (gradients, rectangles,
 * ellipses, stripes, noise) in the sizes COCO photos come in. They are the calibration and
 * demo images of the README demo, so a fresh clone needs no downloaded data.
 *
 *   yolort-gen-images OUT_DIR [-n 16] [--seed 1] [--quality 90]
 *
 * Same arguments -> same bytes (own PRNG, no time or locale input). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <turbojpeg.h>
#include "cli_stdout.h"
#include "file_write.h"
#include "cli_version.h"

#include "cli_num.h"

typedef struct rng {
  uint64_t s;
} rng;

/* splitmix64: small, fast, and the same on every platform. */
static uint64_t rng_next(rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

static int rng_range(rng *r, int lo, int hi) { /* inclusive */
  return lo + (int)(rng_unit(r) * (double)(hi - lo + 1));
}

typedef struct scene_size {
  int w, h;
} scene_size;

/* Typical COCO shapes: landscape, portrait and square. */
static const scene_size k_sizes[] = {{640, 480}, {500, 375}, {640, 427}, {480, 640},
                                     {375, 500}, {640, 640}, {612, 612}, {320, 240}};

static uint8_t clamp_u8(double v) {
  if (v < 0.0) return 0;
  if (v > 255.0) return 255;
  return (uint8_t)(v + 0.5);
}

static void random_color(rng *r, double c[3]) {
  for (int k = 0; k < 3; k++) c[k] = 20.0 + 215.0 * rng_unit(r);
}

static void paint_background(rng *r, uint8_t *img, int w, int h) {
  double c0[3], c1[3];
  random_color(r, c0);
  random_color(r, c1);
  const double ax = rng_unit(r), ay = 1.0 - ax;
  const double freq = 0.01 + 0.05 * rng_unit(r), amp = 12.0 * rng_unit(r);
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      const double t = ax * x / (double)w + ay * y / (double)h;
      /* a faint texture so the background is not flat */
      const double tex = amp * ((((x + y) / 3) % 2) ? 1.0 : -1.0) * (0.5 + 0.5 * (double)((int)(x * freq) % 2));
      uint8_t *p = img + ((size_t)y * (size_t)w + (size_t)x) * 3;
      for (int k = 0; k < 3; k++) p[k] = clamp_u8(c0[k] * (1.0 - t) + c1[k] * t + tex);
    }
  }
}

/* kind 0: rectangle, 1: ellipse, 2: striped rectangle; shaded with a vertical gradient. */
static void paint_object(rng *r, uint8_t *img, int w, int h) {
  const int kind = rng_range(r, 0, 2);
  const int ow = rng_range(r, w / 20 + 4, w / 2), oh = rng_range(r, h / 20 + 4, h / 2);
  const int cx = rng_range(r, 0, w - 1), cy = rng_range(r, 0, h - 1);
  double c[3], shade = 0.3 + 0.5 * rng_unit(r);
  random_color(r, c);
  const int period = rng_range(r, 4, 16);
  const int x0 = cx - ow / 2 < 0 ? 0 : cx - ow / 2, x1 = cx + ow / 2 >= w ? w - 1 : cx + ow / 2;
  const int y0 = cy - oh / 2 < 0 ? 0 : cy - oh / 2, y1 = cy + oh / 2 >= h ? h - 1 : cy + oh / 2;
  for (int y = y0; y <= y1; y++) {
    for (int x = x0; x <= x1; x++) {
      if (kind == 1) {
        const double dx = (x - cx) / (0.5 * ow), dy = (y - cy) / (0.5 * oh);
        if (dx * dx + dy * dy > 1.0) continue;
      }
      double f = 1.0 - shade * (double)(y - y0) / (double)(y1 - y0 + 1);
      if (kind == 2 && ((x - x0) / period) % 2) f *= 0.55;
      uint8_t *p = img + ((size_t)y * (size_t)w + (size_t)x) * 3;
      for (int k = 0; k < 3; k++) p[k] = clamp_u8(c[k] * f);
    }
  }
}

static void add_noise(rng *r, uint8_t *img, size_t n, double amp) {
  for (size_t i = 0; i < n; i++) {
    /* sum of two uniforms: a cheap bell-shaped noise */
    const double e = (rng_unit(r) + rng_unit(r) - 1.0) * amp;
    img[i] = clamp_u8(img[i] + e);
  }
}

static int mkdir_p(const char *dir) {
  char buf[4096];
  const size_t len = strlen(dir);
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, dir, len + 1);
  for (size_t i = 1; i <= len; i++) {
    if (buf[i] == '/' || buf[i] == '\0') {
      const char saved = buf[i];
      buf[i] = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      buf[i] = saved;
    }
  }
  struct stat st;
  return (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) ? 0 : -1;
}

static int write_jpeg(tjhandle tj, const uint8_t *rgb, int w, int h, int quality, const char *path) {
  unsigned char *jpeg = NULL;
  unsigned long size = 0;
  if (tjCompress2(tj, rgb, w, w * 3, h, TJPF_RGB, &jpeg, &size, TJSAMP_420, quality, TJFLAG_ACCURATEDCT) != 0) {
    fprintf(stderr, "yolort-gen-images: JPEG compression of %s failed: %s\n", path, tjGetErrorStr2(tj));
    tjFree(jpeg);
    return -1;
  }
  yrt_error err;
  int rc = 0;
  if (yrt_write_file_atomic(path, jpeg, size, &err) != YRT_OK) { /* temp file + rename, errors named */
    fprintf(stderr, "yolort-gen-images: %s\n", err.msg);
    rc = -1;
  }
  tjFree(jpeg);
  return rc;
}

static void usage(FILE *f) { /* --help: stdout (a result, checked at exit); errors: stderr */
  fprintf(f,
          "usage: yolort-gen-images OUT_DIR [-n COUNT] [--seed N] [--quality Q]\n"
          "  writes COUNT (default 16) deterministic synthetic JPEG scenes synth_NNNN.jpg\n");
}

int main(int argc, char **argv) {
  cli_stdout_guard(); /* results never lost with exit 0 */
  if (cli_version_requested(argc, argv, "yolort-gen-images")) return 0;
  const char *out_dir = NULL;
  int count = 16, seed = 1, quality = 90;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if ((strcmp(a, "-n") == 0) && i + 1 < argc) {
      if (!cli_parse_int("yolort-gen-images", "-n", argv[++i], 1, 100000, &count)) return 2;
    } else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
      if (!cli_parse_int("yolort-gen-images", "--seed", argv[++i], 0, 2147483647L, &seed)) return 2;
    } else if (strcmp(a, "--quality") == 0 && i + 1 < argc) {
      if (!cli_parse_int("yolort-gen-images", "--quality", argv[++i], 1, 100, &quality)) return 2;
    } else if (a[0] != '-' && !out_dir) {
      out_dir = a;
    } else {
      fprintf(stderr, "yolort-gen-images: unexpected argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (!out_dir) {
    usage(stderr);
    return 2;
  }
  if (mkdir_p(out_dir) != 0) {
    fprintf(stderr, "yolort-gen-images: cannot create directory %s: %s\n", out_dir, strerror(errno));
    return 1;
  }
  tjhandle tj = tjInitCompress();
  if (!tj) {
    fprintf(stderr, "yolort-gen-images: tjInitCompress failed: %s\n", tjGetErrorStr2(NULL));
    return 1;
  }
  int rc = 0;
  for (long i = 0; i < count && rc == 0; i++) {
    /* one stream per image so image i does not depend on how many come before it */
    rng r = {(uint64_t)seed * 0x100000001B3ull + (uint64_t)i * 0x9E3779B97F4A7C15ull};
    rng_next(&r);
    const scene_size sz = k_sizes[rng_next(&r) % (sizeof k_sizes / sizeof k_sizes[0])];
    const size_t n = (size_t)sz.w * (size_t)sz.h * 3;
    uint8_t *img = malloc(n);
    if (!img) {
      fprintf(stderr, "yolort-gen-images: out of memory for a %dx%d image\n", sz.w, sz.h);
      rc = 1;
      break;
    }
    paint_background(&r, img, sz.w, sz.h);
    const int objects = rng_range(&r, 3, 12);
    for (int k = 0; k < objects; k++) paint_object(&r, img, sz.w, sz.h);
    add_noise(&r, img, n, 4.0 + 8.0 * rng_unit(&r));
    char path[4096];
    const int len = snprintf(path, sizeof path, "%s/synth_%04ld.jpg", out_dir, i);
    if (len < 0 || (size_t)len >= sizeof path) {
      fprintf(stderr, "yolort-gen-images: output path too long under %s\n", out_dir);
      rc = 1;
    } else if (write_jpeg(tj, img, sz.w, sz.h, (int)quality, path) != 0) {
      rc = 1;
    }
    free(img);
  }
  tjDestroy(tj);
  if (rc == 0) printf("yolort-gen-images: wrote %d synthetic scenes to %s\n", count, out_dir);
  return rc;
}
