/*
 * exp_f32_avx512_inline.h — AVX-512 exp, exp_neg and sigmoid: lane for lane the operation
 * sequence of exp_f32_inline.h, hence bit-exact with yk_exp_f32_1 / yk_exp_neg_f32_1 /
 * yk_sigmoid_f32_1.
 * Include only from files compiled with AVX-512 F (+FMA) flags (*_avx512.c).
 */
#ifndef YOLORT_EXP_F32_AVX512_INLINE_H
#define YOLORT_EXP_F32_AVX512_INLINE_H

#include <immintrin.h>

#include "exp_f32_inline.h"

static inline __m512 yk_exp_poly_f32_avx512(__m512 r) {
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(YK_EXP_C6), r, _mm512_set1_ps(YK_EXP_C5));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(YK_EXP_C4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(YK_EXP_C3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(YK_EXP_C2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
}

/* x <= 0; see yk_exp_neg_f32_1 */
static inline __m512 yk_exp_neg_f32_avx512(__m512 x) {
  /* maxps returns the second operand when unordered: same as the scalar ternary */
  x = _mm512_max_ps(x, _mm512_set1_ps(YK_EXP_LO));
  const __m512 magic = _mm512_set1_ps(YK_EXP_NEG_MAGIC);
  const __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(YK_EXP_LOG2E), magic);
  const __m512 nf = _mm512_sub_ps(t, magic);
  __m512 r = _mm512_fmadd_ps(nf, _mm512_set1_ps(YK_EXP_NLN2_HI), x);
  r = _mm512_fmadd_ps(nf, _mm512_set1_ps(YK_EXP_NLN2_LO), r);
  const __m512 p = yk_exp_poly_f32_avx512(r);
  const __m512i sc = _mm512_slli_epi32(_mm512_castps_si512(t), 23);
  return _mm512_mul_ps(_mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), sc)),
                       _mm512_set1_ps(YK_EXP_NEG_SCALE));
}

/* any x; see yk_exp_f32_1 */
static inline __m512 yk_exp_f32_avx512(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(YK_EXP_LO));
  x = _mm512_min_ps(x, _mm512_set1_ps(YK_EXP_HI));
  const __m512 magic = _mm512_set1_ps(YK_EXP_MAGIC);
  const __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(YK_EXP_LOG2E), magic);
  const __m512 nf = _mm512_sub_ps(t, magic);
  __m512 r = _mm512_fmadd_ps(nf, _mm512_set1_ps(YK_EXP_NLN2_HI), x);
  r = _mm512_fmadd_ps(nf, _mm512_set1_ps(YK_EXP_NLN2_LO), r);
  const __m512 p = yk_exp_poly_f32_avx512(r);
  const __m512i nb =
      _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_set1_epi32((int)(YK_EXP_MAGIC_BITS - 150u)));
  const __m512i h = _mm512_srli_epi32(nb, 1);
  const __m512i e1 = _mm512_slli_epi32(_mm512_sub_epi32(h, _mm512_set1_epi32(75)), 23);
  const __m512i e2 =
      _mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(nb, h), _mm512_set1_epi32(52)), 23);
  const __m512 p1 = _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), e1));
  return _mm512_mul_ps(p1, _mm512_castsi512_ps(e2));
}

static inline __m512 yk_sigmoid_f32_avx512(__m512 x) {
  const __m512 nabs = _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u)));
  const __m512 e = yk_exp_neg_f32_avx512(nabs);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 d = _mm512_add_ps(one, e);
  const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  return _mm512_div_ps(_mm512_mask_blend_ps(neg, one, e), d);
}

#endif /* YOLORT_EXP_F32_AVX512_INLINE_H */
