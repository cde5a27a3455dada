/* matmul_f32_scalar.c — batched float MatMul, the reference of the SIMD variants. Contract
 * (what makes them bit-exact): y[i][j] = fmaf(a[i][K-1], b[K-1][j], ... fmaf(a[i][0], b[0][j],
 * 0)), i.e. one fused multiply-add per k in increasing k. Written i-k-j so the inner loop
 * streams rows of b and y; the SIMD variants vectorise over j and block over i and j. */
#include <math.h>
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
      for (size_t j = 0; j < N; j++) yr[j] = 0.0f;
      for (size_t k = 0; k < K; k++) {
        const float av = ab[i * K + k];
        const float *br = bb + k * N;
        for (size_t j = 0; j < N; j++) yr[j] = fmaf(av, br[j], yr[j]);
      }
    }
  }
}
