/* pose_run MODEL DIR N — a pose model through the C API on the letterboxed inputs ort_vs_yolort
 * dump wrote (head_run.c: DIR/<i>.in.f32, i < N): yrt_session_run, yrt_session_postprocess
 * (conf 0.25, IoU 0.45, input pixels), yrt_session_keypoints per detection. Writes
 * DIR/<i>.yrt.txt, one line per detection: class score x0 y0 x1 y1, then x y score per
 * keypoint. Prints "keypoints K D" (yrt_model_keypoints). Exit 1 on any API failure.
 * pose_run MODEL --frame IMAGE.jpg — yrt_session_detect on the image as an RGB frame, upright
 * and stored upside down (orientation 180): the same detections, their boxes and keypoints in
 * the stored frame's pixels (x -> W - x, y -> H - y). Prints "oriented N N dev D". */
#include <math.h>

#include "head_run.h"

#define MAXK 64 /* --frame */

typedef struct pose_ctx {
  int nk;
  yrt_keypoint kp[3072 / 2];                      /* one detection's: as many as a model may have */
  yrt_keypoint frame[2][HEAD_RUN_MAX_DETS][MAXK]; /* --frame: the two frames' */
} pose_ctx;

static int hello(const yrt_model *m, void *ctx) {
  pose_ctx *c = ctx;
  int dims = 0;
  c->nk = yrt_model_keypoints(m, &dims);
  printf("keypoints %d %d\n", c->nk, dims);
  return c->nk > (int)(sizeof c->kp / sizeof c->kp[0]);
}

static int line(yrt_session *s, int k, const yrt_detection *d, FILE *out, void *ctx) {
  pose_ctx *c = ctx;
  yrt_error err = {{0}};
  int got_k = -1;
  if (yrt_session_keypoints(s, k, c->kp, c->nk, &got_k, &err) || got_k != c->nk) {
    fprintf(stderr, "pose_run: keypoints of detection %d: %s (%d)\n", k, err.msg, got_k);
    return 1;
  }
  fprintf(out, "%d %.6g %.6g %.6g %.6g %.6g", d->class_id, d->score, d->x0, d->y0, d->x1, d->y1);
  for (int j = 0; j < c->nk; j++) fprintf(out, " %.6g %.6g %.6g", c->kp[j].x, c->kp[j].y, c->kp[j].score);
  return 0;
}

/* one past the last detection is refused, naming the count */
static int past(yrt_session *s, int n, void *ctx) {
  pose_ctx *c = ctx;
  yrt_error err;
  int none = 0;
  if (yrt_session_keypoints(s, n, c->kp, c->nk, &none, &err) != YRT_ERR_INVALID_ARG) {
    fprintf(stderr, "pose_run: keypoints of detection %d (of %d) not refused\n", n, n);
    return 1;
  }
  return 0;
}

static int extras(yrt_session *s, int n, int which, void *ctx) {
  pose_ctx *c = ctx;
  yrt_error err;
  if (c->nk > MAXK) return 1;
  for (int i = 0; i < n; i++) {
    int got = 0;
    if (yrt_session_keypoints(s, i, c->frame[which][i], MAXK, &got, &err) || got != c->nk) {
      fprintf(stderr, "pose_run: keypoints %d: %s\n", i, err.msg);
      return 1;
    }
  }
  return 0;
}

static double dev(int i, double W, double H, void *ctx) {
  const pose_ctx *c = ctx;
  double v = 0;
  for (int k = 0; k < c->nk; k++) {
    const yrt_keypoint *a = &c->frame[0][i][k], *b = &c->frame[1][i][k];
    v = fmax(v, fabs(b->x - (W - a->x)) + fabs(b->y - (H - a->y)) + fabs(b->score - a->score));
  }
  return v;
}

int main(int argc, char **argv) {
  static pose_ctx c; /* large: not on the stack */
  const head_run h = {"pose_run", hello, line, past, extras, dev, 1, &c};
  return head_run_main(argc, argv, &h);
}
