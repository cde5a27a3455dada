/* binary_i8_avx2.c — QDQ binary op, 16 per step, bit-exact with the scalar one (same float
 * ops in the same order, true division; no FMA: C11 mode keeps -ffp-contract=off). */
#include "broadcast_rows.h"
#include "yk_avx2_inline.h"
#include "yk_variants.h"

#define FLAT_LOOP(VOP)                                                              \
  for (; i + 16 <= n; i += 16) {                                                    \
    __m256 a0 = _mm256_mul_ps(yk_avx2_load8_dq(a + i, vza), vsa);                   \
    __m256 a1 = _mm256_mul_ps(yk_avx2_load8_dq(a + i + 8, vza), vsa);               \
    __m256 b0 = _mm256_mul_ps(yk_avx2_load8_dq(b + i, vzb), vsb);                   \
    __m256 b1 = _mm256_mul_ps(yk_avx2_load8_dq(b + i + 8, vzb), vsb);               \
    __m256i r0 = yk_avx2_quant_i32(_mm256_div_ps(VOP(a0, b0), vsy), vzy);           \
    __m256i r1 = yk_avx2_quant_i32(_mm256_div_ps(VOP(a1, b1), vsy), vzy);           \
    _mm_storeu_si128((__m128i *)(void *)(y + i), yk_avx2_pack16(r0, r1));           \
  }

/* n elements with the vectors of yk_binary_i8_flat__avx2 set up once by the caller. */
static inline void flat_avx2(int kind, const int8_t *a, yk_qparams qa, const int8_t *b, yk_qparams qb, int8_t *y,
                             yk_qparams qy, size_t n) {
  const __m256 vsa = _mm256_set1_ps(qa.scale), vsb = _mm256_set1_ps(qb.scale);
  const __m256 vsy = _mm256_set1_ps(qy.scale);
  const __m256i vza = _mm256_set1_epi32(qa.zero_point), vzb = _mm256_set1_epi32(qb.zero_point);
  const __m256i vzy = _mm256_set1_epi32(qy.zero_point);
  size_t i = 0;
  switch (kind) {
    case YK_BIN_SUB: FLAT_LOOP(_mm256_sub_ps) break;
    case YK_BIN_MUL: FLAT_LOOP(_mm256_mul_ps) break;
    case YK_BIN_DIV: FLAT_LOOP(_mm256_div_ps) break;
    default: FLAT_LOOP(_mm256_add_ps) break;
  }
  if (i < n) yk_binary_i8_flat__scalar(kind, a + i, qa, b + i, qb, y + i, qy, n - i);
}

void yk_binary_i8_flat__avx2(int kind, const int8_t *a, yk_qparams qa, const int8_t *b,
                             yk_qparams qb, int8_t *y, yk_qparams qy, size_t n) {
  flat_avx2(kind, a, qa, b, qb, y, qy, n);
}

/* Inlined per pixel: the broadcasts hoist out of the pixel loop. */
void yk_binary_i8_pixels__avx2(int kind, const int8_t *a, size_t as, yk_qparams qa, const int8_t *b, size_t bs,
                               yk_qparams qb, int8_t *y, size_t ys, yk_qparams qy, size_t pixels, size_t c) {
  for (size_t p = 0; p < pixels; p++) flat_avx2(kind, a + p * as, qa, b + p * bs, qb, y + p * ys, qy, c);
}

void yk_binary_i8__avx2(int kind, const int8_t *a, const yk_shape *sa, yk_qparams qa,
                        const int8_t *b, const yk_shape *sb, yk_qparams qb, int8_t *y,
                        const yk_shape *sy, yk_qparams qy) {
  yk_bcast bc;
  yk_bcast_init(&bc, sa, sb, sy);
  const int last = bc.rank - 1;
  if (bc.total > 0 && (bc.sa[last] != 1 || bc.sb[last] != 1)) {
    /* Rows broadcast along their length: not the hot case; the scalar walk is exact. */
    yk_binary_i8__scalar(kind, a, sa, qa, b, sb, qb, y, sy, qy);
    return;
  }
  for (yk_bcast_rows w = yk_bcast_rows_begin(&bc); w.r < w.rows; yk_bcast_rows_next(&bc, &w))
    yk_binary_i8_flat__avx2(kind, a + w.oa, qa, b + w.ob, qb, y + w.r * w.n, qy, (size_t)w.n);
}
