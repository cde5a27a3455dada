/* dwconv3x3_i8.c — dispatch for the depthwise 3x3 int8 kernel. */
#include "yk_variants.h"

void yk_dwconv3x3_i8(const yk_isa *isa, const int8_t *x, const int8_t *w, const int32_t *bias,
                     int8_t *y, const yk_dw_params *p) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_dwconv3x3_i8__avx2(x, w, bias, y, p);
    return;
  }
#endif
  (void)isa;
  yk_dwconv3x3_i8__scalar(x, w, bias, y, p);
}
