/* binary_i8.c — yk_binary_i8 and yk_binary_i8_pixels: the variants yk_isa_select chose
 * (include/variants/binary.inc). */
#include "yk_variants.h"

void yk_binary_i8(const yk_isa *isa, int kind, const int8_t *a, const yk_shape *sa,
                  yk_qparams qa, const int8_t *b, const yk_shape *sb, yk_qparams qb, int8_t *y,
                  const yk_shape *sy, yk_qparams qy) {
  YK_PICK(isa, binary_i8)(kind, a, sa, qa, b, sb, qb, y, sy, qy);
}

void yk_binary_i8_pixels(const yk_isa *isa, int kind, const int8_t *a, size_t as, yk_qparams qa, const int8_t *b,
                         size_t bs, yk_qparams qb, int8_t *y, size_t ys, yk_qparams qy, size_t pixels, size_t c) {
  YK_PICK(isa, binary_i8_pixels)(kind, a, as, qa, b, bs, qb, y, ys, qy, pixels, c);
}

/* scalar only: its rows are written for the compiler to vectorise (binary_f32_scalar.c) */
void yk_binary_f32(const yk_isa *isa, int kind, const float *a, const yk_shape *sa,
                   const float *b, const yk_shape *sb, float *y, const yk_shape *sy) {
  YK_PICK(isa, binary_f32)(kind, a, sa, b, sb, y, sy);
}

void yk_add_i8_fixed_pixels(const yk_isa *isa, const int8_t *a, size_t as, const int8_t *b, size_t bs, int8_t *y,
                            size_t ys, size_t pixels, size_t c, const yk_add_fixed *p) {
  YK_PICK(isa, add_i8_fixed_pixels)(a, as, b, bs, y, ys, pixels, c, p);
}
