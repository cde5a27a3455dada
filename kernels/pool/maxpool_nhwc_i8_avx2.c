/* maxpool_nhwc_i8_avx2.c — NHWC int8 max pooling, 32 then 16 channels per vector (the template
 * maxpool_nhwc_i8_simd.h). */
#include <immintrin.h>

#define POOL_FN yk_maxpool_nhwc_i8__avx2
#define LD256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST256(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define LD128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST128(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define POOL_STEPS                                                      \
  POOL_STEP(__m256i, 32, _mm256_set1_epi8, _mm256_max_epi8, LD256, ST256) \
  POOL_STEP(__m128i, 16, _mm_set1_epi8, _mm_max_epi8, LD128, ST128)
#include "maxpool_nhwc_i8_simd.h"
