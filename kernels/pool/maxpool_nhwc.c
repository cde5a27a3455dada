/* maxpool_nhwc.c — dispatch for NHWC max pooling. */
#include "yk_variants.h"
#if YK_ARCH_AARCH64 || YK_ARCH_ARMV7
#include "yk_variants_neon.h"
#endif

void yk_maxpool_nhwc_i8(const yk_isa *isa, const int8_t *x, int n, int h, int w, int c,
                        int8_t *y, int oh, int ow, const yk_pool_params *p) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_maxpool_nhwc_i8__avx2(x, n, h, w, c, y, oh, ow, p);
    return;
  }
#elif YK_ARCH_AARCH64 || YK_ARCH_ARMV7
  if (isa && isa->neon) {
    yk_maxpool_nhwc_i8__neon(x, n, h, w, c, y, oh, ow, p);
    return;
  }
#endif
  (void)isa;
  yk_maxpool_nhwc_i8__scalar(x, n, h, w, c, y, oh, ow, p);
}

void yk_maxpool_nhwc_f32(const yk_isa *isa, const float *x, int n, int h, int w, int c,
                         float *y, int oh, int ow, const yk_pool_params *p) {
  (void)isa;
  yk_maxpool_nhwc_f32__scalar(x, n, h, w, c, y, oh, ow, p);
}
