/* obb_run MODEL DIR N — an obb model through the C API on the letterboxed inputs ort_vs_yolort
 * dump wrote (head_run.c: DIR/<i>.in.f32, i < N): yrt_session_run, yrt_session_postprocess
 * (conf 0.25, IoU 0.45, input pixels: the rotated NMS), yrt_session_rbox per detection. Writes
 * DIR/<i>.yrt.txt, one line per detection: class score cx cy w h angle x0 y0 x1 y1 (the last four
 * the enclosing box). Prints "rotated R" (yrt_model_rotated). Exit 1 on any API failure.
 * obb_run MODEL --frame IMAGE.jpg — yrt_session_detect on the image as an RGB frame, upright and
 * stored upside down (orientation 180): the same detections, their rotated boxes in the stored
 * frame's pixels (centre -> (W - cx, H - cy), same sides and angle). Prints "oriented N N dev D". */
#include <math.h>

#include "head_run.h"

static yrt_rbox k_rb[2][HEAD_RUN_MAX_DETS]; /* --frame: the two frames' rotated boxes */

static int hello(const yrt_model *m, void *ctx) {
  (void)ctx;
  printf("rotated %d\n", yrt_model_rotated(m));
  return 0;
}

static int line(yrt_session *s, int k, const yrt_detection *d, FILE *out, void *ctx) {
  (void)ctx;
  yrt_error err;
  yrt_rbox r;
  if (yrt_session_rbox(s, k, &r, sizeof r, &err)) {
    fprintf(stderr, "obb_run: rbox of detection %d: %s\n", k, err.msg);
    return 1;
  }
  fprintf(out, "%d %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g", d->class_id, d->score, r.cx, r.cy, r.w, r.h,
          r.angle, d->x0, d->y0, d->x1, d->y1);
  return 0;
}

/* one past the last detection is refused, naming the count; so is a struct too small */
static int past(yrt_session *s, int n, void *ctx) {
  (void)ctx;
  yrt_error err;
  yrt_rbox none;
  if (yrt_session_rbox(s, n, &none, sizeof none, &err) != YRT_ERR_INVALID_ARG ||
      (n > 0 && yrt_session_rbox(s, 0, &none, 16, &err) != YRT_ERR_INVALID_ARG)) {
    fprintf(stderr, "obb_run: rbox of detection %d (of %d), or into 16 bytes, not refused\n", n, n);
    return 1;
  }
  return 0;
}

static int extras(yrt_session *s, int n, int which, void *ctx) {
  (void)ctx;
  yrt_error err;
  for (int i = 0; i < n; i++)
    if (yrt_session_rbox(s, i, &k_rb[which][i], sizeof k_rb[which][i], &err)) {
      fprintf(stderr, "obb_run: rbox %d: %s\n", i, err.msg);
      return 1;
    }
  return 0;
}

/* The angle difference modulo pi/2 (the same rectangle either way round), folded to [0, pi/4]. */
static double angle_dev(double a, double b) {
  double d = fmod(fabs(a - b), 1.5707963267948966);
  return fmin(d, 1.5707963267948966 - d);
}

static double dev(int i, double W, double H, void *ctx) {
  (void)ctx;
  const yrt_rbox *a = &k_rb[0][i], *b = &k_rb[1][i];
  const double v = fabs(b->cx - (W - a->cx)) + fabs(b->cy - (H - a->cy)) + fabs(b->w - a->w) + fabs(b->h - a->h);
  return fmax(v, 100 * angle_dev(a->angle, b->angle));
}

int main(int argc, char **argv) {
  /* none in both frames is agreement too */
  const head_run h = {"obb_run", hello, line, past, extras, dev, 0, NULL};
  return head_run_main(argc, argv, &h);
}
