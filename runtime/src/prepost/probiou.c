/* probiou.c — Gaussian boxes, probabilistic IoU and corners (probiou.h). */
#include "probiou.h"

#include <math.h>

void yrt_rbox_gauss(float cx, float cy, float w, float h, float angle, yrt_gauss *g) {
  const double a = (double)w * w / 12.0, b = (double)h * h / 12.0, co = cos(angle), si = sin(angle);
  g->x = cx;
  g->y = cy;
  g->a = (float)(a * co * co + b * si * si);
  g->b = (float)(a * si * si + b * co * co);
  g->c = (float)((a - b) * co * si);
}

double yrt_probiou(const yrt_gauss *p, const yrt_gauss *q) {
  const double eps = 1e-7, a = (double)p->a + q->a, b = (double)p->b + q->b, c = (double)p->c + q->c;
  const double dx = (double)p->x - q->x, dy = (double)p->y - q->y, det = a * b - c * c;
  const double t1 = (a * dy * dy + b * dx * dx) / (det + eps) * 0.25;
  const double t2 = (c * (-dx) * dy) / (det + eps) * 0.5; /* (c1 + c2)(x2 - x1)(y1 - y2) */
  const double d1 = fmax((double)p->a * p->b - (double)p->c * p->c, 0.0);
  const double d2 = fmax((double)q->a * q->b - (double)q->c * q->c, 0.0);
  const double t3 = log(det / (4.0 * sqrt(d1 * d2) + eps) + eps) * 0.5;
  double bd = t1 + t2 + t3;
  bd = bd < eps ? eps : bd > 100.0 ? 100.0 : bd;
  if (isnan(bd)) bd = 100.0; /* non-finite boxes overlap nothing */
  return 1.0 - sqrt(1.0 - exp(-bd) + eps);
}

void yrt_rbox_corners(float cx, float cy, float w, float h, float angle, float corners[4][2]) {
  const float co = cosf(angle), si = sinf(angle);
  const float wx = w / 2 * co, wy = w / 2 * si, hx = -h / 2 * si, hy = h / 2 * co;
  const float sx[4] = {1, 1, -1, -1}, sy[4] = {1, -1, -1, 1};
  for (int k = 0; k < 4; k++) {
    corners[k][0] = cx + sx[k] * wx + sy[k] * hx;
    corners[k][1] = cy + sx[k] * wy + sy[k] * hy;
  }
}
