/* unary_f32.c — dispatch for yk_unary_f32: the widest variant the yk_isa has. */
#include "yk_variants.h"

int yk_unary_f32(const yk_isa *isa, int kind, float alpha, const float *x, float *y, size_t n) {
  if (!yk_unary_kind_valid(kind)) return -1;
#if YK_ARCH_X86_64
  if (isa && isa->avx512) {
    yk_unary_f32__avx512(kind, alpha, x, y, n);
    return 0;
  }
  if (isa && isa->avx2) {
    yk_unary_f32__avx2(kind, alpha, x, y, n);
    return 0;
  }
#endif
  (void)isa;
  yk_unary_f32__scalar(kind, alpha, x, y, n);
  return 0;
}
