/* dwconv3x3_i8.c — dispatch for the depthwise 3x3 int8 kernel. */
#include "yk_variants.h"
/* NEON variants only on AArch64: ARMv7 NEON float math cannot match the scalar reference
 * bit for bit (see yk_variants_neon.h), so ARMv7 keeps the scalar code. */
#if YK_ARCH_AARCH64
#include "yk_variants_neon.h"
#endif

void yk_dwconv3x3_i8(const yk_isa *isa, const int8_t *x, const int8_t *w, const int32_t *bias,
                     int8_t *y, const yk_dw_params *p) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_dwconv3x3_i8__avx2(x, w, bias, y, p);
    return;
  }
#elif YK_ARCH_AARCH64
  if (isa && isa->neon) {
    yk_dwconv3x3_i8__neon(x, w, bias, y, p);
    return;
  }
#endif
  (void)isa;
  yk_dwconv3x3_i8__scalar(x, w, bias, y, p);
}
