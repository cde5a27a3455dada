/* qconv_out_avx512.h — internal to kernels/conv: the output stage of the int8 NHWC convolution's
 * 512-bit variants (AVX-512 VNNI and AMX), MR x NZ zmm of int32 accumulators (pixel m, 16
 * channels of column z) to int8 (requantized, LUT) or float: one copy for both.
 *
 * Requantization (include/yk_avx512_inline.h, shared with the int8 MatMul) packs 4 zmm of int32
 * into 64 int8 with two saturating packs and a saturating y_zp add, then one vpermd; the LUT is
 * applied in register (VBMI) before the single store.
 */
#ifndef YOLORT_QCONV_OUT_AVX512_H
#define YOLORT_QCONV_OUT_AVX512_H

#include <immintrin.h>

#include "../lut/lut_vbmi.h"
#include "yk_avx512_inline.h"
#include "qconv_segments.h"

#define QO_NZ_MAX 6 /* the most zmm columns of any 512-bit blocking */

/* 256-entry LUT (indexed by y + 128) on 64 bytes: lut_vbmi.h's lookup, whose index is the raw
 * byte, on y ^ 0x80 (lut64_loaded: the table already in registers, as the planar kernel keeps it). */
static inline __m512i lut64_loaded(const yk_lut4 *l, __m512i v) {
  return yk_lut4_lookup(l, _mm512_xor_si512(v, _mm512_set1_epi8((char)0x80)));
}
static inline __m512i lut64(__m512i v, const int8_t *lut) {
  const yk_lut4 l = yk_lut4_load(lut);
  return lut64_loaded(&l, v);
}

static inline __attribute__((always_inline)) __m512i requant16(__m512i acc, const float *scale,
                                                               __m512 hi) {
  return yk_avx512_requant16(acc, _mm512_loadu_ps(scale), hi);
}

/* Pack 4 requantized zmm (items i0..i0+3 in pixel-major order) into 64 int8 and store them:
 * whole when contiguous in y (one pixel's 4 columns, or whole pixels when the block is a dense
 * output row), else 16 channels at a time. */
static inline __attribute__((always_inline)) void store_pack(const qconv_block_args *a,
                                                             const __m512i q[4], const int i0,
                                                             const int MR, const int NZ) {
  const __m512i zp = _mm512_set1_epi16((short)a->y_zp);
  const __m512i perm = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  __m512i r = _mm512_permutexvar_epi32(perm, yk_avx512_pack64(q[0], q[1], q[2], q[3], zp));
  if (a->lut) r = lut64(r, a->lut);
  const int nch = a->nch < 16 * NZ ? a->nch : 16 * NZ;
  const int m0 = i0 / NZ, z0 = i0 % NZ;
  if (NZ % 4 == 0) {
    if (m0 < a->mr) {
      const int n = nch - 16 * z0;
      int8_t *yo = a->y + (size_t)m0 * a->ystride + 16 * z0;
      if (n >= 64) _mm512_storeu_si512(yo, r);
      else _mm512_mask_storeu_epi8(yo, ((__mmask64)1 << n) - 1, r);
    }
    return;
  }
  if (i0 + 4 <= MR * NZ && (i0 + 3) / NZ < a->mr && a->ystride == 16 * NZ && nch == 16 * NZ) {
    _mm512_storeu_si512(a->y + 16 * (size_t)i0, r);
    return;
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) {
    const int i = i0 + j, m = i / NZ, z = i % NZ, n = nch - 16 * z;
    if (i >= MR * NZ || m >= a->mr || n <= 0) continue;
    const __m128i chunk = j == 0   ? _mm512_castsi512_si128(r)
                          : j == 1 ? _mm512_extracti32x4_epi32(r, 1)
                          : j == 2 ? _mm512_extracti32x4_epi32(r, 2)
                                   : _mm512_extracti32x4_epi32(r, 3);
    _mm_mask_storeu_epi8(a->y + (size_t)m * a->ystride + 16 * z,
                         n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1), chunk);
  }
}

/* Requantize (or scale to float) and store the MR x NZ accumulators of one block, items in
 * pixel-major order, 4 zmm per pack (64 bytes). */
static inline __attribute__((always_inline)) void qo_output(const qconv_block_args *a,
                                                            __m512i acc[][QO_NZ_MAX],
                                                            const int MR, const int NZ) {
  if (a->yf) { /* float output: (float)acc * scale, 16 channels per masked store */
#pragma GCC unroll 16
    for (int m = 0; m < MR; m++) {
      if (m >= a->mr) break;
#pragma GCC unroll 6
      for (int z = 0; z < NZ; z++) {
        const int n = a->nch - 16 * z;
        if (n <= 0) break;
        const __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[m][z]), _mm512_loadu_ps(a->scale + 16 * z));
        _mm512_mask_storeu_ps(a->yf + (size_t)m * a->ystride + 16 * z,
                              n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1), v);
      }
    }
    return;
  }
  /* Output: the MR x NZ accumulators in pixel-major order, 4 zmm per pack (64 bytes). */
  const __m512 hi = _mm512_set1_ps(a->hi);
  __m512i q[4];
  int k = 0;
  /* The runtime break keeps gcc from turning acc into memory in the K loop (without it, it
   * does: measured 2.5x slower). Items past mr are never stored, so a pending pack is flushed
   * before leaving. */
#pragma GCC unroll 16
  for (int m = 0; m < MR; m++) {
    if (m >= a->mr) {
      if (k) {
        for (int j = k; j < 4; j++) q[j] = _mm512_setzero_si512();
        store_pack(a, q, m * NZ - k, MR, NZ);
      }
      break;
    }
#pragma GCC unroll 6
    for (int z = 0; z < NZ; z++) {
      q[k++] = requant16(acc[m][z], a->scale + 16 * z, hi);
      if (k == 4 || (m == MR - 1 && z == NZ - 1)) {
        for (int j = k; j < 4; j++) q[j] = _mm512_setzero_si512();
        store_pack(a, q, m * NZ + z + 1 - k, MR, NZ);
        k = 0;
      }
    }
  }
}

#endif
