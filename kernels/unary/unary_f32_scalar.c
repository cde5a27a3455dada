/* unary_f32_scalar.c — float activations. yk_unary_f32_1 is the single definition of each
 * function, also used to build int8 LUTs. Sigmoid is evaluated on the side where exp cannot
 * overflow, so it is accurate to ~1 ulp of expf over the whole range. */
#include <math.h>
#include <string.h>

#include "yk_variants.h"
#include "yolort_format.h"

static float sigmoid1(float x) {
  if (x >= 0.0f) return 1.0f / (1.0f + expf(-x));
  const float e = expf(x);
  return e / (1.0f + e);
}

float yk_unary_f32_1(int kind, float alpha, float x) {
  switch (kind) {
    case YRT_UNARY_RELU: return x > 0.0f ? x : 0.0f;
    case YRT_UNARY_SIGMOID: return sigmoid1(x);
    case YRT_UNARY_SILU: return x * sigmoid1(x);
    case YRT_UNARY_LEAKY_RELU: return x >= 0.0f ? x : alpha * x;
    case YRT_UNARY_TANH: return tanhf(x);
    case YRT_UNARY_EXP: return expf(x);
    default: return x; /* NONE, IDENTITY */
  }
}

void yk_unary_f32__scalar(int kind, float alpha, const float *x, float *y, size_t n) {
  switch (kind) {
    case YRT_UNARY_RELU:
      for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
      break;
    case YRT_UNARY_LEAKY_RELU:
      for (size_t i = 0; i < n; i++) y[i] = x[i] >= 0.0f ? x[i] : alpha * x[i];
      break;
    case YRT_UNARY_SIGMOID:
    case YRT_UNARY_SILU:
    case YRT_UNARY_TANH:
    case YRT_UNARY_EXP:
      for (size_t i = 0; i < n; i++) y[i] = yk_unary_f32_1(kind, alpha, x[i]);
      break;
    default:
      if (x != y && n) memmove(y, x, n * sizeof(float));
      break;
  }
}

void yk_unary_f32(const yk_isa *isa, int kind, float alpha, const float *x, float *y, size_t n) {
  (void)isa;
  yk_unary_f32__scalar(kind, alpha, x, y, n);
}
