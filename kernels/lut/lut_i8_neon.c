/* lut_i8_neon.c — int8 table lookup with NEON table instructions. AArch64: four 64-byte TBL/TBX
 * lookups per 16 bytes; ARMv7: eight 32-byte VTBL/VTBX lookups per 8 bytes. */
#include <arm_neon.h>

#include "yk_variants.h"

void yk_lut_i8_pixels__neon(const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                            const int8_t lut[256]) {
  const uint8_t *t = (const uint8_t *)lut;
#if YK_ARCH_AARCH64
  const uint8x16x4_t t0 = vld1q_u8_x4(t), t1 = vld1q_u8_x4(t + 64), t2 = vld1q_u8_x4(t + 128),
                     t3 = vld1q_u8_x4(t + 192);
  const uint8x16_t k64 = vdupq_n_u8(64), k128 = vdupq_n_u8(128);
#else
  uint8x8x4_t tab[8];
  for (int k = 0; k < 8; k++) {
    tab[k].val[0] = vld1_u8(t + 32 * k);
    tab[k].val[1] = vld1_u8(t + 32 * k + 8);
    tab[k].val[2] = vld1_u8(t + 32 * k + 16);
    tab[k].val[3] = vld1_u8(t + 32 * k + 24);
  }
  const uint8x8_t k32 = vdup_n_u8(32);
#endif
  for (size_t p = 0; p < pixels; p++, x += xs, y += ys) {
    size_t i = 0;
#if YK_ARCH_AARCH64
    for (; i + 16 <= c; i += 16) {
      /* (uint8)(x + 128) == x ^ 0x80; an index >= 64 leaves TBX's lane untouched, and the
       * wrapped subtractions push the other quarters' indices out of range. */
      const uint8x16_t idx = veorq_u8(vreinterpretq_u8_s8(vld1q_s8(x + i)), k128);
      uint8x16_t r = vqtbl4q_u8(t0, idx);
      r = vqtbx4q_u8(r, t1, vsubq_u8(idx, k64));
      r = vqtbx4q_u8(r, t2, vsubq_u8(idx, k128));
      r = vqtbx4q_u8(r, t3, vsubq_u8(idx, vdupq_n_u8(192)));
      vst1q_s8(y + i, vreinterpretq_s8_u8(r));
    }
#else
    for (; i + 8 <= c; i += 8) {
      uint8x8_t idx = veor_u8(vreinterpret_u8_s8(vld1_s8(x + i)), vdup_n_u8(128));
      uint8x8_t r = vtbl4_u8(tab[0], idx);
      for (int k = 1; k < 8; k++) {
        idx = vsub_u8(idx, k32);
        r = vtbx4_u8(r, tab[k], idx);
      }
      vst1_s8(y + i, vreinterpret_s8_u8(r));
    }
#endif
    for (; i < c; i++) y[i] = lut[(uint8_t)(x[i] + 128)];
  }
}

void yk_lut_i8__neon(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]) {
  yk_lut_i8_pixels__neon(x, n, y, n, 1, n, lut);
}
