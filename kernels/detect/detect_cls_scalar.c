/* detect_cls_scalar.c — the Detect decode's int8 class scores, the reference: y[c * ys + i] =
 * t[q[i * nc + c] + 128] (the sigmoid table), anchor-major in, class-major out. */
#include "yk_variants.h"

void yk_detect_cls_i8__scalar(const int8_t *q, size_t n, int nc, const float t[256], float *y, size_t ys) {
  const float *t0 = t + 128;
  for (int c = 0; c < nc; c++, y += ys)
    for (size_t i = 0; i < n; i++) y[i] = t0[q[i * (size_t)nc + (size_t)c]];
}
