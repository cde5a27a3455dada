/* weight_scale.c — see weight_scale.h. */
#include "weight_scale.h"

#include <math.h>

static double sq_error(const float *w, size_t n, float s) {
  double e = 0;
  for (size_t i = 0; i < n; i++) {
    float q = nearbyintf(w[i] / s);
    q = q < -127 ? -127 : (q > 127 ? 127 : q);
    const double d = (double)w[i] - (double)q * s;
    e += d * d;
  }
  return e;
}

float weight_scale_mse(const float *w, size_t n) {
  float amax = 0;
  for (size_t i = 0; i < n; i++) amax = fmaxf(amax, fabsf(w[i]));
  if (amax == 0) return 0;
  float best = amax / 127.0f;
  double best_e = sq_error(w, n, best);
  for (int k = 1; k <= 100; k++) {
    const float s = (1.0f - 0.005f * (float)k) * amax / 127.0f;
    const double e = sq_error(w, n, s);
    if (e < best_e) {
      best_e = e;
      best = s;
    }
  }
  return best;
}
