/* qmatmul_i8.c — dispatch for yk_qmatmul_i8: AVX-512 VNNI, else AVX2, else the scalar reference
 * (which compilers vectorise as int16 products: NEON's smlal on ARM). */
#include "yk_variants.h"

void yk_qmatmul_i8(const yk_isa *isa, const int8_t *a, const int8_t *b, int8_t *y, size_t batch,
                   const yk_qmatmul_strides *st, size_t M, size_t K, size_t N, const yk_qmatmul_params *p) {
#if YK_ARCH_X86_64
  if (isa && isa->avx512 && isa->avx512vnni) {
    yk_qmatmul_i8__avx512vnni(a, b, y, batch, st, M, K, N, p);
    return;
  }
  if (isa && isa->avx2) {
    yk_qmatmul_i8__avx2(a, b, y, batch, st, M, K, N, p);
    return;
  }
#endif
  (void)isa;
  yk_qmatmul_i8__scalar(a, b, y, batch, st, M, K, N, p);
}
