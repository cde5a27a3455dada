/* minmax_f32_scalar.c — range of a float tensor (dynamic quantization). Eight independent
 * lanes so the compiler vectorises it; the comparisons skip NaNs. */
#include "yk.h"

void yk_minmax_f32(const float *x, size_t n, float *lo, float *hi) {
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
