/* matmul_f32_avx2.c — batched float MatMul with AVX2+FMA, bit-exact with
 * yk_matmul_f32__scalar: each output lane accumulates one fmadd per k in increasing k,
 * starting from 0. Register tile: 6 rows x 16 columns (12 ymm accumulators), then 6 x 8
 * column chunks (maskload/maskstore at the end). Row tails rerun the last valid row (its
 * results are not stored) so there is one kernel. */
#include <immintrin.h>

#include "yk_variants.h"

#define MR 6

static const int32_t k_lane_mask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

static inline void rows_ptrs(const float *a, size_t K, size_t mr, const float *ar[MR]) {
  for (size_t r = 0; r < MR; r++) ar[r] = a + (r < mr ? r : mr - 1) * K;
}

static inline void tile_6x16(const float *a, size_t K, const float *b, size_t N, float *y,
                             size_t mr) {
  const float *ar[MR];
  rows_ptrs(a, K, mr, ar);
  __m256 c0[MR], c1[MR];
  for (int r = 0; r < MR; r++) c0[r] = c1[r] = _mm256_setzero_ps();
  for (size_t k = 0; k < K; k++) {
    const __m256 b0 = _mm256_loadu_ps(b + k * N), b1 = _mm256_loadu_ps(b + k * N + 8);
    for (int r = 0; r < MR; r++) {
      const __m256 av = _mm256_broadcast_ss(ar[r] + k);
      c0[r] = _mm256_fmadd_ps(av, b0, c0[r]);
      c1[r] = _mm256_fmadd_ps(av, b1, c1[r]);
    }
  }
  for (size_t r = 0; r < mr; r++) {
    _mm256_storeu_ps(y + r * N, c0[r]);
    _mm256_storeu_ps(y + r * N + 8, c1[r]);
  }
}

static inline void tile_6x8(const float *a, size_t K, const float *b, size_t N, float *y, size_t mr,
                            __m256i m) {
  const float *ar[MR];
  rows_ptrs(a, K, mr, ar);
  __m256 c0[MR];
  for (int r = 0; r < MR; r++) c0[r] = _mm256_setzero_ps();
  for (size_t k = 0; k < K; k++) {
    const __m256 b0 = _mm256_maskload_ps(b + k * N, m);
    for (int r = 0; r < MR; r++) c0[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(ar[r] + k), b0, c0[r]);
  }
  for (size_t r = 0; r < mr; r++) _mm256_maskstore_ps(y + r * N, m, c0[r]);
}

void yk_matmul_f32__avx2(const float *a, const float *b, float *y, size_t batch,
                         size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K,
                         size_t N) {
  if (M == 0 || N == 0) return;
  for (size_t bt = 0; bt < batch; bt++) {
    const float *ab = a + bt * a_batch_stride;
    const float *bb = b + bt * b_batch_stride;
    float *yb = y + bt * M * N;
    /* column panels outside, row blocks inside: a panel of b (K x 16) is fetched from
     * memory once and then reused from cache by every row block */
    size_t j = 0;
    for (; j + 16 <= N; j += 16)
      for (size_t i = 0; i < M; i += MR)
        tile_6x16(ab + i * K, K, bb + j, N, yb + i * N + j, M - i < MR ? M - i : MR);
    for (; j < N; j += 8) {
      const size_t left = N - j < 8 ? N - j : 8;
      const __m256i m = _mm256_loadu_si256((const __m256i *)(k_lane_mask + 8 - left));
      for (size_t i = 0; i < M; i += MR)
        tile_6x8(ab + i * K, K, bb + j, N, yb + i * N + j, M - i < MR ? M - i : MR, m);
    }
  }
}
