/* matmul_f32_avx512.c — batched float MatMul, bit-exact with yk_matmul_f32__scalar: each
 * output lane accumulates one fmadd per k in increasing k, starting from 0. Register tile:
 * 8 rows x 48 columns (24 zmm accumulators), then 8 x 32, 8 x 16 (masked at the end).
 * Row tails rerun the last valid row (its results are not stored) so there is one kernel. */
#include <immintrin.h>

#include "yk_variants.h"

#define MR 8

static inline void rows_ptrs(const float *a, size_t K, size_t mr, const float *ar[MR]) {
  for (size_t r = 0; r < MR; r++) ar[r] = a + (r < mr ? r : mr - 1) * K;
}

/* MR x (16 * NV) tile, NV a literal at every call so the accumulators live in registers */
static inline __attribute__((always_inline)) void tile(const float *a, size_t K, const float *b,
                                                       size_t N, float *y, size_t mr,
                                                       const int NV) {
  const float *ar[MR];
  rows_ptrs(a, K, mr, ar);
  __m512 c[MR][3];
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < NV; v++) c[r][v] = _mm512_setzero_ps();
  for (size_t k = 0; k < K; k++) {
    __m512 bv[3];
    for (int v = 0; v < NV; v++) bv[v] = _mm512_loadu_ps(b + k * N + 16 * v);
    for (int r = 0; r < MR; r++) {
      const __m512 av = _mm512_set1_ps(ar[r][k]);
      for (int v = 0; v < NV; v++) c[r][v] = _mm512_fmadd_ps(av, bv[v], c[r][v]);
    }
  }
  for (size_t r = 0; r < mr; r++)
    for (int v = 0; v < NV; v++) _mm512_storeu_ps(y + r * N + 16 * v, c[r][v]);
}

static inline void tile_8x16(const float *a, size_t K, const float *b, size_t N, float *y,
                             size_t mr, __mmask16 m) {
  const float *ar[MR];
  rows_ptrs(a, K, mr, ar);
  __m512 c0[MR];
  for (int r = 0; r < MR; r++) c0[r] = _mm512_setzero_ps();
  for (size_t k = 0; k < K; k++) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m, b + k * N);
    for (int r = 0; r < MR; r++) c0[r] = _mm512_fmadd_ps(_mm512_set1_ps(ar[r][k]), b0, c0[r]);
  }
  for (size_t r = 0; r < mr; r++) _mm512_mask_storeu_ps(y + r * N, m, c0[r]);
}

void yk_matmul_f32__avx512(const float *a, const float *b, float *y, size_t batch,
                           size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K,
                           size_t N) {
  if (M == 0 || N == 0) return;
  for (size_t bt = 0; bt < batch; bt++) {
    const float *ab = a + bt * a_batch_stride;
    const float *bb = b + bt * b_batch_stride;
    float *yb = y + bt * M * N;
    /* column panels outside, row blocks inside: a panel of b (K x 48) is fetched from
     * memory once and then reused from cache by every row block */
#define ROW_BLOCKS(CALL)                       \
  for (size_t i = 0; i < M; i += MR) {         \
    const size_t mr = M - i < MR ? M - i : MR; \
    const float *ai = ab + i * K;              \
    float *yi = yb + i * N;                    \
    CALL;                                      \
  }
    size_t j = 0;
    for (; j + 48 <= N; j += 48) ROW_BLOCKS(tile(ai, K, bb + j, N, yi + j, mr, 3))
    for (; j + 32 <= N; j += 32) ROW_BLOCKS(tile(ai, K, bb + j, N, yi + j, mr, 2))
    for (; j < N; j += 16) {
      const size_t left = N - j;
      const __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
      ROW_BLOCKS(tile_8x16(ai, K, bb + j, N, yi + j, mr, m))
    }
#undef ROW_BLOCKS
  }
}
