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
  size_t total = 0;
  for (int i = 0; i < n; i++) total += inner[i];
  /* Input by input (column col of every pixel row). A short run (<= 32 bytes: YOLO's 8-32
   * channels per pixel) is done a 64-byte vector of consecutive pixels at a time: their runs are
   * contiguous in x[i], so one load and one lookup serve floor(64 / run) pixels, each moved to
   * its row of y by one vpermb and a masked store (a pixel at a time it was a masked load,
   * lookup and store per 8-32 bytes; yolo11n-640 model.2 Concat, 3 x 16 channels at 160x160). */
  const __m512i iota = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47,
                                       46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30,
                                       29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13,
                                       12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  size_t col = 0;
  for (int i = 0; i < n; i++) {
    const size_t run = inner[i];
    if (run == 0 || !x[i]) { /* empty, or already in place (a view of y written by its producer) */
      col += run;
      continue;
    }
    const int8_t *src = x[i];
    int8_t *dst = y + col;
    if (run <= 32) {
      const size_t g = 64 / run; /* pixels per vector */
      const __mmask64 mrun = ((__mmask64)1 << run) - 1;
      for (size_t o = 0; o < outer; o += g) {
        const size_t np = outer - o < g ? outer - o : g, nb = np * run;
        const __mmask64 m = nb >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << nb) - 1);
        __m512i v = _mm512_maskz_loadu_epi8(m, src + o * run);
        if (!same[i]) v = yk_lut4_lookup(&lut[i], v);
        _mm512_mask_storeu_epi8(dst + o * total, mrun, v);
        for (size_t p = 1; p < np; p++) {
          const __m512i w = _mm512_permutexvar_epi8(_mm512_add_epi8(iota, _mm512_set1_epi8((char)(p * run))), v);
          _mm512_mask_storeu_epi8(dst + (o + p) * total, mrun, w);
        }
      }
    } else {
      for (size_t o = 0; o < outer; o++) {
        const int8_t *s = src + o * run;
        int8_t *d = dst + o * total;
        for (size_t k = 0; k < run; k += 64) {
          const size_t left = run - k;
          const __mmask64 m = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
          __m512i v = _mm512_maskz_loadu_epi8(m, s + k);
          if (!same[i]) v = yk_lut4_lookup(&lut[i], v);
          _mm512_mask_storeu_epi8(d + k, m, v);
        }
      }
    }
    col += run;
  }
}
