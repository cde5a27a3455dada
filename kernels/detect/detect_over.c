/* detect_over.c — dispatch for yk_detect_over_i8 and yk_detect_over_f32 (the camera path's
 * threshold scan: which anchors can pass the confidence threshold). */
#include "yk_detect.h"
#include "yk_variants.h"
#if YK_ARCH_AARCH64 || YK_ARCH_ARMV7
#include "yk_variants_neon.h"
#endif

size_t yk_detect_over_i8(const yk_isa *isa, const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list) {
#if YK_ARCH_X86_64
  if (isa && isa->avx512) return yk_detect_over_i8__avx512(q, n, nc, t, base, list);
  if (isa && isa->avx2) return yk_detect_over_i8__avx2(q, n, nc, t, base, list);
#elif YK_ARCH_AARCH64 || YK_ARCH_ARMV7
  if (isa && isa->neon) return yk_detect_over_i8__neon(q, n, nc, t, base, list);
#endif
  (void)isa;
  return yk_detect_over_i8__scalar(q, n, nc, t, base, list);
}

size_t yk_detect_over_f32(const yk_isa *isa, const float *x, size_t n, int nc, float t, int32_t base, int32_t *list) {
#if YK_ARCH_X86_64
  if (isa && isa->avx512) return yk_detect_over_f32__avx512(x, n, nc, t, base, list);
  if (isa && isa->avx2) return yk_detect_over_f32__avx2(x, n, nc, t, base, list);
#elif YK_ARCH_AARCH64
  if (isa && isa->neon) return yk_detect_over_f32__neon(x, n, nc, t, base, list);
#endif
  (void)isa;
  return yk_detect_over_f32__scalar(x, n, nc, t, base, list);
}
