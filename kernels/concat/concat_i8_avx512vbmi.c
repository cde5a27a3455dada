/* concat_i8_avx512vbmi.c — Concat with per-input requantization, the requantization as a byte
 * table. An int8 -> int8 requantization has 256 possible inputs: the AVX2 requantization (bit-exact
 * with the scalar one) fills a 256-byte table once per call and input, then every run is table
 * lookups (two vpermi2b over the table's halves, the input's sign bit picks the half) and plain
 * copies, in 64-byte masked loads and stores inline. YOLO concats join 8-64 channels per pixel:
 * the AVX2 variant paid a requant call (16 bytes per step, the rest scalar) or a memcpy call per
 * pixel and input (YOLO11n-640: yk_requant_i8__avx2 6.8% of a 1-thread run). */
#include "../lut/lut_vbmi.h"
#include "yk_variants.h"

/* The requantization of every raw byte b (as int8), bit-exact as the AVX2 variant is. */
static yk_lut4 make_lut(yk_qparams qx, yk_qparams qy) {
  _Alignas(64) int8_t v[256], t[256];
  for (int b = 0; b < 256; b++) v[b] = (int8_t)(uint8_t)b;
  yk_requant_i8__avx2(v, qx, t, qy, 256);
  return yk_lut4_load(t);
}

void yk_concat_i8__avx512vbmi(const int8_t *const *x, const yk_qparams *qx, const size_t *inner,
                              int n, size_t outer, int8_t *y, yk_qparams qy) {
  enum { MAXIN = 16 };
  if (n > MAXIN) { /* never in YOLO graphs: keep the tables on the stack */
    yk_concat_i8__avx2(x, qx, inner, n, outer, y, qy);
    return;
  }
  yk_lut4 lut[MAXIN];
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
        if (!same[i]) v = yk_lut4_lookup(&lut[i], v);
        _mm512_mask_storeu_epi8(y + k, m, v);
      }
      y += run;
    }
  }
}
