/* binary_i8.c — dispatch for yk_binary_i8 and yk_binary_i8_pixels. */
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

void yk_binary_i8_pixels(const yk_isa *isa, int kind, const int8_t *a, size_t as, yk_qparams qa, const int8_t *b,
                         size_t bs, yk_qparams qb, int8_t *y, size_t ys, yk_qparams qy, size_t pixels, size_t c) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_binary_i8_pixels__avx2(kind, a, as, qa, b, bs, qb, y, ys, qy, pixels, c);
    return;
  }
#endif
  (void)isa;
  yk_binary_i8_pixels__scalar(kind, a, as, qa, b, bs, qb, y, ys, qy, pixels, c);
}
