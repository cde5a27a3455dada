/* lut_i8.c — dispatch for yk_lut_i8, yk_lut_i8_pixels and yk_lut_i8_f32. */
#include "yk_variants.h"
#if YK_ARCH_AARCH64 || YK_ARCH_ARMV7
#include "yk_variants_neon.h"
#endif

void yk_lut_i8(const yk_isa *isa, const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]) {
#if YK_ARCH_X86_64
  if (isa && isa->avx512 && isa->avx512vbmi) {
    yk_lut_i8__avx512vbmi(x, y, n, lut);
    return;
  }
  if (isa && isa->avx2) {
    yk_lut_i8__avx2(x, y, n, lut);
    return;
  }
#elif YK_ARCH_AARCH64 || YK_ARCH_ARMV7
  if (isa && isa->neon) {
    yk_lut_i8__neon(x, y, n, lut);
    return;
  }
#endif
  (void)isa;
  yk_lut_i8__scalar(x, y, n, lut);
}

void yk_lut_i8_pixels(const yk_isa *isa, const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                      const int8_t lut[256]) {
#if YK_ARCH_X86_64
  if (isa && isa->avx512 && isa->avx512vbmi) {
    yk_lut_i8_pixels__avx512vbmi(x, xs, y, ys, pixels, c, lut);
    return;
  }
  if (isa && isa->avx2) {
    yk_lut_i8_pixels__avx2(x, xs, y, ys, pixels, c, lut);
    return;
  }
#elif YK_ARCH_AARCH64 || YK_ARCH_ARMV7
  if (isa && isa->neon) {
    yk_lut_i8_pixels__neon(x, xs, y, ys, pixels, c, lut);
    return;
  }
#endif
  (void)isa;
  yk_lut_i8_pixels__scalar(x, xs, y, ys, pixels, c, lut);
}

void yk_lut_i8_f32(const yk_isa *isa, const int8_t *x, float *y, size_t n, const float lut[256]) {
#if YK_ARCH_X86_64
  if (isa && isa->avx2) {
    yk_lut_i8_f32__avx2(x, y, n, lut);
    return;
  }
#endif
  (void)isa;
  yk_lut_i8_f32__scalar(x, y, n, lut);
}
