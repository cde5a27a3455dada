/* obb_run MODEL DIR N — an obb model through the C API on the letterboxed inputs ort_vs_yolort
 * dump wrote (DIR/<i>.in.f32): yrt_session_set_input, yrt_session_run, yrt_session_postprocess
 * (conf 0.25, IoU 0.45, input pixels: the rotated NMS), yrt_session_rbox per detection. Writes
 * DIR/<i>.yrt.txt, one line per detection: class score cx cy w h angle x0 y0 x1 y1 (the last four
 * the enclosing box). Prints "rotated R" (yrt_model_rotated). Exit 1 on any API failure.
 * obb_run MODEL --frame IMAGE.jpg — yrt_session_detect on the image as an RGB frame, upright and
 * stored upside down (orientation 180): the same detections, their rotated boxes in the stored
 * frame's pixels (centre -> (W - cx, H - cy), same sides and angle). Prints "oriented N N dev D". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yolort_image.h"

/* Detections and rotated boxes of one frame; -1 on failure. */
static int detect(yrt_session *s, const yrt_frame *f, yrt_detection *d, yrt_rbox *rb) {
  yrt_error err;
  int n = 0;
  if (yrt_session_detect(s, f, NULL, d, 100, &n, &err)) {
    fprintf(stderr, "obb_run: detect: %s\n", err.msg);
    return -1;
  }
  for (int i = 0; i < n; i++)
    if (yrt_session_rbox(s, i, &rb[i], sizeof rb[i], &err)) {
      fprintf(stderr, "obb_run: rbox %d: %s\n", i, err.msg);
      return -1;
    }
  return n;
}

/* The angle difference modulo pi/2 (the same rectangle either way round), folded to [0, pi/4]. */
static double angle_dev(double a, double b) {
  double d = fmod(fabs(a - b), 1.5707963267948966);
  return fmin(d, 1.5707963267948966 - d);
}

static int oriented(yrt_session *s, const char *jpg) {
  yrt_image img = {0, 0, NULL};
  yrt_error err;
  if (yrt_image_load_jpeg(jpg, &img, &err)) return 1;
  const size_t row = (size_t)img.w * 3, size = row * (size_t)img.h;
  uint8_t *flip = malloc(size);
  static yrt_detection d[2][100];
  static yrt_rbox rb[2][100];
  int rc = 1;
  if (flip) {
    for (int y = 0; y < img.h; y++)
      for (int x = 0; x < img.w; x++)
        memcpy(flip + (size_t)(img.h - 1 - y) * row + (size_t)(img.w - 1 - x) * 3, img.rgb + (size_t)y * row + (size_t)x * 3, 3);
    yrt_frame f;
    yrt_frame_init(&f);
    f.format = YRT_PIX_RGB888, f.width = img.w, f.height = img.h, f.stride[0] = row, f.plane_bytes[0] = size;
    f.plane[0] = img.rgb;
    const int n0 = detect(s, &f, d[0], rb[0]);
    f.plane[0] = flip;
    f.orientation = YRT_ORIENT_180;
    const int n1 = detect(s, &f, d[1], rb[1]);
    double dev = n0 == n1 ? 0 : INFINITY; /* none in both is agreement too */
    const double W = img.w, H = img.h;
    for (int i = 0; i < n0 && n0 == n1; i++) {
      const yrt_rbox *a = &rb[0][i], *b = &rb[1][i];
      dev = fmax(dev, fabs(b->cx - (W - a->cx)) + fabs(b->cy - (H - a->cy)) + fabs(b->w - a->w) + fabs(b->h - a->h));
      dev = fmax(dev, 100 * angle_dev(a->angle, b->angle));
      dev = fmax(dev, fabs(d[1][i].x0 - (W - d[0][i].x1)) + fabs(d[1][i].y0 - (H - d[0][i].y1)));
    }
    printf("oriented %d %d dev %g\n", n0, n1, dev);
    rc = n0 < 0 || n1 < 0;
  }
  free(flip);
  yrt_image_free(&img);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: obb_run MODEL.yrt DIR N | obb_run MODEL.yrt --frame IMAGE.jpg\n");
    return 2;
  }
  yrt_error err = {{0}};
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  const yrt_session_options o = {.num_threads = 2};
  if (yrt_model_load_file(argv[1], &m, &err) || yrt_session_create(m, &o, &s, &err)) {
    fprintf(stderr, "obb_run: %s\n", err.msg);
    return 1;
  }
  printf("rotated %d\n", yrt_model_rotated(m));
  if (!strcmp(argv[2], "--frame")) {
    const int rc = oriented(s, argv[3]);
    yrt_session_free(s);
    yrt_model_free(m);
    return rc;
  }
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  const size_t count = (size_t)3 * (size_t)info.input_w * (size_t)info.input_h;
  float *x = malloc(sizeof(float) * count);
  yrt_detection *dets = malloc(sizeof(yrt_detection) * 300);
  yrt_postprocess_params pp;
  yrt_postprocess_params_init(&pp);
  int rc = !x || !dets;
  for (int i = 0; !rc && i < atoi(argv[3]); i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%d.in.f32", argv[2], i);
    FILE *f = fopen(path, "rb");
    if (!f) break;
    const size_t got = fread(x, sizeof(float), count, f);
    fclose(f);
    int n = 0;
    if (got != count || yrt_session_set_input(s, 0, x, count, &err) || yrt_session_run(s, &err) ||
        yrt_session_postprocess(s, NULL, &pp, dets, 300, &n, &err)) {
      fprintf(stderr, "obb_run: image %d: %s\n", i, got != count ? "short input" : err.msg);
      rc = 1;
      break;
    }
    snprintf(path, sizeof path, "%s/%d.yrt.txt", argv[2], i);
    FILE *out = fopen(path, "w");
    for (int k = 0; out && k < n; k++) {
      yrt_rbox r;
      if (yrt_session_rbox(s, k, &r, sizeof r, &err)) {
        fprintf(stderr, "obb_run: rbox of detection %d: %s\n", k, err.msg);
        rc = 1;
        break;
      }
      fprintf(out, "%d %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g\n", dets[k].class_id, dets[k].score, r.cx, r.cy,
              r.w, r.h, r.angle, dets[k].x0, dets[k].y0, dets[k].x1, dets[k].y1);
    }
    /* one past the last detection is refused, naming the count; so is a struct too small */
    yrt_rbox none;
    if (!rc && (yrt_session_rbox(s, n, &none, sizeof none, &err) != YRT_ERR_INVALID_ARG ||
                (n > 0 && yrt_session_rbox(s, 0, &none, 16, &err) != YRT_ERR_INVALID_ARG))) {
      fprintf(stderr, "obb_run: rbox of detection %d (of %d), or into 16 bytes, not refused\n", n, n);
      rc = 1;
    }
    if (out) fclose(out);
    else rc = 1;
  }
  free(x);
  free(dets);
  yrt_session_free(s);
  yrt_model_free(m);
  return rc;
}
