/* pose_decode.c — the keypoint decode of pose heads: Ultralytics Pose, and the anchor form of
 * YOLO-Pose (TI edgeai-yolov5) objectness heads (yk_pose.h). Scalar only: it runs
 * on the few anchors whose boxes are kept, or once over output rows that are light next to the
 * convs; the arithmetic is the export's float order ((2 v + cell) * stride), so a float head
 * gives onnxruntime's values bit for bit. */
#include <math.h>

#include "yk_pose.h"

void yk_pose_deq_table(float scale, int32_t zp, float t[256]) {
  for (int i = 0; i < 256; i++) t[i] = (float)(i - 128 - zp) * scale;
}

static inline float value(const yk_pose_scale *sc, size_t at) {
  return sc->deq ? sc->deq[((const int8_t *)sc->x)[at] + 128] : ((const float *)sc->x)[at];
}

/* The cell of anchor a: its scale, row and column, and where its keypoint values start. */
static const yk_pose_scale *cell(const yk_pose_params *p, size_t a, int *row, int *col, size_t *base) {
  int k = 0;
  while (k + 1 < p->n_scales && a >= p->s[k + 1].first) k++;
  const yk_pose_scale *sc = &p->s[k];
  size_t i = a - sc->first, an = 0;
  const size_t cells = (size_t)sc->h * (size_t)sc->w;
  if (p->anchor_form) an = i / cells, i %= cells;
  *row = (int)(i / (size_t)sc->w);
  *col = (int)(i % (size_t)sc->w);
  *base = p->anchor_form ? i * (size_t)p->na * (size_t)p->per + an * (size_t)p->per + (size_t)p->first
                         : i * (size_t)p->nk * (size_t)p->kd;
  return sc;
}

/* One anchor's values, written dst[v * step] for value v. */
static void decode_one(const yk_pose_params *p, size_t a, float *dst, size_t step) {
  int row, col;
  size_t base;
  const yk_pose_scale *sc = cell(p, a, &row, &col, &base);
  const float gx = (float)col, gy = (float)row;
  for (int k = 0; k < p->nk; k++) {
    const size_t c = (size_t)k * (size_t)p->kd;
    const float vx = value(sc, base + c) * 2.0f, vy = value(sc, base + c + 1) * 2.0f;
    if (p->anchor_form) { /* the TI export's float order: v * 2. - 0.5 + grid */
      dst[c * step] = (vx - 0.5f + gx) * sc->stride;
      dst[(c + 1) * step] = (vy - 0.5f + gy) * sc->stride;
    } else {
      dst[c * step] = (vx + gx) * sc->stride;
      dst[(c + 1) * step] = (vy + gy) * sc->stride;
    }
    if (p->kd == 3) dst[(c + 2) * step] = 1.0f / (1.0f + expf(-value(sc, base + c + 2)));
  }
}

void yk_pose_decode(const yk_pose_params *p, size_t lo, size_t hi, float *y) {
  for (size_t a = lo; a < hi && a < p->n_anchors; a++) decode_one(p, a, y + a, p->n_anchors);
}

void yk_pose_decode_anchor(const yk_pose_params *p, size_t a, float *xyv) {
  if (a < p->n_anchors) decode_one(p, a, xyv, 1);
}
