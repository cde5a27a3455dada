/* softmax.c — yk_softmax_f32 and yk_softmax_i8: the variants yk_isa_select chose
 * (include/variants/softmax.inc). */
#include "yk_variants.h"

void yk_softmax_f32(const yk_isa *isa, const float *x, float *y, size_t outer, size_t axis_len,
                    size_t inner) {
  YK_PICK(isa, softmax_f32)(x, y, outer, axis_len, inner);
}

/* Tables of a row's codes (AVX-512 VBMI), else the fused AVX-512 rows, else the float chain on
 * the widest float kernels the yk_isa has (the same bytes every way): the scalar reference is that
 * chain on scalar kernels, so without a fused variant the chain runs on isa's. */
void yk_softmax_i8(const yk_isa *isa, const int8_t *x, int8_t *y, size_t rows, size_t len,
                   const yk_softmax_i8_params *p) {
  YK_FN_softmax_i8((*fn)) = YK_PICK(isa, softmax_i8);
  if (fn == yk_softmax_i8__scalar)
    yk_softmax_i8_chain(isa, x, y, rows, len, p);
  else
    fn(x, y, rows, len, p);
}
