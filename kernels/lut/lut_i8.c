/* lut_i8.c — yk_lut_i8, yk_lut_i8_pixels and yk_lut_i8_f32: the variants yk_isa_select chose
 * (include/variants/lut.inc). */
#include "yk_variants.h"

void yk_lut_i8(const yk_isa *isa, const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]) {
  YK_PICK(isa, lut_i8)(x, y, n, lut);
}

void yk_lut_i8_pixels(const yk_isa *isa, const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                      const int8_t lut[256]) {
  YK_PICK(isa, lut_i8_pixels)(x, xs, y, ys, pixels, c, lut);
}

void yk_lut_i8_f32(const yk_isa *isa, const int8_t *x, float *y, size_t n, const float lut[256]) {
  YK_PICK(isa, lut_i8_f32)(x, y, n, lut);
}
