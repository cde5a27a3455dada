/* binary_f32.c — dispatch for yk_binary_f32 (scalar only: its rows are written for the
 * compiler to vectorise, see binary_f32_scalar.c). */
#include "yk_variants.h"

void yk_binary_f32(const yk_isa *isa, int kind, const float *a, const yk_shape *sa,
                   const float *b, const yk_shape *sb, float *y, const yk_shape *sy) {
  (void)isa;
  yk_binary_f32__scalar(kind, a, sa, b, sb, y, sy);
}
