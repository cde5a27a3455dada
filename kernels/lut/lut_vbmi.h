/* lut_vbmi.h — a 256-byte table looked up 64 bytes at a time with AVX-512 VBMI: two vpermi2b
 * over the table's halves (7 index bits each), the index's bit 7 picks the half. Include only
 * from files built with -mavx512bw -mavx512vbmi (*_avx512vbmi.c). */
#ifndef YOLORT_LUT_VBMI_H
#define YOLORT_LUT_VBMI_H

#include <immintrin.h>
#include <stdint.h>

/* The table in four 64-byte quarters, indexed by the raw byte (0..255). */
typedef struct yk_lut4 {
  __m512i q[4];
} yk_lut4;

/* t[b] for raw byte b; t is 64-byte aligned or not. */
static inline yk_lut4 yk_lut4_load(const int8_t *t) {
  yk_lut4 l;
  for (int k = 0; k < 4; k++) l.q[k] = _mm512_loadu_si512((const void *)(t + 64 * k));
  return l;
}

static inline __m512i yk_lut4_lookup(const yk_lut4 *l, __m512i x) {
  const __m512i lo = _mm512_permutex2var_epi8(l->q[0], x, l->q[1]);
  const __m512i hi = _mm512_permutex2var_epi8(l->q[2], x, l->q[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
}

#endif
