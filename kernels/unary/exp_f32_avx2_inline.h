/*
 * exp_f32_avx2_inline.h — AVX2+FMA exp, exp_neg and sigmoid: lane for lane the operation
 * sequence of exp_f32_inline.h, hence bit-exact with yk_exp_f32_1 / yk_exp_neg_f32_1 /
 * yk_sigmoid_f32_1.
 * Include only from files compiled with -mavx2 -mfma (*_avx2.c).
 */
#ifndef YOLORT_EXP_F32_AVX2_INLINE_H
#define YOLORT_EXP_F32_AVX2_INLINE_H

#include <immintrin.h>

#include "exp_f32_inline.h"

static inline __m256 yk_exp_poly_f32_avx2(__m256 r) {
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(YK_EXP_C6), r, _mm256_set1_ps(YK_EXP_C5));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(YK_EXP_C4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(YK_EXP_C3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(YK_EXP_C2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  return _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
}

/* x <= 0; see yk_exp_neg_f32_1 */
static inline __m256 yk_exp_neg_f32_avx2(__m256 x) {
  /* maxps returns the second operand when unordered: same as the scalar ternary */
  x = _mm256_max_ps(x, _mm256_set1_ps(YK_EXP_LO));
  const __m256 magic = _mm256_set1_ps(YK_EXP_NEG_MAGIC);
  const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(YK_EXP_LOG2E), magic);
  const __m256 nf = _mm256_sub_ps(t, magic);
  __m256 r = _mm256_fmadd_ps(nf, _mm256_set1_ps(YK_EXP_NLN2_HI), x);
  r = _mm256_fmadd_ps(nf, _mm256_set1_ps(YK_EXP_NLN2_LO), r);
  const __m256 p = yk_exp_poly_f32_avx2(r);
  const __m256i sc = _mm256_slli_epi32(_mm256_castps_si256(t), 23);
  return _mm256_mul_ps(_mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), sc)),
                       _mm256_set1_ps(YK_EXP_NEG_SCALE));
}

/* any x; see yk_exp_f32_1 */
static inline __m256 yk_exp_f32_avx2(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(YK_EXP_LO));
  x = _mm256_min_ps(x, _mm256_set1_ps(YK_EXP_HI));
  const __m256 magic = _mm256_set1_ps(YK_EXP_MAGIC);
  const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(YK_EXP_LOG2E), magic);
  const __m256 nf = _mm256_sub_ps(t, magic);
  __m256 r = _mm256_fmadd_ps(nf, _mm256_set1_ps(YK_EXP_NLN2_HI), x);
  r = _mm256_fmadd_ps(nf, _mm256_set1_ps(YK_EXP_NLN2_LO), r);
  const __m256 p = yk_exp_poly_f32_avx2(r);
  const __m256i nb =
      _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32((int)(YK_EXP_MAGIC_BITS - 150u)));
  const __m256i h = _mm256_srli_epi32(nb, 1);
  const __m256i e1 = _mm256_slli_epi32(_mm256_sub_epi32(h, _mm256_set1_epi32(75)), 23);
  const __m256i e2 =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(nb, h), _mm256_set1_epi32(52)), 23);
  const __m256 p1 = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e1));
  return _mm256_mul_ps(p1, _mm256_castsi256_ps(e2));
}

static inline __m256 yk_sigmoid_f32_avx2(__m256 x) {
  const __m256 nabs = _mm256_or_ps(x, _mm256_set1_ps(-0.0f));
  const __m256 e = yk_exp_neg_f32_avx2(nabs);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 d = _mm256_add_ps(one, e);
  const __m256 neg = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
  return _mm256_div_ps(_mm256_blendv_ps(one, e, neg), d);
}

#endif /* YOLORT_EXP_F32_AVX2_INLINE_H */
