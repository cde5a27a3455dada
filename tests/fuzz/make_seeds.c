/* make_seeds.c — writes the fuzz seed corpora into a build directory (never into the repo):
 *   OUT/onnx/  the tiny models of tests/reliability/rel_models.c (+ the shared QDQ model)
 *   OUT/yrt/   the same converted to .yrt (+ the shared QDQ model converted)
 *   OUT/detect/ the .yrt seeds behind a 4-byte image size (fuzz_yrt_detect)
 *   OUT/jpeg/  JPEGs encoded by yrt_image_save_jpeg (odd sizes, qualities) + a few COCO images
 *   OUT/api/   call sequences for fuzz_api_sequence (byte 0: model and threads, then the calls)
 * Usage: fuzz_make_seeds OUT_DIR [DATA_DIR]   (DATA_DIR default: $YOLORT_DATA or ../shared)
 * Shared data is optional: without it only the generated seeds are written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert.h"
#include "rel_models.h"
#include "yolort_image.h"

static int write_file(const char *dir, const char *name, const void *data, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "make_seeds: %s: %s\n", path, strerror(errno));
    return -1;
  }
  size_t wr = fwrite(data, 1, n, f);
  if (fclose(f) != 0 || wr != n) {
    fprintf(stderr, "make_seeds: %s: write failed\n", path);
    return -1;
  }
  return 0;
}

static int copy_file(const char *src, const char *dir, const char *name) {
  FILE *f = fopen(src, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = n > 0 ? malloc((size_t)n) : NULL;
  int rc = -1;
  if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) rc = write_file(dir, name, buf, (size_t)n);
  free(buf);
  fclose(f);
  return rc;
}

static int mkdir_p(const char *path) {
  if (mkdir(path, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "make_seeds: mkdir %s: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

static int jpeg_seeds(const char *dir) {
  static const int sizes[][2] = {{1, 1}, {8, 8}, {17, 9}, {9, 31}, {64, 48}, {100, 37}, {333, 200}};
  static const int quality[] = {10, 75, 100};
  char path[4096];
  int n = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    yrt_image img = {sizes[s][0], sizes[s][1], NULL};
    img.rgb = malloc((size_t)img.w * (size_t)img.h * 3);
    if (!img.rgb) return -1;
    for (int y = 0; y < img.h; y++)
      for (int x = 0; x < img.w; x++)
        for (int c = 0; c < 3; c++)
          img.rgb[((size_t)y * (size_t)img.w + (size_t)x) * 3 + (size_t)c] =
              (uint8_t)((x * 7 + y * 13 + c * 50 + ((x ^ y) & 8) * 10) & 255);
    for (size_t q = 0; q < sizeof quality / sizeof quality[0]; q++) {
      snprintf(path, sizeof path, "%s/gen_%dx%d_q%d.jpg", dir, img.w, img.h, quality[q]);
      yrt_error err;
      if (yrt_image_save_jpeg(&img, path, quality[q], &err) != YRT_OK) {
        fprintf(stderr, "make_seeds: %s\n", err.msg);
        free(img.rgb);
        return -1;
      }
      n++;
    }
    free(img.rgb);
  }
  return n;
}

/* A few of the smallest COCO val images (referenced by path, copied into the build-dir corpus only). */
static int coco_seeds(const char *data, const char *dir) {
  static const char *names[] = {"000000223747.jpg", "000000037777.jpg", "000000521601.jpg",
                                "000000404484.jpg", "000000008762.jpg"};
  char src[4096];
  int n = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(src, sizeof src, "%s/data/coco/val/images/%s", data, names[i]);
    char dst[128];
    snprintf(dst, sizeof dst, "coco_%s", names[i]);
    if (copy_file(src, dir, dst) == 0) n++;
  }
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s OUT_DIR [DATA_DIR]\n", argv[0]);
    return 2;
  }
  const char *out = argv[1];
  const char *data = argc > 2 ? argv[2] : getenv("YOLORT_DATA");
  if (!data || !*data) data = YOLORT_DEFAULT_DATA;
  char d_onnx[4096], d_yrt[4096], d_jpeg[4096], d_det[4096];
  snprintf(d_det, sizeof d_det, "%s/detect", out);
  snprintf(d_onnx, sizeof d_onnx, "%s/onnx", out);
  snprintf(d_yrt, sizeof d_yrt, "%s/yrt", out);
  snprintf(d_jpeg, sizeof d_jpeg, "%s/jpeg", out);
  if (mkdir_p(out) || mkdir_p(d_onnx) || mkdir_p(d_yrt) || mkdir_p(d_jpeg) || mkdir_p(d_det)) return 1;

  int n_onnx = 0, n_yrt = 0;
  for (int k = 0; k < REL_MODEL_COUNT; k++) {
    yrt_error err;
    uint8_t *bytes = NULL;
    size_t n = 0;
    char name[128];
    if (rel_model_onnx((rel_model_kind)k, &bytes, &n, &err) != YRT_OK) {
      fprintf(stderr, "make_seeds: %s\n", err.msg);
      return 1;
    }
    snprintf(name, sizeof name, "%s.onnx", rel_model_name((rel_model_kind)k));
    if (write_file(d_onnx, name, bytes, n)) return 1;
    free(bytes);
    n_onnx++;
    void *yrt = NULL;
    if (rel_model_yrt((rel_model_kind)k, &yrt, &n, &err) != YRT_OK) {
      fprintf(stderr, "make_seeds: converting %s: %s\n", rel_model_name((rel_model_kind)k), err.msg);
      return 1;
    }
    snprintf(name, sizeof name, "%s.yrt", rel_model_name((rel_model_kind)k));
    if (write_file(d_yrt, name, yrt, n)) return 1;
    /* fuzz_yrt_detect: 2 bytes image width, 2 bytes height, then the .yrt */
    uint8_t *det = malloc(n + 4);
    if (!det) return 1;
    det[0] = 39, det[1] = 0, det[2] = 29, det[3] = 0; /* a 40x30 image */
    memcpy(det + 4, yrt, n);
    if (write_file(d_det, name, det, n + 4)) return 1;
    free(det);
    free(yrt);
    n_yrt++;
  }

  /* The shared model, when present (big: only useful with a large -max_len). */
  char src[4096];
  snprintf(src, sizeof src, "%s/models/yolo11n-320.qdq.onnx", data);
  struct stat st;
  if (stat(src, &st) == 0) {
    if (copy_file(src, d_onnx, "yolo11n-320.qdq.onnx") == 0) n_onnx++;
    void *yrt = NULL;
    size_t n = 0;
    yrt_error err;
    if (yrt_convert_onnx_file(src, NULL, &yrt, &n, NULL, &err) == YRT_OK) {
      if (write_file(d_yrt, "yolo11n-320.qdq.yrt", yrt, n) == 0) n_yrt++;
      free(yrt);
    } else {
      fprintf(stderr, "make_seeds: converting %s: %s (skipped)\n", src, err.msg);
    }
  }

  /* fuzz_api_sequence: a fixed pseudo-random call string (api_seq.h) per first byte 0..11 */
  char d_api[4096];
  snprintf(d_api, sizeof d_api, "%s/api", out);
  if (mkdir_p(d_api)) return 1;
  for (int k = 0; k < 12; k++) { /* byte 0 = k: each model, 1 and 2 threads */
    uint8_t seq[96];
    uint32_t x = 2463534242u + (uint32_t)k;
    seq[0] = (uint8_t)k;
    for (size_t i = 1; i < sizeof seq; i++) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      seq[i] = (uint8_t)x;
    }
    char name[32];
    snprintf(name, sizeof name, "seq_%d.bin", k);
    if (write_file(d_api, name, seq, sizeof seq)) return 1;
  }

  int n_jpeg = jpeg_seeds(d_jpeg);
  if (n_jpeg < 0) return 1;
  n_jpeg += coco_seeds(data, d_jpeg);
  printf("seeds in %s: %d onnx, %d yrt, %d jpeg\n", out, n_onnx, n_yrt, n_jpeg);
  return 0;
}
