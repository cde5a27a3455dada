/* matmul_f32_scalar.c — batched float MatMul, i-k-j order so the inner loop streams rows of b
 * and y (vectorisable); each y element still sums over k in order. */
#include <string.h>

#include "yk_variants.h"

void yk_matmul_f32__scalar(const float *a, const float *b, float *y, size_t batch,
                           size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K,
                           size_t N) {
  for (size_t bt = 0; bt < batch; bt++) {
    const float *ab = a + bt * a_batch_stride;
    const float *bb = b + bt * b_batch_stride;
    float *yb = y + bt * M * N;
    for (size_t i = 0; i < M; i++) {
      float *yr = yb + i * N;
      if (N) memset(yr, 0, N * sizeof(float));
      for (size_t k = 0; k < K; k++) {
        const float av = ab[i * K + k];
        const float *br = bb + k * N;
        for (size_t j = 0; j < N; j++) yr[j] += av * br[j];
      }
    }
  }
}

void yk_matmul_f32(const yk_isa *isa, const float *a, const float *b, float *y, size_t batch,
                   size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K, size_t N) {
  (void)isa;
  yk_matmul_f32__scalar(a, b, y, batch, a_batch_stride, b_batch_stride, M, K, N);
}
