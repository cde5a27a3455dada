/* qconv_nhwc_avx2.h — internal to kernels/conv: what the AVX2 and AVX-VNNI (256-bit) variants of
 * the int8 NHWC convolution share: the output stage (requantization, LUT, stores) of MR x NZ ymm
 * of int32.
 *
 * Both step K one dword (4 bytes of a segment) at a time over columns of 8 output channels (one
 * ymm of int32); packing and the tile driver are every variant's (qconv_pack.c,
 * qconv_segments.h). Packed layouts:
 *   AVX-VNNI: 8 lanes, kr 4, int8: bytes 4l..4l+3 = channel l's 4 K bytes (the vpdpbusd
 *             operand); bias_adj = bias - (128 + x_zp) * sum(w) (activations made u8);
 *   AVX2:     8 lanes, kr 2, int16: [w(l,k0), w(l,k2)] for l = 0..7, then [w(l,k1), w(l,k3)]
 *             (the vpmaddwd operands against the even / odd bytes of the pixel's dword);
 *             bias_adj = bias - x_zp * sum(w) (signed).
 */
#ifndef YOLORT_QCONV_NHWC_AVX2_H
#define YOLORT_QCONV_NHWC_AVX2_H

#include "qconv_segments.h"

#if YK_ARCH_X86_64
#include <immintrin.h>
#include <string.h>

#include "yk_avx2_inline.h"

#define YK_QA_MR_MAX 12
#define YK_QA_NZ_MAX 3
/* The blockings both 256-bit variants instantiate (yk_qconv_blocking__avx2 picks among them). */
#define YK_QA_BLOCKS(X) X(12, 1) X(8, 1) X(6, 1) X(6, 2) X(4, 1) X(4, 2) X(4, 3)

/* The LUT as yk_qa_lut32 reads it (16 sub-tables broadcast to both lanes), built per rows call
 * into t; NULL without a LUT. The result is qconv_drive's lut_prep. */
static inline const void *yk_qa_prep_lut(const yk_qconv *c, __m256i t[16]) {
  if (!c->lut) return NULL;
  for (int k = 0; k < 16; k++)
    t[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(c->lut + 16 * k)));
  return t;
}

/* A micro-kernel's accumulators before its first step: each column's bias (8 channels) for
 * every pixel. */
static inline __attribute__((always_inline)) void yk_qa_acc_bias(__m256i acc[YK_QA_MR_MAX][YK_QA_NZ_MAX],
                                                                 const qconv_block_args *a, const int MR,
                                                                 const int NZ) {
#pragma GCC unroll 3
  for (int z = 0; z < NZ; z++) {
    const __m256i bz = _mm256_loadu_si256((const __m256i *)(a->bias + 8 * z));
#pragma GCC unroll 12
    for (int m = 0; m < MR; m++) acc[m][z] = bz;
  }
}

/* The reference's requantization on 8 channels (yk_avx2_inline.h; NaN is impossible for a
 * finite scale). */
static inline __attribute__((always_inline)) __m256i yk_qa_requant8(__m256i acc,
                                                                    const float *scale,
                                                                    __m256 hi) {
  return yk_avx2_requant8(acc, _mm256_loadu_ps(scale), hi);
}

/* 256-entry LUT on 32 bytes (as lut_i8_avx2.c): u = y + 128, vpshufb of its low nibble in all 16
 * sub-tables, then a blend tree on bits 4..7 of u (shifted up to each byte's bit 7). */
static inline __attribute__((always_inline)) __m256i yk_qa_lut32(__m256i v, const __m256i *t) {
  const __m256i u = _mm256_xor_si256(v, _mm256_set1_epi8((char)0x80));
  const __m256i lo = _mm256_and_si256(u, _mm256_set1_epi8(0x0F));
  const __m256i m4 = _mm256_slli_epi16(u, 3), m5 = _mm256_slli_epi16(u, 2);
  const __m256i m6 = _mm256_slli_epi16(u, 1);
  __m256i r[8];
#pragma GCC unroll 8
  for (int j = 0; j < 8; j++)
    r[j] = _mm256_blendv_epi8(_mm256_shuffle_epi8(t[2 * j], lo),
                              _mm256_shuffle_epi8(t[2 * j + 1], lo), m4);
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) r[j] = _mm256_blendv_epi8(r[2 * j], r[2 * j + 1], m5);
#pragma GCC unroll 2
  for (int j = 0; j < 2; j++) r[j] = _mm256_blendv_epi8(r[2 * j], r[2 * j + 1], m6);
  return _mm256_blendv_epi8(r[0], r[1], u);
}

/* 4 requantized ymm (items i0..i0+3 in pixel-major order, item = pixel m, column z) packed into
 * 32 int8 in item order (8 bytes each: the item's 8 channels), y_zp added, the LUT applied. */
static inline __attribute__((always_inline)) __m256i yk_qa_pack32(const qconv_block_args *a,
                                                                  const __m256i q[4]) {
  const __m256i zp = _mm256_set1_epi16((short)a->y_zp);
  /* the y_zp add is a saturating int16 add between the packs: equals the reference's clamp
   * for any int8 y_zp */
  const __m256i ab = _mm256_adds_epi16(_mm256_packs_epi32(q[0], q[1]), zp);
  const __m256i cd = _mm256_adds_epi16(_mm256_packs_epi32(q[2], q[3]), zp);
  __m256i r = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(ab, cd),
                                          _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  if (a->lut) r = yk_qa_lut32(r, (const __m256i *)a->lut_prep);
  return r;
}

/* Store items i0..i0+3 (those that exist: up to mr pixels, nch channels). */
static inline __attribute__((always_inline)) void yk_qa_store(const qconv_block_args *a,
                                                              const __m256i q[4], const int i0,
                                                              const int MR, const int NZ) {
  const __m256i r = yk_qa_pack32(a, q);
  _Alignas(32) int8_t t[32];
  _mm256_store_si256((__m256i *)t, r);
  const int nch = a->nch < 8 * NZ ? a->nch : 8 * NZ;
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) {
    const int i = i0 + j, m = i / NZ, z = i % NZ, n = nch - 8 * z;
    if (i >= MR * NZ || m >= a->mr || n <= 0) continue;
    int8_t *yo = a->y + (size_t)m * a->ystride + 8 * z;
    const int8_t *s = t + 8 * j;
    if (n >= 8) {
      memcpy(yo, s, 8);
    } else {
      memcpy(yo, s, (size_t)n);
    }
  }
}

/* The same for a full tile (mr == MR pixels, every column's 8 channels exist): no per-item
 * checks; with NZ 1 or 2 each pixel's bytes are adjacent in r (i0 is a multiple of 4), so they
 * go out as 8 or 16-byte stores straight from the register. */
static inline __attribute__((always_inline)) void yk_qa_store_full(const qconv_block_args *a,
                                                                   const __m256i q[4],
                                                                   const int i0, const int MR,
                                                                   const int NZ) {
  const __m256i r = yk_qa_pack32(a, q);
  const __m128i lo = _mm256_castsi256_si128(r), hi = _mm256_extracti128_si256(r, 1);
  const size_t ys = (size_t)a->ystride;
  if (NZ == 2) {
    int8_t *yo = a->y + (size_t)(i0 / 2) * ys;
    _mm_storeu_si128((__m128i *)yo, lo);
    if (i0 + 2 < MR * NZ) _mm_storeu_si128((__m128i *)(yo + ys), hi);
    return;
  }
  if (NZ == 1) {
    int8_t *yo = a->y + (size_t)i0 * ys;
    _mm_storel_epi64((__m128i *)yo, lo);
    if (i0 + 1 < MR) _mm_storel_epi64((__m128i *)(yo + ys), _mm_unpackhi_epi64(lo, lo));
    if (i0 + 2 < MR) _mm_storel_epi64((__m128i *)(yo + 2 * ys), hi);
    if (i0 + 3 < MR) _mm_storel_epi64((__m128i *)(yo + 3 * ys), _mm_unpackhi_epi64(hi, hi));
    return;
  }
  _Alignas(32) int8_t t[32];
  _mm256_store_si256((__m256i *)t, r);
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) {
    const int i = i0 + j, m = i / NZ, z = i % NZ;
    if (i < MR * NZ) memcpy(a->y + (size_t)m * ys + 8 * z, t + 8 * j, 8);
  }
}

/* Requantize and store the MR x NZ accumulators, 4 ymm per pack. The runtime break keeps gcc
 * from turning acc into memory in the K loop (as measured on the AVX-512 kernel); items past
 * mr are never stored, so a pending pack is flushed before leaving. */
static inline __attribute__((always_inline)) void yk_qa_output(
    const qconv_block_args *a, __m256i acc[YK_QA_MR_MAX][YK_QA_NZ_MAX], const int MR,
    const int NZ) {
  if (a->yf) { /* float output: (float)acc * scale, 8 channels per store */
#pragma GCC unroll 12
    for (int m = 0; m < MR; m++) {
      if (m >= a->mr) break;
#pragma GCC unroll 3
      for (int z = 0; z < NZ; z++) {
        const int n = a->nch - 8 * z;
        if (n <= 0) break;
        const __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc[m][z]), _mm256_loadu_ps(a->scale + 8 * z));
        float *yo = a->yf + (size_t)m * a->ystride + 8 * z;
        if (n >= 8) {
          _mm256_storeu_ps(yo, v);
        } else {
          _Alignas(32) float t[8];
          _mm256_store_ps(t, v);
          memcpy(yo, t, sizeof(float) * (size_t)n);
        }
      }
    }
    return;
  }
  /* a local copy: the int8 stores may alias *a, which gcc would otherwise reload after each */
  const qconv_block_args o = *a;
  const __m256 hi = _mm256_set1_ps(o.hi);
  __m256i q[4];
  int k = 0;
  if (o.mr >= MR && o.nch >= 8 * NZ) { /* full tile: the common case */
#pragma GCC unroll 12
    for (int m = 0; m < MR; m++) {
#pragma GCC unroll 3
      for (int z = 0; z < NZ; z++) {
        q[k++] = yk_qa_requant8(acc[m][z], o.scale + 8 * z, hi);
        if (k == 4 || (m == MR - 1 && z == NZ - 1)) {
          for (int j = k; j < 4; j++) q[j] = _mm256_setzero_si256();
          yk_qa_store_full(&o, q, m * NZ + z + 1 - k, MR, NZ);
          k = 0;
        }
      }
    }
    return;
  }
#pragma GCC unroll 12
  for (int m = 0; m < MR; m++) {
    if (m >= o.mr) {
      if (k) {
        for (int j = k; j < 4; j++) q[j] = _mm256_setzero_si256();
        yk_qa_store(&o, q, m * NZ - k, MR, NZ);
      }
      break;
    }
#pragma GCC unroll 3
    for (int z = 0; z < NZ; z++) {
      q[k++] = yk_qa_requant8(acc[m][z], o.scale + 8 * z, hi);
      if (k == 4 || (m == MR - 1 && z == NZ - 1)) {
        for (int j = k; j < 4; j++) q[j] = _mm256_setzero_si256();
        yk_qa_store(&o, q, m * NZ + z + 1 - k, MR, NZ);
        k = 0;
      }
    }
  }
}
#endif

#endif /* YOLORT_QCONV_NHWC_AVX2_H */
