/* add_i8_fixed_scalar.c — reference fixed-point int8 Add:
 * yk_add_fixed1 (yk_inline.h) on every element; bias holds the zero points and the half for
 * rounding (yk_add_fixed_params). */
#include "yk_inline.h"
#include "yk_variants.h"

void yk_add_i8_fixed_pixels__scalar(const int8_t *a, size_t as, const int8_t *b, size_t bs, int8_t *y, size_t ys,
                                    size_t pixels, size_t c, const yk_add_fixed *p) {
  for (size_t px = 0; px < pixels; px++)
    for (size_t i = 0; i < c; i++) y[px * ys + i] = yk_add_fixed1(a[px * as + i], b[px * bs + i], p);
}
