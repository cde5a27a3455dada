/* matmul_f32.c — dispatch for yk_matmul_f32: the widest variant the yk_isa has. */
#include "yk_variants.h"

void yk_matmul_f32(const yk_isa *isa, const float *a, const float *b, float *y, size_t batch,
                   size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K, size_t N) {
#if YK_ARCH_X86_64
  if (isa && isa->avx512) {
    yk_matmul_f32__avx512(a, b, y, batch, a_batch_stride, b_batch_stride, M, K, N);
    return;
  }
  if (isa && isa->avx2) {
    yk_matmul_f32__avx2(a, b, y, batch, a_batch_stride, b_batch_stride, M, K, N);
    return;
  }
#endif
  (void)isa;
  yk_matmul_f32__scalar(a, b, y, batch, a_batch_stride, b_batch_stride, M, K, N);
}
