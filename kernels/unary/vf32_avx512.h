/* vf32_avx512.h — the 16-lane float vector of the ISA templates (exp_f32_simd.h,
 * unary_f32_simd.h): each YK_VF_* names the AVX-512 F instruction the template's operation
 * compiles to (the same ones the hand-written twins used). One vector ISA per file: include from
 * *_avx512*.c only. */
#ifndef YOLORT_VF32_AVX512_H
#define YOLORT_VF32_AVX512_H
#ifdef YK_VF
#error "one vf32 ISA header per translation unit"
#endif
#include <immintrin.h>

#define YK_VF __m512
#define YK_VI __m512i
#define YK_VF_LANES 16
#define YK_VF_FN(name) name##_avx512
#define YK_VF_SET1 _mm512_set1_ps
#define YK_VF_ZERO _mm512_setzero_ps
#define YK_VF_LOAD _mm512_loadu_ps
#define YK_VF_STORE _mm512_storeu_ps
#define YK_VF_ADD _mm512_add_ps
#define YK_VF_SUB _mm512_sub_ps
#define YK_VF_MUL _mm512_mul_ps
#define YK_VF_DIV _mm512_div_ps
#define YK_VF_MAX _mm512_max_ps
#define YK_VF_MIN _mm512_min_ps
#define YK_VF_FMADD _mm512_fmadd_ps
#define YK_VF_AS_VI _mm512_castps_si512
#define YK_VI_AS_VF _mm512_castsi512_ps
#define YK_VI_SET1 _mm512_set1_epi32
#define YK_VI_ADD _mm512_add_epi32
#define YK_VI_SUB _mm512_sub_epi32
#define YK_VI_SLLI _mm512_slli_epi32
#define YK_VI_SRLI _mm512_srli_epi32
/* -|x| (sign bit set; integer or: AVX-512 F has no float or) */
#define YK_VF_NEG_ABS(x) \
  _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u)))
/* x < 0 (ordered) ? b : a, and x >= 0 ? b : a */
#define YK_VF_IF_LT0(x, a, b) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((x), _mm512_setzero_ps(), _CMP_LT_OQ), (a), (b))
#define YK_VF_IF_GE0(x, a, b) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((x), _mm512_setzero_ps(), _CMP_GE_OQ), (a), (b))

/* The last n < 16 values: masked loads and stores (no access past them). */
static inline __mmask16 yk_vf_mask_avx512(size_t n) { return (__mmask16)((1u << n) - 1u); }
#define YK_VF_LOAD_PART(x, n) _mm512_maskz_loadu_ps(yk_vf_mask_avx512(n), (x))
#define YK_VF_STORE_PART(y, v, n) _mm512_mask_storeu_ps((y), yk_vf_mask_avx512(n), (v))
/* The first n <= 16 lanes as a mask. */
#define YK_VF_MASK __mmask16
#define YK_VF_MASK_FIRST(n) ((n) >= 16 ? (__mmask16)0xFFFF : yk_vf_mask_avx512(n))
#define YK_VF_MASKZ_LOAD(m, x) _mm512_maskz_loadu_ps((m), (x))
#define YK_VF_MASK_STORE(y, m, v) _mm512_mask_storeu_ps((y), (m), (v))

#endif /* YOLORT_VF32_AVX512_H */
