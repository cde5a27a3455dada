/* kt_common.h — shared helpers of the kernel tests: deterministic RNG, buffers with a
 * deliberate misalignment, ISA probing, and the reference int8 quantizer. */
#ifndef YOLORT_KT_COMMON_H
#define YOLORT_KT_COMMON_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "yk.h"
#include "yk_variants.h"

typedef struct kt_rng {
  uint64_t s;
} kt_rng;

static inline uint32_t kt_u32(kt_rng *r) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return (uint32_t)(r->s >> 16);
}
static inline int kt_int(kt_rng *r, int lo, int hi) { /* inclusive */
  return lo + (int)(kt_u32(r) % (uint32_t)(hi - lo + 1));
}
static inline float kt_float(kt_rng *r, float lo, float hi) {
  return lo + (hi - lo) * (float)(kt_u32(r) & 0xFFFFFF) / 16777216.0f;
}
static inline void kt_fill_i8(kt_rng *r, int8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (int8_t)kt_int(r, -128, 127);
}

/* Allocation whose returned pointer is misaligned by `skew` bytes from a 64-byte boundary. */
static inline void *kt_alloc(size_t bytes, size_t skew, void **base) {
  *base = NULL;
  if (posix_memalign(base, 64, bytes + 64 + skew) != 0) return NULL;
  memset(*base, 0xA5, bytes + 64 + skew);
  return (uint8_t *)*base + skew;
}

/* The rows of a variant list (yk_variant, YK_VARIANT_ROW) for `entry` that the CPU runs, into out
 * (the lists are the one place that names the variants: a new one is tested without editing tests). */
static inline size_t kt_variants_of(const yk_variant *all, size_t n, const char *entry, yk_variant *out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (all[i].runs && strcmp(all[i].entry, entry) == 0) out[k++] = all[i];
  return k;
}
static inline int kt_have_avx2(void) {
  yk_isa isa;
  yk_isa_detect(&isa);
  return isa.avx2;
}

/* Reference QuantizeLinear on v = x / scale, written independently of the kernels:
 * nearbyint (round half even in the default mode), saturate; NaN -> -128 (yk convention). */
static inline int8_t kt_ref_qv(float v, int32_t zp) {
  if (isnan(v)) return -128;
  double r;
  if (v > 1e9f) r = 1e9;
  else if (v < -1e9f) r = -1e9;
  else r = nearbyint((double)v);
  r += zp;
  return (int8_t)(r < -128 ? -128 : (r > 127 ? 127 : r));
}
static inline int8_t kt_ref_q(float x, float scale, int32_t zp) { return kt_ref_qv(x / scale, zp); }
static inline float kt_ref_dq(int8_t q, float scale, int32_t zp) { return (float)(q - zp) * scale; }

static const size_t kt_sizes[] = {0, 1, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 257, 1000, 4099};
#define KT_NSIZES (sizeof(kt_sizes) / sizeof(kt_sizes[0]))

#define KT_SKIP_NO_AVX2()                       \
  do {                                          \
    if (!kt_have_avx2()) {                      \
      print_message("no AVX2: skipped\n");      \
      skip();                                   \
    }                                           \
  } while (0)

#endif /* YOLORT_KT_COMMON_H */
