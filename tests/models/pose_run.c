/* pose_run MODEL DIR N — a pose model through the C API on the letterboxed inputs ort_vs_yolort
 * dump wrote (DIR/<i>.in.f32): yrt_session_set_input, yrt_session_run, yrt_session_postprocess
 * (conf 0.25, IoU 0.45, input pixels), yrt_session_keypoints per detection. Writes
 * DIR/<i>.yrt.txt, one line per detection: class score x0 y0 x1 y1, then x y score per
 * keypoint. Prints "keypoints K" (yrt_model_keypoints). Exit 1 on any API failure. */
#include <stdio.h>
#include <stdlib.h>

#include "yolort.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: pose_run MODEL.yrt DIR N\n");
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
