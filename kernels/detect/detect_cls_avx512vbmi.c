/* detect_cls_avx512vbmi.c — yk_detect_cls_i8 16 anchors x 4 classes (64 lookups) a step. The
 * float table is split into its four byte planes, each a 256-byte table looked up 64 bytes at a
 * time with vpermi2b (lut/lut_vbmi.h), so a lookup is exact whatever the values (the result is
 * the table's bits, as the scalar reference). A dword gather brings classes 4g..4g+3 of 16
 * anchors (the anchor-major -> class-major turn on bytes, 4x cheaper than on floats); vpermt2b
 * pairs planes 0/1 and 2/3 into words ordered so that one vpunpck{l,h}wd per class gives 16
 * floats of consecutive anchors: a whole 64-byte run of one output row per store (the scalar
 * loop's single-float stores into 80 rows were 3/4 of the decode). */
#include <string.h>

#include "../lut/lut_vbmi.h"
#include "yk_variants.h"

/* 16-anchor steps per block: each class row gets a 1 KiB run per block (256 anchors, their
 * 20 KiB of nc = 80 class bytes stay in L1 across the 20 groups); 1, 4, 16, 32, 64 steps on
 * yolo11n-640 1 thread: 0.51-0.67, 0.57-0.68, 0.42-0.54, 0.46-0.48, 0.48-0.50 ms. */
#define STEPS 16

/* Output byte p of the word pairing for classes k0, k0 + 1: lane L = p / 16 holds words
 * (class k0, anchors 4L..4L+3) then (class k0 + 1, anchors 4L..4L+3); byte h of a word comes
 * from the first (h = 0) or second (h = 1, + 64) plane; class k of anchor i is byte 4i + k. */
static __m512i pair_index(int k0) {
  uint8_t ix[64];
  for (int p = 0; p < 64; p++) {
    const int lane = p / 16, w = (p % 16) / 2, h = p % 2;
    const int k = k0 + w / 4, i = 4 * lane + w % 4;
    ix[p] = (uint8_t)(4 * i + k + 64 * h);
  }
  return _mm512_loadu_si512((const void *)ix);
}

/* Classes 4g..4g+3 (the dword at qa + 4g of each of 16 anchor rows) into rows yc, yc + ys, ... */
static inline void step(const yk_lut4 l[4], __m512i lo, __m512i hi, __m512i rows, const int8_t *qa, float *yc,
                        size_t ys) {
  const __m512i v = _mm512_i32gather_epi32(rows, (const void *)qa, 1);
  const __m512i p0 = yk_lut4_lookup(&l[0], v), p1 = yk_lut4_lookup(&l[1], v);
  const __m512i p2 = yk_lut4_lookup(&l[2], v), p3 = yk_lut4_lookup(&l[3], v);
  const __m512i w01l = _mm512_permutex2var_epi8(p0, lo, p1), w23l = _mm512_permutex2var_epi8(p2, lo, p3);
  const __m512i w01h = _mm512_permutex2var_epi8(p0, hi, p1), w23h = _mm512_permutex2var_epi8(p2, hi, p3);
  _mm512_storeu_si512((void *)yc, _mm512_unpacklo_epi16(w01l, w23l));
  _mm512_storeu_si512((void *)(yc + ys), _mm512_unpackhi_epi16(w01l, w23l));
  _mm512_storeu_si512((void *)(yc + 2 * ys), _mm512_unpacklo_epi16(w01h, w23h));
  _mm512_storeu_si512((void *)(yc + 3 * ys), _mm512_unpackhi_epi16(w01h, w23h));
}

void yk_detect_cls_i8__avx512vbmi(const int8_t *q, size_t n, int nc, const float t[256], float *y, size_t ys) {
  /* plane b, indexed by the raw byte r of q: byte b of t[(int8_t)r + 128] = t[r ^ 0x80] */
  int8_t planes[4][256];
  for (int r = 0; r < 256; r++) {
    uint8_t b[4];
    memcpy(b, &t[r ^ 0x80], 4);
    for (int k = 0; k < 4; k++) planes[k][r] = (int8_t)b[k];
  }
  yk_lut4 l[4];
  for (int k = 0; k < 4; k++) l[k] = yk_lut4_load(planes[k]);
  const __m512i lo = pair_index(0), hi = pair_index(2);
  const __m512i rows = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                          _mm512_set1_epi32(nc));
  const int groups = nc / 4; /* 4 bytes inside each anchor's row: a gather never reads past it */
  const size_t full = n / 16 * 16, unc = (size_t)nc;
  for (size_t a = 0; a < full; a += 16 * STEPS) {
    const size_t m = full - a < 16 * STEPS ? full - a : 16 * STEPS;
    for (int g = 0; g < groups; g++)
      for (size_t s = 0; s < m; s += 16) step(l, lo, hi, rows, q + (a + s) * unc + 4 * (size_t)g, y + (size_t)(4 * g) * ys + a + s, ys);
    for (int c = 4 * groups; c < nc; c++) /* the last nc % 4 classes */
      for (size_t i = a; i < a + m; i++) y[(size_t)c * ys + i] = t[q[i * unc + (size_t)c] + 128];
  }
  if (full < n) yk_detect_cls_i8__scalar(q + full * unc, n - full, nc, t, y + full, ys);
}
