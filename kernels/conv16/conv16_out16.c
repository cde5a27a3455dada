/* conv16_out16.c — the int16 output stage of yk_conv16 (yk_conv16.h, out16): dequantize, the
 * activation in float, quantize to symmetric int16. Portable and the only copy: the packed
 * variants and the scalar reference all call it, so they agree bit for bit (the build is ISO C,
 * no FMA contraction, so the compiler's vector loop and its scalar tail round alike). exp is a
 * fixed polynomial, not libm's: the same bits on every libc, and the loop vectorizes. */
#include <string.h>

#include "yk_conv16.h"

/* exp(x) for x in [-87, 87] (callers clamp): x = n ln2 + r, |r| <= ln2 / 2, 2^n exact through the
 * exponent bits, e^r by its degree-6 Taylor polynomial (relative error ~2e-7, below the
 * int16 output's step at every scale it is used with). */
static inline float exp_poly(float x) {
  const float t = x * 1.44269504f;
  /* round to nearest by the 1.5 * 2^23 trick: exact for |t| < 2^22 */
  const float n = (t + 12582912.0f) - 12582912.0f;
  const float r = (x - n * 0.693145752f) - n * 1.42860677e-6f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = ((int32_t)n + 127) * (1 << 23);
  float s;
  memcpy(&s, &bits, sizeof s);
  return p * s;
}

/* 1 + exp(-v), the argument clamped where float sigmoid is 0 or 1 already */
static inline float one_plus_exp_neg(float v) {
  float a = -v;
  /* NaN ends at -87 (no undefined float -> int conversion below) */
  a = a > -87.0f ? a : -87.0f;
  a = a < 87.0f ? a : 87.0f;
  return 1.0f + exp_poly(a);
}

/* v in units of the output step (times 1 / s_y: one multiply, no division per value) */
static inline int16_t q16(float v, float inv_y_scale) {
  v = v * inv_y_scale;
  /* NaN compares false both times and ends at the low end, as yk_quantize_f32_i16 */
  v = v > -32767.0f ? v : -32767.0f;
  v = v < 32767.0f ? v : 32767.0f;
  /* round half to even by the 1.5 * 2^23 trick (|v| <= 32767: exact), as yk_round_half_even */
  return (int16_t)(int32_t)((v + 12582912.0f) - 12582912.0f);
}

void yk_conv16_out16(const float *f, const float *scale, const yk_conv16 *c, int16_t *y, int n) {
  const float ys = 1.0f / c->y_scale, alpha = c->act_alpha;
  /* one loop per activation: each a straight, vectorizable body */
  switch (c->act) {
    case YK_CONV16_ACT_RELU:
      for (int i = 0; i < n; i++) {
        const float v = f[i] * scale[i];
        y[i] = q16(v > 0.0f ? v : 0.0f, ys);
      }
      return;
    case YK_CONV16_ACT_LEAKY_RELU:
      for (int i = 0; i < n; i++) {
        const float v = f[i] * scale[i];
        y[i] = q16(v >= 0.0f ? v : alpha * v, ys);
      }
      return;
    case YK_CONV16_ACT_SIGMOID:
      for (int i = 0; i < n; i++) y[i] = q16(1.0f / one_plus_exp_neg(f[i] * scale[i]), ys);
      return;
    case YK_CONV16_ACT_SILU:
      for (int i = 0; i < n; i++) {
        const float v = f[i] * scale[i];
        /* below -87 the clamped sigmoid would leave v * 1.6e-38 (up to -5 at -3e38); SiLU is -0 there */
        const float a = v / one_plus_exp_neg(v);
        y[i] = q16(v > -87.0f ? a : 0.0f, ys);
      }
      return;
    default:
      for (int i = 0; i < n; i++) y[i] = q16(f[i] * scale[i], ys);
      return;
  }
}
