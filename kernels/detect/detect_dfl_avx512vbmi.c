/* detect_dfl_avx512vbmi.c — yk_detect_dfl_i8 16 anchors a step, one anchor a lane: a dword gather
 * brings bins 4b..4b+3 of one side of 16 anchors, detect_planes_vbmi.h looks up their exp values
 * exactly, and each lane runs the reference's float operations in the reference's order (sum +=
 * e, acc += proj[j] * e as a multiply then an add: this C11 build does not contract them, bins
 * in increasing j, then acc * (1 / sum)), so the result is bit-exact. Needs r % 4 == 0. */
#include "detect_planes_vbmi.h"
#include "yk_variants.h"

void yk_detect_dfl_i8__avx512vbmi(const int8_t *q, size_t n, int r, const float t[256], const float *proj, float *d) {
  if (r % 4 != 0) {
    yk_detect_dfl_i8__scalar(q, n, r, t, proj, d);
    return;
  }
  yk_planes4 p;
  yk_planes4_init(&p, t);
  const size_t ar = 4 * (size_t)r; /* bytes per anchor */
  const __m512i rows = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                          _mm512_set1_epi32((int)ar));
  const __m512 one = _mm512_set1_ps(1.0f);
  const size_t full = n / 16 * 16;
  for (size_t a = 0; a < full; a += 16) {
    const int8_t *qa = q + a * ar;
    __m512 dk[4];
    for (int k = 0; k < 4; k++) {
      __m512 sum = _mm512_setzero_ps(), acc = _mm512_setzero_ps();
      for (int b = 0; b < r; b += 4) {
        __m512i f[4];
        yk_planes4_lookup(&p, _mm512_i32gather_epi32(rows, (const void *)(qa + k * r + b), 1), f);
        for (int j = 0; j < 4; j++) {
          const __m512 e = _mm512_castsi512_ps(f[j]);
          sum = _mm512_add_ps(sum, e);
          acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_set1_ps(proj[b + j]), e));
        }
      }
      dk[k] = _mm512_mul_ps(acc, _mm512_div_ps(one, sum));
    }
    /* [4][16] -> [16][4]: d is anchor-major */
    float tmp[4][16];
    for (int k = 0; k < 4; k++) _mm512_storeu_ps(tmp[k], dk[k]);
    for (int i = 0; i < 16; i++)
      for (int k = 0; k < 4; k++) d[(a + (size_t)i) * 4 + (size_t)k] = tmp[k][i];
  }
  if (full < n) yk_detect_dfl_i8__scalar(q + full * ar, n - full, r, t, proj, d + full * 4);
}
