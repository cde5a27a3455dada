/* threshold_scan_scalar.c — which anchors of an anchor-major [n][nc] class block have some value
 * over a threshold, the reference. One flat pass over the n * nc values: a hit lists its anchor
 * and jumps to the next anchor's first value, so an anchor is listed at most once and a block
 * without hits costs one comparison per value. The SIMD variants scan whole vectors and hand
 * their first hit's position to the same code (yk_detect_over_*_from). */
#include "yk_variants.h"

size_t yk_detect_over_i8_from(const int8_t *q, size_t i, size_t total, size_t nc, int8_t t, int32_t base,
                              int32_t *list) {
  size_t k = 0;
  while (i < total) {
    if (q[i] > t) {
      i = yk_detect_over_hit(i, nc, base, &list[k++]);
    } else {
      i++;
    }
  }
  return k;
}

size_t yk_detect_over_f32_from(const float *x, size_t i, size_t total, size_t nc, float t, int32_t base,
                               int32_t *list) {
  size_t k = 0;
  while (i < total) {
    if (!(x[i] < t)) { /* NaN counts as over: the full decode decides about it */
      i = yk_detect_over_hit(i, nc, base, &list[k++]);
    } else {
      i++;
    }
  }
  return k;
}

size_t yk_detect_over_i8__scalar(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list) {
  return yk_detect_over_i8_from(q, 0, n * (size_t)nc, (size_t)nc, t, base, list);
}

size_t yk_detect_over_f32__scalar(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list) {
  return yk_detect_over_f32_from(x, 0, n * (size_t)nc, (size_t)nc, t, base, list);
}
