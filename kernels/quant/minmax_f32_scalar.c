/* minmax_f32_scalar.c — range of a float tensor (dynamic quantization), the reference: eight
 * lanes (x[8i + k] into lane k), the tail into lane 0, then lanes 1..7 folded into lane 0 in
 * order; the comparisons skip NaNs. The SIMD variants keep this order, so -0 / +0 match too. */
#include "yk_variants.h"

void yk_minmax_f32_fold(const float *x, size_t i, size_t n, float l[8], float h[8], float *lo, float *hi) {
  for (; i < n; i++) {
    l[0] = x[i] < l[0] ? x[i] : l[0];
    h[0] = x[i] > h[0] ? x[i] : h[0];
  }
  for (int k = 1; k < 8; k++) {
    l[0] = l[k] < l[0] ? l[k] : l[0];
    h[0] = h[k] > h[0] ? h[k] : h[0];
  }
  *lo = l[0];
  *hi = h[0];
}

void yk_minmax_f32__scalar(const float *x, size_t n, float *lo, float *hi) {
  float l[8], h[8];
  const float first = n ? x[0] : 0.0f;
  for (int k = 0; k < 8; k++) l[k] = h[k] = first == first ? first : 0.0f;
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) {
      const float v = x[i + (size_t)k];
      l[k] = v < l[k] ? v : l[k];
      h[k] = v > h[k] ? v : h[k];
    }
  yk_minmax_f32_fold(x, i, n, l, h, lo, hi);
}
