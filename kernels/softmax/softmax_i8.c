/* softmax_i8.c — dispatch for yk_softmax_i8: tables of a row's codes (AVX-512 VBMI), else the
 * fused AVX-512 rows, else the float chain on the widest float kernels the yk_isa has (the same
 * bytes every way). */
#include "yk_variants.h"

void yk_softmax_i8(const yk_isa *isa, const int8_t *x, int8_t *y, size_t rows, size_t len,
                   const yk_softmax_i8_params *p) {
#if YK_ARCH_X86_64
  if (isa && isa->avx512 && isa->avx512vbmi) {
    yk_softmax_i8__avx512vbmi(x, y, rows, len, p);
    return;
  }
  if (isa && isa->avx512) {
    yk_softmax_i8__avx512(x, y, rows, len, p);
    return;
  }
#endif
  yk_softmax_i8_chain(isa, x, y, rows, len, p);
}
