/* rotated_iou.c — how alike two rotated boxes are (coco_map.h): Ultralytics' probabilistic IoU
 * (the OBB validator's matching) and the exact IoU of the two quadrilaterals (DOTA's polygon IoU),
 * and a rotated box read back from a label's four corners. In double. */
#include <math.h>

#include "coco_map.h"

/* Ultralytics _get_covariance_matrix of (w, h, angle): the box as a Gaussian, w^2 / 12 along the
 * angle and h^2 / 12 across it. */
static void covariance(const float *r, double *a, double *b, double *c) {
  const double aa = (double)r[2] * r[2] / 12.0, bb = (double)r[3] * r[3] / 12.0, co = cos(r[4]), si = sin(r[4]);
  *a = aa * co * co + bb * si * si;
  *b = aa * si * si + bb * co * co;
  *c = (aa - bb) * co * si;
}

double coco_probiou(const float *r1, const float *r2) {
  const double eps = 1e-7;
  double a1, b1, c1, a2, b2, c2;
  covariance(r1, &a1, &b1, &c1);
  covariance(r2, &a2, &b2, &c2);
  const double x1 = r1[0], y1 = r1[1], x2 = r2[0], y2 = r2[1];
  const double den = (a1 + a2) * (b1 + b2) - (c1 + c2) * (c1 + c2);
  const double t1 = ((a1 + a2) * (y1 - y2) * (y1 - y2) + (b1 + b2) * (x1 - x2) * (x1 - x2)) / (den + eps) * 0.25;
  const double t2 = ((c1 + c2) * (x2 - x1) * (y1 - y2)) / (den + eps) * 0.5;
  const double d1 = fmax(a1 * b1 - c1 * c1, 0.0), d2 = fmax(a2 * b2 - c2 * c2, 0.0);
  const double t3 = log(den / (4.0 * sqrt(d1 * d2) + eps) + eps) * 0.5;
  double bd = t1 + t2 + t3;
  bd = bd < eps ? eps : bd > 100.0 ? 100.0 : bd;
  return 1.0 - sqrt(1.0 - exp(-bd) + eps);
}

static double shoelace(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += p[2 * i] * p[2 * ((i + 1) % n) + 1] - p[2 * ((i + 1) % n)] * p[2 * i + 1];
  return 0.5 * s;
}

/* The four corners counter-clockwise (positive area in these axes), into q[8]; the signed area. */
static double ccw(const float *corners, double *q) {
  for (int i = 0; i < 8; i++) q[i] = corners[i];
  const double a = shoelace(q, 4);
  if (a < 0)
    for (int i = 0; i < 2; i++) { /* reverse: swap corners 1 and 3 */
      const double t = q[2 + i];
      q[2 + i] = q[6 + i], q[6 + i] = t;
    }
  return fabs(a);
}

/* Sutherland-Hodgman: the convex polygon p (n <= 8 vertices, ccw) clipped by the half-plane left of
 * edge a -> b, into out; returns its vertex count. */
static int clip(const double *p, int n, const double *a, const double *b, double *out) {
  int m = 0;
  const double ex = b[0] - a[0], ey = b[1] - a[1];
  for (int i = 0; i < n; i++) {
    const double *s = p + 2 * i, *e = p + 2 * ((i + 1) % n);
    const double ds = ex * (s[1] - a[1]) - ey * (s[0] - a[0]), de = ex * (e[1] - a[1]) - ey * (e[0] - a[0]);
    if (ds >= 0 && m < 8) out[2 * m] = s[0], out[2 * m + 1] = s[1], m++;
    if ((ds >= 0) != (de >= 0) && m < 8) {
      const double t = ds / (ds - de);
      out[2 * m] = s[0] + t * (e[0] - s[0]), out[2 * m + 1] = s[1] + t * (e[1] - s[1]), m++;
    }
  }
  return m;
}

double coco_poly_iou(const float *r1, const float *r2) {
  double p[8], q[8], buf[2][16];
  const double a1 = ccw(r1 + 5, p), a2 = ccw(r2 + 5, q);
  if (!(a1 > 0) || !(a2 > 0)) return 0.0;
  int n = 4;
  for (int i = 0; i < 8; i++) buf[0][i] = p[i];
  for (int k = 0; k < 4 && n > 0; k++) { /* a convex quadrilateral clipped by another: at most 8 vertices */
    n = clip(buf[k & 1], n, q + 2 * k, q + 2 * ((k + 1) % 4), buf[(k + 1) & 1]);
  }
  const double inter = n >= 3 ? fabs(shoelace(buf[0], n)) : 0.0; /* 4 clips: the result is back in buf[0] */
  const double u = a1 + a2 - inter;
  return u > 0 ? inter / u : 0.0;
}

void coco_rbox_from_corners(float *r) {
  const float *c = r + 5;
  r[0] = (c[0] + c[2] + c[4] + c[6]) / 4.0f;
  r[1] = (c[1] + c[3] + c[5] + c[7]) / 4.0f;
  r[2] = (float)hypot((double)c[2] - c[0], (double)c[3] - c[1]);
  r[3] = (float)hypot((double)c[4] - c[2], (double)c[5] - c[3]);
  r[4] = (float)atan2((double)c[3] - c[1], (double)c[2] - c[0]);
}
