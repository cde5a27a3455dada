/* softmax_i8_scalar.c — the int8 softmax's reference (yk_softmax_i8 in yk.h): the float chain
 * (softmax_i8_chain.c) on the scalar kernels. */
#include "yk_variants.h"

void yk_softmax_i8__scalar(const int8_t *x, int8_t *y, size_t rows, size_t len,
                           const yk_softmax_i8_params *p) {
  const yk_isa none = {0}; /* every dispatcher then takes its scalar reference */
  yk_softmax_i8_chain(&none, x, y, rows, len, p);
}
