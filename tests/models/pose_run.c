/* pose_run MODEL DIR N — a pose model through the C API on the letterboxed inputs ort_vs_yolort
 * dump wrote (DIR/<i>.in.f32): yrt_session_set_input, yrt_session_run, yrt_session_postprocess
 * (conf 0.25, IoU 0.45, input pixels), yrt_session_keypoints per detection. Writes
 * DIR/<i>.yrt.txt, one line per detection: class score x0 y0 x1 y1, then x y score per
 * keypoint. Prints "keypoints K" (yrt_model_keypoints). Exit 1 on any API failure.
 * pose_run MODEL --frame IMAGE.jpg — yrt_session_detect on the image as an RGB frame, upright
 * and stored upside down (orientation 180): the same detections, their boxes and keypoints in
 * the stored frame's pixels (x -> W - x, y -> H - y). Prints "oriented N dev D". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yolort_image.h"

#define MAXK 64

/* Detections and keypoints of one frame; -1 on failure. */
static int detect(yrt_session *s, const yrt_frame *f, yrt_detection *d, yrt_keypoint (*kp)[MAXK], int nk) {
  yrt_error err;
  int n = 0;
  if (yrt_session_detect(s, f, NULL, d, 100, &n, &err)) {
    fprintf(stderr, "pose_run: detect: %s\n", err.msg);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    int c = 0;
    if (yrt_session_keypoints(s, i, kp[i], MAXK, &c, &err) || c != nk) {
      fprintf(stderr, "pose_run: keypoints %d: %s\n", i, err.msg);
      return -1;
    }
  }
  return n;
}

static int oriented(yrt_session *s, int nk, const char *jpg) {
  yrt_image img = {0, 0, NULL};
  yrt_error err;
  if (nk > MAXK || yrt_image_load_jpeg(jpg, &img, &err)) return 1;
  const size_t row = (size_t)img.w * 3, size = row * (size_t)img.h;
  uint8_t *flip = malloc(size);
  static yrt_detection d[2][100];
  static yrt_keypoint kp[2][100][MAXK];
  int rc = 1;
  if (flip) {
    for (int y = 0; y < img.h; y++)
      for (int x = 0; x < img.w; x++)
        memcpy(flip + (size_t)(img.h - 1 - y) * row + (size_t)(img.w - 1 - x) * 3, img.rgb + (size_t)y * row + (size_t)x * 3, 3);
    yrt_frame f;
    yrt_frame_init(&f);
    f.format = YRT_PIX_RGB888, f.width = img.w, f.height = img.h, f.stride[0] = row, f.plane_bytes[0] = size;
    f.plane[0] = img.rgb;
    const int n0 = detect(s, &f, d[0], kp[0], nk);
    f.plane[0] = flip;
    f.orientation = YRT_ORIENT_180;
    const int n1 = detect(s, &f, d[1], kp[1], nk);
    double dev = n0 == n1 && n0 > 0 ? 0 : INFINITY;
    const float W = (float)img.w, H = (float)img.h;
    for (int i = 0; i < n0 && n0 == n1; i++) {
      dev = fmax(dev, fabs(d[1][i].x0 - (W - d[0][i].x1)) + fabs(d[1][i].y0 - (H - d[0][i].y1)));
      for (int k = 0; k < nk; k++)
        dev = fmax(dev, fabs(kp[1][i][k].x - (W - kp[0][i][k].x)) + fabs(kp[1][i][k].y - (H - kp[0][i][k].y)) +
                            fabs(kp[1][i][k].score - kp[0][i][k].score));
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
    fprintf(stderr, "usage: pose_run MODEL.yrt DIR N | pose_run MODEL.yrt --frame IMAGE.jpg\n");
    return 2;
  }
  yrt_error err = {{0}};
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  const yrt_session_options o = {.num_threads = 2};
  if (yrt_model_load_file(argv[1], &m, &err) || yrt_session_create(m, &o, &s, &err)) {
    fprintf(stderr, "pose_run: %s\n", err.msg);
    return 1;
  }
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  int dims = 0;
  const int nk = yrt_model_keypoints(m, &dims);
  printf("keypoints %d %d\n", nk, dims);
  if (!strcmp(argv[2], "--frame")) {
    const int rc = oriented(s, nk, argv[3]);
    yrt_session_free(s);
    yrt_model_free(m);
    return rc;
  }
  const size_t count = (size_t)3 * (size_t)info.input_w * (size_t)info.input_h;
  float *x = malloc(sizeof(float) * count);
  yrt_detection *dets = malloc(sizeof(yrt_detection) * 300);
  yrt_keypoint *kp = malloc(sizeof(yrt_keypoint) * (size_t)(nk > 0 ? nk : 1));
  yrt_postprocess_params pp;
  yrt_postprocess_params_init(&pp);
  int rc = !x || !dets || !kp;
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
      fprintf(stderr, "pose_run: image %d: %s\n", i, got != count ? "short input" : err.msg);
      rc = 1;
      break;
    }
    snprintf(path, sizeof path, "%s/%d.yrt.txt", argv[2], i);
    FILE *out = fopen(path, "w");
    for (int k = 0; out && k < n; k++) {
      int got_k = -1;
      if (yrt_session_keypoints(s, k, kp, nk, &got_k, &err) || got_k != nk) {
        fprintf(stderr, "pose_run: keypoints of detection %d: %s (%d)\n", k, err.msg, got_k);
        rc = 1;
        break;
      }
      fprintf(out, "%d %.6g %.6g %.6g %.6g %.6g", dets[k].class_id, dets[k].score, dets[k].x0, dets[k].y0, dets[k].x1,
              dets[k].y1);
      for (int j = 0; j < nk; j++) fprintf(out, " %.6g %.6g %.6g", kp[j].x, kp[j].y, kp[j].score);
      fputc('\n', out);
    }
    /* one past the last detection is refused, naming the count */
    int none = 0;
    if (!rc && yrt_session_keypoints(s, n, kp, nk, &none, &err) != YRT_ERR_INVALID_ARG) {
      fprintf(stderr, "pose_run: keypoints of detection %d (of %d) not refused\n", n, n);
      rc = 1;
    }
    if (out) fclose(out);
    else rc = 1;
  }
  free(x);
  free(dets);
  free(kp);
  yrt_session_free(s);
  yrt_model_free(m);
  return rc;
}
