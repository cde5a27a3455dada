/*
 * yk_inline.h — internal scalar helpers that define the int8 rounding every variant must match.
 */
#ifndef YOLORT_YK_INLINE_H
#define YOLORT_YK_INLINE_H

#include "yk.h"

/* Beyond +-2^22 every int8 result saturates anyway, and yk_round_half_even is exact below. */
#define YK_QCLAMP 4194304.0f

/* Clamp to [-2^22, 2^22]; NaN goes to -2^22. Written as the exact scalar twin of
 * _mm256_min_ps(_mm256_max_ps(v, lo), hi) (maxps returns its 2nd operand on NaN). */
static inline float yk_qclamp(float v) {
  v = v > -YK_QCLAMP ? v : -YK_QCLAMP;
  v = v < YK_QCLAMP ? v : YK_QCLAMP;
  return v;
}

/* v is already in output units (x / scale): round half even, add zp, saturate. */
static inline int8_t yk_quant_val(float v, int32_t zp) {
  return yk_sat_i8(yk_round_half_even(yk_qclamp(v)) + zp);
}

static inline int8_t yk_quantize1(float x, float scale, int32_t zp) {
  return yk_quant_val(x / scale, zp);
}

static inline float yk_dequantize1(int8_t q, float scale, int32_t zp) {
  return (float)((int32_t)q - zp) * scale;
}

/* Float op of a yk_binary_kind (YK_BIN_ADD is the default case). */
static inline float yk_binop_f32(int kind, float a, float b) {
  switch (kind) {
    case YK_BIN_SUB: return a - b;
    case YK_BIN_MUL: return a * b;
    case YK_BIN_DIV: return a / b;
    default: return a + b;
  }
}

/* One element of the fixed-point int8 Add (yk_add_fixed in yk.h). */
static inline int8_t yk_add_fixed1(int8_t a, int8_t b, const yk_add_fixed *p) {
  const int32_t s = (int32_t)a * p->ma + (int32_t)b * p->mb + p->bias;
  int32_t r = s >> p->shift;
  if (!(s & ((1 << p->shift) - 1))) r -= (r ^ p->zy) & 1;
  return yk_sat_i8(r);
}

#endif /* YOLORT_YK_INLINE_H */
