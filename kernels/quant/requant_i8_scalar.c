/* requant_i8_scalar.c — reference int8 -> int8 requantization in fp32 (XNNPACK style):
 * y = sat(round_half_even((x - zx) * (sx / sy)) + zy), the ratio computed once in float. */
#include "yk_inline.h"
#include "yk_variants.h"

void yk_requant_i8__scalar(const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy, size_t n) {
  const float s = qx.scale / qy.scale;
  for (size_t i = 0; i < n; i++) y[i] = yk_quant_val((float)((int32_t)x[i] - qx.zero_point) * s, qy.zero_point);
}
