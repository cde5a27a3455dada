/* frame_rows_avx512.c — AVX-512 variant of yk_frame_rows, bit-exact to frame_rows_scalar.c: the
 * AVX2 variant's YUV arithmetic on 16 pixels at a time (32-bit gathers of both horizontal taps,
 * vpmaddwd with the 11-bit weights, int32 vertical pass and BT.601), narrowed with vpmovdb and
 * interleaved by three byte shuffles per 16 output bytes. Groups whose taps reach the last bytes
 * of a row go to the AVX2 row (8 pixels, then scalar); stores and the other layouts are the AVX2
 * variant's. */
#include <immintrin.h>

#include "frame_rows_internal.h"

#define WB YK_FRAME_WBITS
#define ONE (1 << WB)

static inline __m512i pair(__m512i g, int lo, int hi) {
  const __m512i ff = _mm512_set1_epi32(0xFF);
  const __m512i a = _mm512_and_si512(_mm512_srli_epi32(g, 8 * lo), ff);
  const __m512i b = _mm512_and_si512(_mm512_srli_epi32(g, 8 * hi), ff);
  return _mm512_or_si512(a, _mm512_slli_epi32(b, 16));
}

static inline __m512i vert(__m512i h0, __m512i h1, int wy) {
  const __m512i s = _mm512_add_epi32(_mm512_mullo_epi32(h0, _mm512_set1_epi32(ONE - wy)),
                                     _mm512_mullo_epi32(h1, _mm512_set1_epi32(wy)));
  return _mm512_srai_epi32(_mm512_add_epi32(s, _mm512_set1_epi32(1 << (2 * WB - 1))), 2 * WB);
}

static inline __m512i clamp8(__m512i v) {
  return _mm512_min_epi32(_mm512_srai_epi32(_mm512_max_epi32(v, _mm512_setzero_si512()), 8), _mm512_set1_epi32(255));
}

static inline __m512i weights(const int16_t *wt) {
  const __m512i w = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)wt));
  return _mm512_or_si512(_mm512_sub_epi32(_mm512_set1_epi32(ONE), w), _mm512_slli_epi32(w, 16));
}

static inline __m512i gather(const uint8_t *row, __m512i ofs) { return _mm512_i32gather_epi32(ofs, row, 1); }

/* 16 pixels' R, G, B bytes -> 48 interleaved bytes. */
static inline void interleave16(__m128i r, __m128i g, __m128i b, uint8_t *out) {
  static const int8_t m[3][3][16] = {
      {{0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1, 5},
       {-1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1},
       {-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1}},
      {{-1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10, -1},
       {5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10},
       {-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1}},
      {{-1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1, -1},
       {-1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1},
       {10, -1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15}}};
  for (int o = 0; o < 3; o++) {
    const __m128i v = _mm_or_si128(
        _mm_or_si128(_mm_shuffle_epi8(r, _mm_loadu_si128((const __m128i *)(const void *)m[o][0])),
                     _mm_shuffle_epi8(g, _mm_loadu_si128((const __m128i *)(const void *)m[o][1]))),
        _mm_shuffle_epi8(b, _mm_loadu_si128((const __m128i *)(const void *)m[o][2])));
    _mm_storeu_si128((__m128i *)(void *)(out + 16 * o), v);
  }
}

void yk_frame_row_yuv__avx512(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const yk_frame_job *j = r->j;
  const int cw = (j->src_w + 1) / 2, fmt = j->fmt, i420 = fmt == YK_PIX_I420, full = j->full_range;
  const int cmax = i420 ? cw - 3 : cw - 1; /* 4-byte gathers stay inside the row, as in the AVX2 variant */
  int i = 0;
  for (; i + 16 <= n && j->x.ofs[x + i + 15] + 3 < j->src_w && j->cx.ofs[x + i + 15] < cmax; i += 16) {
    const __m512i ofs = _mm512_loadu_si512((const void *)(j->x.ofs + x + i));
    const __m512i w = weights(j->x.wt + x + i);
    const __m512i y = vert(_mm512_madd_epi16(pair(gather(r->p0, ofs), 0, 1), w),
                           _mm512_madd_epi16(pair(gather(r->p1, ofs), 0, 1), w), r->wy);
    const __m512i cofs = _mm512_loadu_si512((const void *)(j->cx.ofs + x + i));
    const __m512i wc = weights(j->cx.wt + x + i);
    __m512i u, v;
    if (i420) {
      u = vert(_mm512_madd_epi16(pair(gather(r->u0, cofs), 0, 1), wc),
               _mm512_madd_epi16(pair(gather(r->u1, cofs), 0, 1), wc), r->wcy);
      v = vert(_mm512_madd_epi16(pair(gather(r->v0, cofs), 0, 1), wc),
               _mm512_madd_epi16(pair(gather(r->v1, cofs), 0, 1), wc), r->wcy);
    } else {
      const __m512i c2 = _mm512_add_epi32(cofs, cofs);
      const __m512i a0 = gather(r->u0, c2), a1 = gather(r->u1, c2);
      const __m512i first = vert(_mm512_madd_epi16(pair(a0, 0, 2), wc), _mm512_madd_epi16(pair(a1, 0, 2), wc), r->wcy);
      const __m512i second = vert(_mm512_madd_epi16(pair(a0, 1, 3), wc), _mm512_madd_epi16(pair(a1, 1, 3), wc), r->wcy);
      u = fmt == YK_PIX_NV12 ? first : second;
      v = fmt == YK_PIX_NV12 ? second : first;
    }
    const __m512i d = _mm512_sub_epi32(u, _mm512_set1_epi32(128)), e = _mm512_sub_epi32(v, _mm512_set1_epi32(128));
    const __m512i c = full ? _mm512_add_epi32(_mm512_slli_epi32(y, 8), _mm512_set1_epi32(128))
                           : _mm512_add_epi32(_mm512_mullo_epi32(_mm512_sub_epi32(y, _mm512_set1_epi32(16)),
                                                                 _mm512_set1_epi32(298)),
                                              _mm512_set1_epi32(128));
    const __m512i R = clamp8(_mm512_add_epi32(c, _mm512_mullo_epi32(e, _mm512_set1_epi32(full ? 359 : 409))));
    const __m512i G = clamp8(_mm512_sub_epi32(
        _mm512_sub_epi32(c, _mm512_mullo_epi32(d, _mm512_set1_epi32(full ? 88 : 100))),
        _mm512_mullo_epi32(e, _mm512_set1_epi32(full ? 183 : 208))));
    const __m512i B = clamp8(_mm512_add_epi32(c, _mm512_mullo_epi32(d, _mm512_set1_epi32(full ? 454 : 516))));
    interleave16(_mm512_cvtepi32_epi8(R), _mm512_cvtepi32_epi8(G), _mm512_cvtepi32_epi8(B), rgb + 3 * i);
  }
  if (i < n) yk_frame_row_yuv__avx2(r, x + i, n - i, rgb + 3 * i);
}

void yk_frame_rows__avx512(const yk_frame_job *j, int r0, int r1) {
  static const yk_frame_ops ops = {yk_frame_row_packed__avx2, yk_frame_row_gray__scalar, yk_frame_row_yuv__avx512,
                                   yk_frame_store__avx2};
  yk_frame_drive(j, r0, r1, &ops);
}
