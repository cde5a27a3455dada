/* threshold_scan_neon.c — the anchors-over-threshold scan (threshold_scan_scalar.c) 16 bytes / 4
 * floats at a time: vectors without a hit are skipped whole, a hit lists its anchor and the scan
 * resumes at the next anchor's start. The float scan is AArch64 only: ARMv7 NEON compares
 * denormals as zero, the scalar reference does not. */
#include <arm_neon.h>

#include "yk_variants.h"

static int any_u8(uint8x16_t m) {
#if YK_ARCH_AARCH64
  return vmaxvq_u8(m) != 0;
#else
  const uint8x8_t h = vorr_u8(vget_low_u8(m), vget_high_u8(m));
  return vget_lane_u64(vreinterpret_u64_u8(h), 0) != 0;
#endif
}


size_t yk_detect_over_i8__neon(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list) {
  const size_t total = n * (size_t)nc, c = (size_t)nc;
  const int8x16_t vt = vdupq_n_s8(t);
  size_t i = 0, k = 0;
  while (i + 16 <= total) {
    if (!any_u8(vcgtq_s8(vld1q_s8(q + i), vt))) {
      i += 16;
      continue;
    }
    size_t j = i;
    while (!(q[j] > t)) j++; /* integer compare: the vector's hit is there */
    i = yk_detect_over_hit(j, c, base, &list[k++]);
  }
  return k + yk_detect_over_i8_from(q, i, total, c, t, base, list + k);
}

#if YK_ARCH_AARCH64
size_t yk_detect_over_f32__neon(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list) {
  const size_t total = n * (size_t)nc, c = (size_t)nc;
  const float32x4_t vt = vdupq_n_f32(t);
  size_t i = 0, k = 0;
  while (i + 4 <= total) {
    /* over = not (x < t): NaN is over, as in the reference */
    if (vmaxvq_u32(vmvnq_u32(vcltq_f32(vld1q_f32(x + i), vt))) == 0) {
      i += 4;
      continue;
    }
    size_t j = i;
    while (x[j] < t) j++;
    i = yk_detect_over_hit(j, c, base, &list[k++]);
  }
  return k + yk_detect_over_f32_from(x, i, total, c, t, base, list + k);
}
#endif
