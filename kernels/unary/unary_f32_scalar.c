/* unary_f32_scalar.c — float activations. yk_unary_f32_1 is the single definition of each
 * function, also used to build int8 LUTs. Exp, sigmoid and SiLU use the exp of
 * exp_f32_inline.h (not libm) so the SIMD variants are bit-exact with this reference; tanh,
 * cos and sin stay libm and have no SIMD variant. Every yk_unary_kind is a case: an unknown kind asserts
 * and gives NaN (never a silent identity, which would hide a missing case). */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "exp_f32_inline.h"
#include "yk_variants.h"

float yk_unary_f32_1(int kind, float alpha, float x) {
  switch (kind) {
    case YK_UNARY_NONE:
    case YK_UNARY_IDENTITY: return x;
    case YK_UNARY_RELU: return x > 0.0f ? x : 0.0f;
    case YK_UNARY_SIGMOID: return yk_sigmoid_f32_1(x);
    case YK_UNARY_SILU: return x * yk_sigmoid_f32_1(x);
    case YK_UNARY_LEAKY_RELU: return x >= 0.0f ? x : alpha * x;
    case YK_UNARY_TANH: return tanhf(x);
    case YK_UNARY_EXP: return yk_exp_f32_1(x);
    case YK_UNARY_COS: return cosf(x);
    case YK_UNARY_SIN: return sinf(x);
  }
  assert(!"yk_unary_f32_1: unknown yk_unary_kind");
  return NAN;
}

void yk_unary_f32__scalar(int kind, float alpha, const float *x, float *y, size_t n) {
  switch (kind) {
    case YK_UNARY_NONE:
    case YK_UNARY_IDENTITY:
      if (x != y && n) memmove(y, x, n * sizeof(float));
      return;
    case YK_UNARY_RELU:
      for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
      return;
    case YK_UNARY_LEAKY_RELU:
      for (size_t i = 0; i < n; i++) y[i] = x[i] >= 0.0f ? x[i] : alpha * x[i];
      return;
    case YK_UNARY_SIGMOID:
    case YK_UNARY_SILU:
    case YK_UNARY_TANH:
    case YK_UNARY_EXP:
    case YK_UNARY_COS:
    case YK_UNARY_SIN:
      for (size_t i = 0; i < n; i++) y[i] = yk_unary_f32_1(kind, alpha, x[i]);
      return;
  }
  assert(!"yk_unary_f32__scalar: unknown yk_unary_kind");
  for (size_t i = 0; i < n; i++) y[i] = NAN;
}
