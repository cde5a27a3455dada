/* unary_f32_scalar.c — float activations. yk_unary_f32_1 is the single definition of each
 * function, also used to build int8 LUTs. Exp, sigmoid and SiLU use the exp of
 * exp_f32_inline.h (not libm) so the SIMD variants are bit-exact with this reference; tanh
 * stays libm and has no SIMD variant. */
#include <math.h>
#include <string.h>

#include "exp_f32_inline.h"
#include "yk_variants.h"
#include "yolort_format.h"

float yk_unary_f32_1(int kind, float alpha, float x) {
  switch (kind) {
    case YRT_UNARY_RELU: return x > 0.0f ? x : 0.0f;
    case YRT_UNARY_SIGMOID: return yk_sigmoid_f32_1(x);
    case YRT_UNARY_SILU: return x * yk_sigmoid_f32_1(x);
    case YRT_UNARY_LEAKY_RELU: return x >= 0.0f ? x : alpha * x;
    case YRT_UNARY_TANH: return tanhf(x);
    case YRT_UNARY_EXP: return yk_exp_f32_1(x);
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
#if YK_ARCH_X86_64
  if (isa && isa->avx512) {
    yk_unary_f32__avx512(kind, alpha, x, y, n);
    return;
  }
  if (isa && isa->avx2) {
    yk_unary_f32__avx2(kind, alpha, x, y, n);
    return;
  }
#endif
  (void)isa;
  yk_unary_f32__scalar(kind, alpha, x, y, n);
}
