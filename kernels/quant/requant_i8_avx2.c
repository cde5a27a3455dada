/* requant_i8_avx2.c — int8 requantization, 16 per step (in place allowed). */
#include "yk_avx2_inline.h"
#include "yk_variants.h"

void yk_requant_i8__avx2(const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy, size_t n) {
  const __m256 vs = _mm256_set1_ps(qx.scale / qy.scale);
  const __m256i vzx = _mm256_set1_epi32(qx.zero_point);
  const __m256i vzy = _mm256_set1_epi32(qy.zero_point);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i a = yk_avx2_quant_i32(_mm256_mul_ps(yk_avx2_load8_dq(x + i, vzx), vs), vzy);
    __m256i b = yk_avx2_quant_i32(_mm256_mul_ps(yk_avx2_load8_dq(x + i + 8, vzx), vs), vzy);
    _mm_storeu_si128((__m128i *)(void *)(y + i), yk_avx2_pack16(a, b));
  }
  if (i < n) yk_requant_i8__scalar(x + i, qx, y + i, qy, n - i);
}
