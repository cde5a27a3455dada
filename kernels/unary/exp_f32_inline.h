/*
 * exp_f32_inline.h — the one float exp (and sigmoid) of the float kernels, as a scalar
 * reference whose every step is a single IEEE operation (fmaf, +, *, /, bit ops), so the SIMD
 * variants (_avx2.c, _avx512.c) can repeat the same sequence lane by lane and agree bit for bit.
 * libm's expf is deliberately not used: its result differs between libms and cannot be
 * reproduced in SIMD.
 *
 * Shared core (|r| <= ln2/2 after a Cody-Waite reduction x = n*ln2 + r):
 *   t  = fmaf(x, log2e, M)            (M = 1.5*2^23 + k: t's low bits hold n + k, n rounded
 *                                      half-even; k is an exponent offset, see below)
 *   nf = t - M
 *   r  = fmaf(nf, -ln2_hi, x); r = fmaf(nf, -ln2_lo, r)
 *   p  = degree-6 polynomial in r, Horner with fmaf, p(0) = 1 (relative minimax fit,
 *        max error ~1e-7 evaluated in float)
 * yk_exp_neg_f32_1(x), x <= 0 (softmax's x - max, sigmoid's -|x|), the hot one:
 *   x = max(x, -104) (NaN -> -104), k = 25, result = bits(p) + ((n + 25) << 23), times 2^-25.
 *   n + 25 >= -125 keeps the first product normal (p >= 0.7) and exact; the one rounding of
 *   the multiply by 2^-25 gives correctly rounded denormals, and 0 below about -103.9.
 *   Arguments > 0 are outside the contract (finite garbage up to x ~ 70).
 * yk_exp_f32_1(x), any x (the Exp operator):
 *   x = min(max(x, -104), 88.37) (exp(x > 88.37) returns ~2.4e38 instead of inf), k = 0,
 *   result = (p * 2^n1) * 2^n2 with n1 = floor((n + 150) / 2) - 75, n2 = n - n1, both factors
 *   built from exponent bits (again exact, then one rounding).
 * The tests (tests/kernels/test_kernels_float_simd.c) measure the error against double exp.
 *
 * sigmoid(x): e = exp_neg(-|x|); d = 1 + e; y = (x < 0 ? e : 1) / d — exp never overflows,
 * and the negative side keeps full relative accuracy until the result is denormal.
 */
#ifndef YOLORT_EXP_F32_INLINE_H
#define YOLORT_EXP_F32_INLINE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define YK_EXP_LO (-104.0f)
#define YK_EXP_HI 88.37f
#define YK_EXP_LOG2E 0x1.715476p+0f
#define YK_EXP_MAGIC 12582912.0f /* 1.5 * 2^23 */
#define YK_EXP_MAGIC_BITS 0x4B400000u
#define YK_EXP_NEG_MAGIC 12582937.0f /* 1.5 * 2^23 + 25 */
#define YK_EXP_NEG_SCALE 0x1p-25f
#define YK_EXP_NLN2_HI (-0x1.62e4p-1f) /* -(ln2 high part, 15 significant bits) */
#define YK_EXP_NLN2_LO (-0x1.7f7d1cp-20f)
#define YK_EXP_C6 0x1.6ae72ep-10f
#define YK_EXP_C5 0x1.126782p-7f
#define YK_EXP_C4 0x1.555822p-5f
#define YK_EXP_C3 0x1.55541ap-3f
#define YK_EXP_C2 0x1.fffffcp-2f

static inline uint32_t yk_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static inline float yk_bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* r -> exp(r) for |r| <= ln2/2 (+ rounding slack) */
static inline float yk_exp_poly_f32_1(float r) {
  float p = fmaf(YK_EXP_C6, r, YK_EXP_C5);
  p = fmaf(p, r, YK_EXP_C4);
  p = fmaf(p, r, YK_EXP_C3);
  p = fmaf(p, r, YK_EXP_C2);
  p = fmaf(p, r, 1.0f);
  return fmaf(p, r, 1.0f);
}

static inline float yk_exp_neg_f32_1(float x) {
  x = x > YK_EXP_LO ? x : YK_EXP_LO; /* _mm*_max_ps(x, LO) */
  const float t = fmaf(x, YK_EXP_LOG2E, YK_EXP_NEG_MAGIC);
  const float nf = t - YK_EXP_NEG_MAGIC;
  float r = fmaf(nf, YK_EXP_NLN2_HI, x);
  r = fmaf(nf, YK_EXP_NLN2_LO, r);
  const float p = yk_exp_poly_f32_1(r);
  return yk_bits_f32(yk_f32_bits(p) + (yk_f32_bits(t) << 23)) * YK_EXP_NEG_SCALE;
}

static inline float yk_exp_f32_1(float x) {
  x = x > YK_EXP_LO ? x : YK_EXP_LO; /* _mm*_max_ps(x, LO) */
  x = x < YK_EXP_HI ? x : YK_EXP_HI; /* _mm*_min_ps(x, HI) */
  const float t = fmaf(x, YK_EXP_LOG2E, YK_EXP_MAGIC);
  const float nf = t - YK_EXP_MAGIC;
  float r = fmaf(nf, YK_EXP_NLN2_HI, x);
  r = fmaf(nf, YK_EXP_NLN2_LO, r);
  const float p = yk_exp_poly_f32_1(r);
  /* unsigned, wrapping: nb = n + 150 in [0, 277], h = nb / 2 */
  const uint32_t nb = yk_f32_bits(t) - (YK_EXP_MAGIC_BITS - 150u);
  const uint32_t h = nb >> 1;
  const float p1 = yk_bits_f32(yk_f32_bits(p) + ((h - 75u) << 23)); /* p * 2^n1 */
  return p1 * yk_bits_f32((nb - h + 52u) << 23);                    /* * 2^(n - n1) */
}

static inline float yk_sigmoid_f32_1(float x) {
  const float e = yk_exp_neg_f32_1(-fabsf(x));
  const float d = 1.0f + e;
  return (x < 0.0f ? e : 1.0f) / d;
}

#endif /* YOLORT_EXP_F32_INLINE_H */
