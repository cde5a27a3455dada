/* detect_cls_avx512vbmi.c — yk_detect_cls_i8 16 anchors x 4 classes (64 lookups) a step: a dword
 * gather brings classes 4g..4g+3 of 16 anchors (the anchor-major -> class-major turn on bytes,
 * 4x cheaper than on floats), detect_planes_vbmi.h looks them up exactly into 16 floats of
 * consecutive anchors per class: a whole 64-byte run of one output row per store (the scalar
 * loop's single-float stores into 80 rows were 3/4 of the decode). */
#include "detect_planes_vbmi.h"
#include "yk_variants.h"

/* 16-anchor steps per block: each class row gets a 1 KiB run per block (256 anchors, their
 * 20 KiB of nc = 80 class bytes stay in L1 across the 20 groups); 1, 4, 16, 32, 64 steps on
 * yolo11n-640 1 thread: 0.51-0.67, 0.57-0.68, 0.42-0.54, 0.46-0.48, 0.48-0.50 ms. */
#define STEPS 16

/* Classes 4g..4g+3 (the dword at qa + 4g of each of 16 anchor rows) into rows yc, yc + ys, ... */
static inline void step(const yk_planes4 *p, __m512i rows, const int8_t *qa, float *yc, size_t ys) {
  __m512i f[4];
  yk_planes4_lookup(p, _mm512_i32gather_epi32(rows, (const void *)qa, 1), f);
  for (int k = 0; k < 4; k++) _mm512_storeu_si512((void *)(yc + (size_t)k * ys), f[k]);
}

void yk_detect_cls_i8__avx512vbmi(const int8_t *q, size_t n, int nc, const float t[256], float *y, size_t ys) {
  yk_planes4 p;
  yk_planes4_init(&p, t);
  const __m512i rows = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                          _mm512_set1_epi32(nc));
  const int groups = nc / 4; /* 4 bytes inside each anchor's row: a gather never reads past it */
  const size_t full = n / 16 * 16, unc = (size_t)nc;
  for (size_t a = 0; a < full; a += 16 * STEPS) {
    const size_t m = full - a < 16 * STEPS ? full - a : 16 * STEPS;
    for (int g = 0; g < groups; g++)
      for (size_t s = 0; s < m; s += 16) step(&p, rows, q + (a + s) * unc + 4 * (size_t)g, y + (size_t)(4 * g) * ys + a + s, ys);
    for (int c = 4 * groups; c < nc; c++) /* the last nc % 4 classes */
      for (size_t i = a; i < a + m; i++) y[(size_t)c * ys + i] = t[q[i * unc + (size_t)c] + 128];
  }
  if (full < n) yk_detect_cls_i8__scalar(q + full * unc, n - full, nc, t, y + full, ys);
}
