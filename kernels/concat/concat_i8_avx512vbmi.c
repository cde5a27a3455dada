/* concat_i8_avx512vbmi.c — Concat with per-input requantization, the requantization as a byte
 * table. An int8 -> int8 requantization has 256 possible inputs: the AVX2 requantization (bit-exact
 * with the scalar one) fills a 256-byte table once per call and input, then every run is table
 * lookups (two vpermi2b over the table's halves, the input's sign bit picks the half) and plain
 * copies, in 64-byte masked loads and stores inline. YOLO concats join 8-64 channels per pixel:
 * the AVX2 variant paid a requant call (16 bytes per step, the rest scalar) or a memcpy call per
 * pixel and input (YOLO11n-640: yk_requant_i8__avx2 6.8% of a 1-thread run). */
#include <immintrin.h>

#include "yk_variants.h"

/* The table's 4 quarters by raw byte (0..127: x >= 0, 128..255: x < 0). */
typedef struct lut4 {
  __m512i q[4];
} lut4;

static lut4 make_lut(yk_qparams qx, yk_qparams qy) {
  _Alignas(64) int8_t v[256], t[256];
  for (int b = 0; b < 256; b++) v[b] = (int8_t)(uint8_t)b;
  yk_requant_i8__avx2(v, qx, t, qy, 256);
  lut4 l;
  for (int k = 0; k < 4; k++) l.q[k] = _mm512_load_si512((const void *)(t + 64 * k));
  return l;
}

static inline __m512i lookup(const lut4 *l, __m512i x) {
  const __m512i lo = _mm512_permutex2var_epi8(l->q[0], x, l->q[1]);
  const __m512i hi = _mm512_permutex2var_epi8(l->q[2], x, l->q[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
}

void yk_concat_i8__avx512vbmi(const int8_t *const *x, const yk_qparams *qx, const size_t *inner,
                              int n, size_t outer, int8_t *y, yk_qparams qy) {
  enum { MAXIN = 16 };
  if (n > MAXIN) { /* never in YOLO graphs: keep the tables on the stack */
    yk_concat_i8__avx2(x, qx, inner, n, outer, y, qy);
    return;
  }
  lut4 lut[MAXIN];
  int same[MAXIN];
  for (int i = 0; i < n; i++) {
    same[i] = qx[i].scale == qy.scale && qx[i].zero_point == qy.zero_point;
    if (!same[i] && x[i] && inner[i]) lut[i] = make_lut(qx[i], qy);
  }
  for (size_t o = 0; o < outer; o++) {
    for (int i = 0; i < n; i++) {
      const size_t run = inner[i];
      if (run == 0) continue;
      if (!x[i]) { /* already in place (a view of y written by its producer) */
        y += run;
        continue;
      }
      const int8_t *src = x[i] + o * run;
      for (size_t k = 0; k < run; k += 64) {
        const size_t left = run - k;
        const __mmask64 m = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
        __m512i v = _mm512_maskz_loadu_epi8(m, src + k);
        if (!same[i]) v = lookup(&lut[i], v);
        _mm512_mask_storeu_epi8(y + k, m, v);
      }
      y += run;
    }
  }
}
