/* qmatmul_i8_avx2.c — int8 MatMul (yk_qmatmul_i8) with AVX2, bit-exact with
 * yk_qmatmul_i8__scalar: vpmaddwd on int16 values with the zero points already subtracted
 * (|x - zp| <= 255, so a pair of products never saturates and every sum is exact), then the
 * conv's output stage (yk_avx2_requant8).
 *
 * b's rows k, k+1 for 16 columns are sign-extended, zb subtracted, and interleaved into int16
 * pairs (unpacklo / unpackhi: ymm 0 holds columns 0-3 and 8-11, ymm 1 columns 4-7 and
 * 12-15; the output's packs per 128-bit lane put them back in order); a's pair
 * (a[k] - za, a[k+1] - za) is one broadcast dword from rows of int16 made once per row block (per
 * block of KC k and of columns when K is larger). An odd
 * K's last pair has a zero second factor. Blocking: MR rows x 16 columns (12 ymm sums); row
 * tails recompute the last valid row (not stored); a column tail goes through 16-byte stack rows. */
#include <immintrin.h>
#include <string.h>

#include "yk_avx2_inline.h"
#include "yk_variants.h"

#define MR YK_QMATMUL_ROWS /* rows per block (6 x 2 ymm sums) */
#define KC 1024 /* k values of a's rows converted to int16 at a time (once per row block up to this K) */

/* 16 bytes of b at p (n valid), sign-extended, zb subtracted. */
static inline __attribute__((always_inline)) __m256i load16(const int8_t *p, size_t n, __m256i zb) {
  __m128i v;
  if (n >= 16) {
    v = _mm_loadu_si128((const __m128i *)(const void *)p);
  } else {
    int8_t t[16] = {0};
    memcpy(t, p, n);
    v = _mm_loadu_si128((const __m128i *)(const void *)t);
  }
  return _mm256_sub_epi16(_mm256_cvtepi8_epi16(v), zb);
}

typedef struct out_stage {
  __m256 scale, hi;
  __m256i zp16;
} out_stage;

/* a - za as int16 for k0 .. k0 + kc of the block's rows, a zero after them (an odd tail's pair). */
static void rows16(const int8_t *const ar[MR], size_t k0, size_t kc, int32_t za, int16_t a16[MR][KC + 2]) {
  for (int r = 0; r < MR; r++) {
    for (size_t k = 0; k < kc; k++) a16[r][k] = (int16_t)(ar[r][k0 + k] - za);
    a16[r][kc] = 0;
  }
}

/* MR rows (ar) x the 16 columns at b (n valid, row stride ldb) into y (row stride ldy), the first
 * mr rows stored.
 * K <= KC: a16 already holds the rows (made once per row block); else made here chunk by chunk. */
static inline __attribute__((always_inline)) void block(const int8_t *const ar[MR], int16_t a16[MR][KC + 2],
                                                        const int8_t *b, size_t ldb, size_t ldy, size_t K, size_t n,
                                                        int32_t za, __m256i zb, const out_stage *o,
                                                        int8_t *y, size_t mr) {
  __m256i acc[MR][2];
  for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (size_t k0 = 0; k0 < K; k0 += KC) {
    const size_t kc = K - k0 < KC ? K - k0 : KC;
    if (K > KC) rows16(ar, k0, kc, za, a16);
    for (size_t k = 0; k < kc; k += 2) {
      const int8_t *p = b + (k0 + k) * ldb;
      const __m256i r0 = load16(p, n, zb);
      const __m256i r1 = k + 1 < kc ? load16(p + ldb, n, zb) : _mm256_setzero_si256();
      const __m256i q0 = _mm256_unpacklo_epi16(r0, r1), q1 = _mm256_unpackhi_epi16(r0, r1);
#pragma GCC unroll 8
      for (int r = 0; r < MR; r++) {
        int32_t pair;
        memcpy(&pair, &a16[r][k], sizeof pair);
        const __m256i av = _mm256_set1_epi32(pair);
        acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(q0, av));
        acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(q1, av));
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; r++) {
    if ((size_t)r >= mr) break;
    const __m256i w = _mm256_adds_epi16(_mm256_packs_epi32(yk_avx2_requant8(acc[r][0], o->scale, o->hi),
                                                           yk_avx2_requant8(acc[r][1], o->scale, o->hi)),
                                        o->zp16);
    const __m128i v = _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    if (n >= 16) {
      _mm_storeu_si128((__m128i *)(void *)(y + (size_t)r * ldy), v);
    } else {
      int8_t t[16];
      _mm_storeu_si128((__m128i *)(void *)t, v);
      memcpy(y + (size_t)r * ldy, t, n);
    }
  }
}

void yk_qmatmul_i8__avx2(const int8_t *a, const int8_t *b, int8_t *y, size_t batch, const yk_qmatmul_strides *st,
                         size_t M, size_t K, size_t N, const yk_qmatmul_params *p) {
  if (M == 0 || N == 0) return;
  const out_stage o = {_mm256_set1_ps(p->scale), _mm256_set1_ps((float)(127 - p->y_zp)),
                       _mm256_set1_epi16((short)p->y_zp)};
  const __m256i zb = _mm256_set1_epi16((short)p->b_zp);
  _Alignas(32) int16_t a16[MR][KC + 2];
  for (size_t bt = 0; bt < batch; bt++) {
    const int8_t *ab = a + bt * st->a_batch, *bb = b + bt * st->b_batch;
    int8_t *yb = y + bt * st->y_batch;
    for (size_t i0 = 0; i0 < M; i0 += MR) {
      const size_t mr = M - i0 < MR ? M - i0 : MR;
      const int8_t *ar[MR];
      for (size_t r = 0; r < MR; r++) ar[r] = ab + (i0 + (r < mr ? r : mr - 1)) * K;
      if (K <= KC) rows16(ar, 0, K, p->a_zp, a16);
      for (size_t j = 0; j < N; j += 16)
        block(ar, a16, bb + j, st->ldb, st->ldy, K, N - j, p->a_zp, zb, &o, yb + i0 * st->ldy + j, mr);
    }
  }
}
