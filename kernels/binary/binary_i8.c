/* binary_i8.c — dispatch for yk_binary_i8. */
#include "yk_variants.h"

void yk_binary_i8(const yk_isa *isa, int kind, const int8_t *a, const yk_shape *sa,
                  yk_qparams qa, const int8_t *b, const yk_shape *sb, yk_qparams qb, int8_t *y,
                  const yk_shape *sy, yk_qparams qy) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_binary_i8__avx2(kind, a, sa, qa, b, sb, qb, y, sy, qy);
    return;
  }
#endif
  (void)isa;
  yk_binary_i8__scalar(kind, a, sa, qa, b, sb, qb, y, sy, qy);
}
