/* maxpool_nhwc.c — NHWC max pooling: the variants yk_isa_select chose (include/variants/pool.inc). */
#include "yk_variants.h"

void yk_maxpool_nhwc_i8(const yk_isa *isa, const int8_t *x, int n, int h, int w, int c,
                        int8_t *y, int oh, int ow, const yk_pool_params *p) {
  YK_PICK(isa, maxpool_nhwc_i8)(x, n, h, w, c, y, oh, ow, p);
}

void yk_maxpool_nhwc_f32(const yk_isa *isa, const float *x, int n, int h, int w, int c,
                         float *y, int oh, int ow, const yk_pool_params *p) {
  YK_PICK(isa, maxpool_nhwc_f32)(x, n, h, w, c, y, oh, ow, p);
}
