/* head_run.c — the shared part of the head checks' C API runners (head_run.h). */
#include "head_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "yolort_image.h"

/* Detections of one frame and the runner's extras; -1 on failure. */
static int detect(const head_run *h, yrt_session *s, const yrt_frame *f, yrt_detection *d, int which) {
  yrt_error err;
  int n = 0;
  if (yrt_session_detect(s, f, NULL, d, HEAD_RUN_MAX_DETS, &n, &err)) {
    fprintf(stderr, "%s: detect: %s\n", h->tool, err.msg);
    return -1;
  }
  return h->extras(s, n, which, h->ctx) ? -1 : n;
}

static int oriented(const head_run *h, yrt_session *s, const char *jpg) {
  yrt_image img = {0, 0, NULL};
  yrt_error err;
  if (yrt_image_load_jpeg(jpg, &img, &err)) return 1;
  const size_t row = (size_t)img.w * 3, size = row * (size_t)img.h;
  uint8_t *flip = malloc(size);
  static yrt_detection d[2][HEAD_RUN_MAX_DETS];
  int rc = 1;
  if (flip) {
    for (int y = 0; y < img.h; y++)
      for (int x = 0; x < img.w; x++)
        memcpy(flip + (size_t)(img.h - 1 - y) * row + (size_t)(img.w - 1 - x) * 3, img.rgb + (size_t)y * row + (size_t)x * 3, 3);
    yrt_frame f;
    yrt_frame_init(&f);
    f.format = YRT_PIX_RGB888, f.width = img.w, f.height = img.h, f.stride[0] = row, f.plane_bytes[0] = size;
    f.plane[0] = img.rgb;
    const int n0 = detect(h, s, &f, d[0], 0);
    f.plane[0] = flip;
    f.orientation = YRT_ORIENT_180;
    const int n1 = detect(h, s, &f, d[1], 1);
    double dev = n0 == n1 && (n0 > 0 || !h->need_some) ? 0 : INFINITY;
    const double W = img.w, H = img.h;
    for (int i = 0; i < n0 && n0 == n1; i++) {
      dev = fmax(dev, fabs(d[1][i].x0 - (W - d[0][i].x1)) + fabs(d[1][i].y0 - (H - d[0][i].y1)));
      dev = fmax(dev, h->dev(i, W, H, h->ctx));
    }
    printf("oriented %d %d dev %g\n", n0, n1, dev);
    rc = n0 < 0 || n1 < 0;
  }
  free(flip);
  yrt_image_free(&img);
  return rc;
}

/* The dumped inputs of n_img images through the session, a line per detection. */
static int dumped(const head_run *h, yrt_session *s, const yrt_model *m, const char *dir, int n_img) {
  yrt_error err = {{0}};
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  const size_t count = (size_t)3 * (size_t)info.input_w * (size_t)info.input_h;
  float *x = malloc(sizeof(float) * count);
  yrt_detection *dets = malloc(sizeof(yrt_detection) * 300);
  yrt_postprocess_params pp;
  yrt_postprocess_params_init(&pp);
  int rc = !x || !dets;
  for (int i = 0; !rc && i < n_img; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%d.in.f32", dir, i);
    FILE *f = fopen(path, "rb");
    if (!f) break;
    const size_t got = fread(x, sizeof(float), count, f);
    fclose(f);
    int n = 0;
    if (got != count || yrt_session_set_input(s, 0, x, count, &err) || yrt_session_run(s, &err) ||
        yrt_session_postprocess(s, NULL, &pp, dets, 300, &n, &err)) {
      fprintf(stderr, "%s: image %d: %s\n", h->tool, i, got != count ? "short input" : err.msg);
      rc = 1;
      break;
    }
    snprintf(path, sizeof path, "%s/%d.yrt.txt", dir, i);
    FILE *out = fopen(path, "w");
    for (int k = 0; out && k < n; k++) {
      if (h->line(s, k, &dets[k], out, h->ctx)) {
        rc = 1;
        break;
      }
      fputc('\n', out);
    }
    if (!rc && h->past(s, n, h->ctx)) rc = 1;
    if (out) fclose(out);
    else rc = 1;
  }
  free(x);
  free(dets);
  return rc;
}

int head_run_main(int argc, char **argv, const head_run *h) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s MODEL.yrt DIR N | %s MODEL.yrt --frame IMAGE.jpg\n", h->tool, h->tool);
    return 2;
  }
  yrt_error err = {{0}};
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  const yrt_session_options o = {.num_threads = 2};
  if (yrt_model_load_file(argv[1], &m, &err) || yrt_session_create(m, &o, &s, &err)) {
    fprintf(stderr, "%s: %s\n", h->tool, err.msg);
    yrt_model_free(m);
    return 1;
  }
  int rc = h->hello(m, h->ctx);
  if (!rc) rc = !strcmp(argv[2], "--frame") ? oriented(h, s, argv[3]) : dumped(h, s, m, argv[2], atoi(argv[3]));
  yrt_session_free(s);
  yrt_model_free(m);
  return rc;
}
