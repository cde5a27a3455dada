/* softmax_f32.c — dispatch for yk_softmax_f32: the widest variant the yk_isa has. */
#include "yk_variants.h"

void yk_softmax_f32(const yk_isa *isa, const float *x, float *y, size_t outer, size_t axis_len,
                    size_t inner) {
#if YK_ARCH_X86_64
  if (isa && isa->avx512) {
    yk_softmax_f32__avx512(x, y, outer, axis_len, inner);
    return;
  }
  if (isa && isa->avx2) {
    yk_softmax_f32__avx2(x, y, outer, axis_len, inner);
    return;
  }
#endif
  (void)isa;
  yk_softmax_f32__scalar(x, y, outer, axis_len, inner);
}
