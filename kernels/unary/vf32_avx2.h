/* vf32_avx2.h — the 8-lane float vector of the ISA templates (exp_f32_simd.h, unary_f32_simd.h):
 * each YK_VF_* names the AVX2+FMA instruction the template's operation compiles to (the same ones
 * the hand-written twins used). One vector ISA per file: include from *_avx2.c only. */
#ifndef YOLORT_VF32_AVX2_H
#define YOLORT_VF32_AVX2_H
#ifdef YK_VF
#error "one vf32 ISA header per translation unit"
#endif
#include <immintrin.h>
#include <string.h>

#define YK_VF __m256
#define YK_VI __m256i
#define YK_VF_LANES 8
#define YK_VF_FN(name) name##_avx2
#define YK_VF_SET1 _mm256_set1_ps
#define YK_VF_ZERO _mm256_setzero_ps
#define YK_VF_LOAD _mm256_loadu_ps
#define YK_VF_STORE _mm256_storeu_ps
#define YK_VF_ADD _mm256_add_ps
#define YK_VF_SUB _mm256_sub_ps
#define YK_VF_MUL _mm256_mul_ps
#define YK_VF_DIV _mm256_div_ps
#define YK_VF_MAX _mm256_max_ps
#define YK_VF_MIN _mm256_min_ps
#define YK_VF_FMADD _mm256_fmadd_ps
#define YK_VF_AS_VI _mm256_castps_si256
#define YK_VI_AS_VF _mm256_castsi256_ps
#define YK_VI_SET1 _mm256_set1_epi32
#define YK_VI_ADD _mm256_add_epi32
#define YK_VI_SUB _mm256_sub_epi32
#define YK_VI_SLLI _mm256_slli_epi32
#define YK_VI_SRLI _mm256_srli_epi32
/* -|x| (sign bit set) */
#define YK_VF_NEG_ABS(x) _mm256_or_ps((x), _mm256_set1_ps(-0.0f))
/* x < 0 (ordered) ? b : a, and x >= 0 ? b : a */
#define YK_VF_IF_LT0(x, a, b) _mm256_blendv_ps((a), (b), _mm256_cmp_ps((x), _mm256_setzero_ps(), _CMP_LT_OQ))
#define YK_VF_IF_GE0(x, a, b) _mm256_blendv_ps((a), (b), _mm256_cmp_ps((x), _mm256_setzero_ps(), _CMP_GE_OQ))

/* The last n < 8 values: through a zero-padded buffer (AVX2 has no masked float loads without
 * faults on the bytes past them). */
static inline __m256 yk_vf_load_part_avx2(const float *x, size_t n) {
  float buf[8] = {0};
  memcpy(buf, x, n * sizeof(float));
  return _mm256_loadu_ps(buf);
}
static inline void yk_vf_store_part_avx2(float *y, __m256 v, size_t n) {
  float buf[8];
  _mm256_storeu_ps(buf, v);
  memcpy(y, buf, n * sizeof(float));
}
#define YK_VF_LOAD_PART yk_vf_load_part_avx2
#define YK_VF_STORE_PART yk_vf_store_part_avx2
/* The first n <= 8 lanes as a mask (vmaskmovps: no fault on the lanes it leaves out). */
#define YK_VF_MASK __m256i
#define YK_VF_MASK_FIRST(n) _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define YK_VF_MASKZ_LOAD(m, x) _mm256_maskload_ps((x), (m))
#define YK_VF_MASK_STORE(y, m, v) _mm256_maskstore_ps((y), (m), (v))

#endif /* YOLORT_VF32_AVX2_H */
