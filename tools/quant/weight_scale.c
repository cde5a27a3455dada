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

/* The integer multiple of g nearest to every w, or -1 when some w is off the grid (relative 4e-6)
 * or the largest multiple exceeds 127. */
static long grid_max_k(const float *w, size_t n, double g) {
  long kmax = 0;
  for (size_t i = 0; i < n; i++) {
    const double wi = w[i], k = nearbyint(wi / g);
    if (fabs(wi - k * g) > 4e-6 * fabs(wi)) return -1;
    if (fabs(k) > 127) return -1;
    if ((long)fabs(k) > kmax) kmax = (long)fabs(k);
  }
  return kmax;
}

float weight_scale_grid(const float *w, size_t n) {
  float wmin = 0, amax = 0;
  for (size_t i = 0; i < n; i++) {
    const float a = fabsf(w[i]);
    if (a > 0 && (wmin == 0 || a < wmin)) wmin = a;
    amax = fmaxf(amax, a);
  }
  if (wmin == 0) return 0;
  /* the smallest weight is d steps; max|k| = d max|w| / min|w| must stay <= 127 */
  for (int d = 1; (double)d * amax / wmin <= 127.5; d++) {
    const double g = (double)wmin / d;
    const long kmax = grid_max_k(w, n, g);
    if (kmax > 0) return (float)(g / (double)(127 / kmax));
  }
  return 0;
}

float weight_scale_pick(weight_scale_kind kind, const float *w, size_t n) {
  float amax = 0;
  for (size_t i = 0; i < n; i++) amax = fmaxf(amax, fabsf(w[i]));
  if (amax == 0) return 1.0f;
  if (kind == WEIGHT_SCALE_MSE) return weight_scale_mse(w, n);
  if (kind == WEIGHT_SCALE_GRID) {
    const float g = weight_scale_grid(w, n);
    if (g > 0) return g;
  }
  return amax / 127.0f;
}
