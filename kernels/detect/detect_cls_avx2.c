/* detect_cls_avx2.c — yk_detect_cls_i8 over blocks of anchors. The reference walks each class
 * over all n anchors: nc passes over the whole anchor-major input (8400 x 80 bytes at 640, more
 * than L1 and most of L2), one cache line fetched per lookup at a row stride of nc bytes. Here
 * each block of BLOCK anchors is read from L1, 4 classes at a time (one dword load, 4 lookups into
 * 4 class rows), and each class row gets a run of BLOCK floats per block: the same table bits
 * copied (t[q + 128]), in another order: 0.41-0.44 -> 0.19 ms for yolo11n-640's 8400 x 80 (one
 * thread, CPU time, min of 200). The lookups stay scalar: 8-anchor vpgatherdd / vgatherdps steps
 * were no faster on Zen 5 (and the same gathers made the DFL 0.19 -> 0.32 ms, so it has no AVX2
 * variant); the blocking is what pays. No AVX2 instruction is needed, but the reference stays the
 * simple loop. */
#include <string.h>

#include "yk_variants.h"

#define BLOCK 256

void yk_detect_cls_i8__avx2(const int8_t *q, size_t n, int nc, const float t[256], float *y, size_t ys) {
  const float *t0 = t + 128;
  const size_t unc = (size_t)nc, c4 = unc / 4 * 4;
  for (size_t a = 0; a < n; a += BLOCK) {
    const size_t m = n - a < BLOCK ? n - a : BLOCK;
    const int8_t *qa = q + a * unc;
    float *ya = y + a;
    for (size_t c = 0; c < c4; c += 4) {
      float *y0 = ya + c * ys, *y1 = y0 + ys, *y2 = y1 + ys, *y3 = y2 + ys;
      const int8_t *qc = qa + c;
      for (size_t i = 0; i < m; i++) {
        int8_t v[4];
        memcpy(v, qc + i * unc, 4);
        y0[i] = t0[v[0]];
        y1[i] = t0[v[1]];
        y2[i] = t0[v[2]];
        y3[i] = t0[v[3]];
      }
    }
    for (size_t c = c4; c < unc; c++)
      for (size_t i = 0; i < m; i++) ya[c * ys + i] = t0[qa[i * unc + c]];
  }
}
