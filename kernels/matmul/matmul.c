/* matmul.c — yk_matmul_f32 and yk_qmatmul_i8: the variants yk_isa_select chose
 * (include/variants/matmul.inc). */
#include "yk_variants.h"

void yk_matmul_f32(const yk_isa *isa, const float *a, const float *b, float *y, size_t batch,
                   size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K, size_t N) {
  YK_PICK(isa, matmul_f32)(a, b, y, batch, a_batch_stride, b_batch_stride, M, K, N);
}

void yk_qmatmul_i8(const yk_isa *isa, const int8_t *a, const int8_t *b, int8_t *y, size_t batch,
                   const yk_qmatmul_strides *st, size_t M, size_t K, size_t N, const yk_qmatmul_params *p) {
  YK_PICK(isa, qmatmul_i8)(a, b, y, batch, st, M, K, N, p);
}
