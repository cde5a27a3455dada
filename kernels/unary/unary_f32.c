/* unary_f32.c — yk_unary_f32: the variant yk_isa_select chose (include/variants/unary.inc). */
#include "yk_variants.h"

int yk_unary_f32(const yk_isa *isa, int kind, float alpha, const float *x, float *y, size_t n) {
  if (!yk_unary_kind_valid(kind)) return -1;
  YK_PICK(isa, unary_f32)(kind, alpha, x, y, n);
  return 0;
}
