/* obb_decode.c — the Ultralytics OBB head's rotated boxes (yk_obb.h). Scalar only: one sin/cos
 * per anchor that can become a detection, next to the convs it is light. */
#include <math.h>
#include <string.h>

#include "yk_obb.h"

float yk_obb_angle(float v) { return (1.0f / (1.0f + expf(-v)) - 0.25f) * 3.14159265f; }

/* Whether anchor a can become a detection: its best score over conf (NaN: always). */
static int passes(const yk_obb_params *p, const float *rows, size_t a, float conf) {
  if (isnan(conf)) return 1;
  const float *sc = rows + 4 * p->n_anchors + a;
  for (int c = 0; c < p->nc; c++)
    if (sc[(size_t)c * p->n_anchors] > conf) return 1;
  return 0;
}

void yk_obb_decode(const yk_obb_params *p, const float *rows, size_t lo, size_t hi, float conf, float *y) {
  const size_t n = p->n_anchors;
  if (hi > n) hi = n;
  if (lo >= hi) return;
  for (int r = 4; r < 4 + p->nc; r++) memcpy(y + (size_t)r * n + lo, rows + (size_t)r * n + lo, (hi - lo) * sizeof(float));
  int k = 0;
  for (size_t a = lo; a < hi; a++) {
    while (k + 1 < p->n_scales && a >= p->s[k + 1].first) k++;
    if (!passes(p, rows, a, conf)) continue;
    const yk_pose_scale *sc = &p->s[k];
    const size_t i = a - sc->first;
    const float v = sc->deq ? sc->deq[((const int8_t *)sc->x)[i] + 128] : ((const float *)sc->x)[i];
    const float t = p->raw ? v : yk_obb_angle(v), c = cosf(t), s = sinf(t);
    const float ax = ((float)(i % (size_t)sc->w) + 0.5f) * sc->stride, ay = ((float)(i / (size_t)sc->w) + 0.5f) * sc->stride;
    const float dx = rows[a] - ax, dy = rows[n + a] - ay;
    y[a] = ax + (dx * c - dy * s);
    y[n + a] = ay + (dx * s + dy * c);
    y[2 * n + a] = rows[2 * n + a];
    y[3 * n + a] = rows[3 * n + a];
    y[(size_t)(4 + p->nc) * n + a] = t;
  }
}
