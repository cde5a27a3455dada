/* frame_rows_avx2.c — AVX2 variant of yk_frame_rows, bit-exact to frame_rows_scalar.c: YUV rows
 * (NV12, NV21, I420) 8 pixels at a time — 32-bit gathers fetch both horizontal taps of a pixel,
 * vpmaddwd applies the 11-bit weights exactly, int32 vertical pass and BT.601 conversion, packs
 * and one byte shuffle interleave R, G, B — the int8 store as a byte add when the table is a
 * shift (lut_is_shift), the float table store through vgatherdps; packed RGB / BGR / RGBA / BGRA
 * rows 8 pixels at a time (one 64-bit gather fetches both taps of a pixel, see
 * yk_frame_row_packed__avx2). Pixels whose taps reach the last bytes of a row, and the gray
 * layout, use the scalar functions. */
#include <immintrin.h>

#include "frame_rows_internal.h"

#define WB YK_FRAME_WBITS
#define ONE (1 << WB)

/* (a, b) bytes of each 32-bit lane at byte positions lo, hi -> int16 pair a | b << 16. */
static inline __m256i pair(__m256i g, int lo, int hi) {
  const __m256i ff = _mm256_set1_epi32(0xFF);
  const __m256i a = _mm256_and_si256(_mm256_srli_epi32(g, 8 * lo), ff);
  const __m256i b = _mm256_and_si256(_mm256_srli_epi32(g, 8 * hi), ff);
  return _mm256_or_si256(a, _mm256_slli_epi32(b, 16));
}

/* Vertical pass of two horizontal results (each < 2^19) with weight wy, rounded to 8 bits. */
static inline __m256i vert(__m256i h0, __m256i h1, int wy) {
  const __m256i s = _mm256_add_epi32(_mm256_mullo_epi32(h0, _mm256_set1_epi32(ONE - wy)),
                                     _mm256_mullo_epi32(h1, _mm256_set1_epi32(wy)));
  return _mm256_srai_epi32(_mm256_add_epi32(s, _mm256_set1_epi32(1 << (2 * WB - 1))), 2 * WB);
}

static inline __m256i clamp8(__m256i v) {
  return _mm256_min_epi32(_mm256_srai_epi32(_mm256_max_epi32(v, _mm256_setzero_si256()), 8), _mm256_set1_epi32(255));
}

void yk_frame_row_yuv__avx2(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const yk_frame_job *j = r->j;
  const int cw = (j->src_w + 1) / 2, fmt = j->fmt, i420 = fmt == YK_PIX_I420, full = j->full_range;
  /* 4-byte gathers stay inside the row: luma tap + 3 < src_w, chroma (NV: 2 * tap + 3 < 2 * cw) */
  const int cmax = i420 ? cw - 3 : cw - 1;
  int i = 0;
  for (; i + 8 <= n && j->x.ofs[x + i + 7] + 3 < j->src_w && j->cx.ofs[x + i + 7] < cmax; i += 8) {
    const __m256i ofs = _mm256_loadu_si256((const __m256i *)(const void *)(j->x.ofs + x + i));
    const __m256i wx = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(j->x.wt + x + i)));
    const __m256i w = _mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(ONE), wx), _mm256_slli_epi32(wx, 16));
    const __m256i g0 = _mm256_i32gather_epi32((const int *)(const void *)r->p0, ofs, 1);
    const __m256i g1 = _mm256_i32gather_epi32((const int *)(const void *)r->p1, ofs, 1);
    const __m256i y = vert(_mm256_madd_epi16(pair(g0, 0, 1), w), _mm256_madd_epi16(pair(g1, 0, 1), w), r->wy);

    const __m256i cofs = _mm256_loadu_si256((const __m256i *)(const void *)(j->cx.ofs + x + i));
    const __m256i wcx = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(j->cx.wt + x + i)));
    const __m256i wc = _mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(ONE), wcx), _mm256_slli_epi32(wcx, 16));
    __m256i u, v;
    if (i420) {
      const __m256i a0 = _mm256_i32gather_epi32((const int *)(const void *)r->u0, cofs, 1);
      const __m256i a1 = _mm256_i32gather_epi32((const int *)(const void *)r->u1, cofs, 1);
      const __m256i b0 = _mm256_i32gather_epi32((const int *)(const void *)r->v0, cofs, 1);
      const __m256i b1 = _mm256_i32gather_epi32((const int *)(const void *)r->v1, cofs, 1);
      u = vert(_mm256_madd_epi16(pair(a0, 0, 1), wc), _mm256_madd_epi16(pair(a1, 0, 1), wc), r->wcy);
      v = vert(_mm256_madd_epi16(pair(b0, 0, 1), wc), _mm256_madd_epi16(pair(b1, 0, 1), wc), r->wcy);
    } else {
      const __m256i c2 = _mm256_add_epi32(cofs, cofs);
      const __m256i a0 = _mm256_i32gather_epi32((const int *)(const void *)r->u0, c2, 1);
      const __m256i a1 = _mm256_i32gather_epi32((const int *)(const void *)r->u1, c2, 1);
      const __m256i first = vert(_mm256_madd_epi16(pair(a0, 0, 2), wc), _mm256_madd_epi16(pair(a1, 0, 2), wc), r->wcy);
      const __m256i second = vert(_mm256_madd_epi16(pair(a0, 1, 3), wc), _mm256_madd_epi16(pair(a1, 1, 3), wc), r->wcy);
      u = fmt == YK_PIX_NV12 ? first : second;
      v = fmt == YK_PIX_NV12 ? second : first;
    }
    const __m256i d = _mm256_sub_epi32(u, _mm256_set1_epi32(128)), e = _mm256_sub_epi32(v, _mm256_set1_epi32(128));
    const __m256i c = full ? _mm256_add_epi32(_mm256_slli_epi32(y, 8), _mm256_set1_epi32(128))
                           : _mm256_add_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(y, _mm256_set1_epi32(16)),
                                                                 _mm256_set1_epi32(298)),
                                              _mm256_set1_epi32(128));
    const __m256i R = clamp8(_mm256_add_epi32(c, _mm256_mullo_epi32(e, _mm256_set1_epi32(full ? 359 : 409))));
    const __m256i G = clamp8(_mm256_sub_epi32(
        _mm256_sub_epi32(c, _mm256_mullo_epi32(d, _mm256_set1_epi32(full ? 88 : 100))),
        _mm256_mullo_epi32(e, _mm256_set1_epi32(full ? 183 : 208))));
    const __m256i B = clamp8(_mm256_add_epi32(c, _mm256_mullo_epi32(d, _mm256_set1_epi32(full ? 454 : 516))));
    /* each 128-bit lane: R, G, B of 4 pixels as bytes (values are 0..255), then RGBRGB... */
    const __m256i rg = _mm256_packus_epi32(R, G), b0 = _mm256_packus_epi32(B, _mm256_setzero_si256());
    const __m256i by = _mm256_packus_epi16(rg, b0);
    const __m256i sh = _mm256_setr_epi8(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1, 0, 4, 8, 1, 5, 9, 2,
                                        6, 10, 3, 7, 11, -1, -1, -1, -1);
    const __m256i px = _mm256_shuffle_epi8(by, sh);
    const __m128i lo = _mm256_castsi256_si128(px), hi = _mm256_extracti128_si256(px, 1);
    _mm_storeu_si128((__m128i *)(void *)(rgb + 3 * i), _mm_or_si128(lo, _mm_slli_si128(hi, 12)));
    _mm_storel_epi64((__m128i *)(void *)(rgb + 3 * i + 16), _mm_srli_si128(hi, 4));
  }
  if (i < n) yk_frame_row_yuv__scalar(r, x + i, n - i, rgb + 3 * i);
}

/* pshufb control of one 64-bit gather per 128-bit lane (two pixels: bytes 0-7 and 8-15, each
 * tap 0's bpp bytes then tap 1's): pixel `q` (0 or 8) as int16 pairs (tap 0, tap 1) of output
 * channels 0..3, ready for vpmaddwd with (ONE - wx, wx). BGR / BGRA swap here; the 4th pair
 * (alpha, or RGB's channel 2 again) is computed and dropped. */
static inline __m256i pair_ctl(int bpp, int swap, int q) {
  int8_t c[32];
  for (int l = 0; l < 2; l++)
    for (int k = 0; k < 4; k++) {
      const int ch = k == 3 ? bpp - 1 : swap ? 2 - k : k;
      c[16 * l + 4 * k] = (int8_t)(q + ch);
      c[16 * l + 4 * k + 2] = (int8_t)(q + ch + bpp);
      c[16 * l + 4 * k + 1] = c[16 * l + 4 * k + 3] = -1;
    }
  return _mm256_loadu_si256((const __m256i *)(const void *)c);
}

/* Packed rows: gathers of 8 bytes at s0 * bpp hold both taps (s1 = s0 + 1: the vector loop
 * stops where the 8 bytes would leave the row, so the clamp never applies in it), one pshufb
 * per pixel makes the (tap 0, tap 1) int16 pairs, vpmaddwd the horizontal pass exactly, the
 * vertical pass is h0 * ONE + (h1 - h0) * wy (the same integer as the reference's
 * h0 * (ONE - wy) + h1 * wy, one vpmulld instead of two), then packs, a dword permute back to
 * pixel order and a pshufb dropping the 4th channel. */
void yk_frame_row_packed__avx2(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const yk_frame_job *j = r->j;
  const int bpp = j->fmt == YK_PIX_RGB || j->fmt == YK_PIX_BGR ? 3 : 4;
  const int swap = j->fmt == YK_PIX_BGR || j->fmt == YK_PIX_BGRA;
  const int last = j->src_w * bpp - 8; /* the last byte offset an 8-byte gather may start at */
  const __m256i ctl_a = pair_ctl(bpp, swap, 0), ctl_b = pair_ctl(bpp, swap, 8);
  const __m256i wy = _mm256_set1_epi32(r->wy), half = _mm256_set1_epi32(1 << (2 * WB - 1));
  const __m256i drop = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8,
                                        9, 10, 12, 13, 14, -1, -1, -1, -1);
  const long long *p0 = (const long long *)(const void *)r->p0, *p1 = (const long long *)(const void *)r->p1;
  int i = 0;
  for (; i + 8 <= n && j->x.ofs[x + i + 7] * bpp <= last; i += 8) {
    const __m256i ofs = _mm256_loadu_si256((const __m256i *)(const void *)(j->x.ofs + x + i));
    const __m256i b = bpp == 3 ? _mm256_add_epi32(_mm256_add_epi32(ofs, ofs), ofs) : _mm256_slli_epi32(ofs, 2);
    const __m128i b_lo = _mm256_castsi256_si128(b), b_hi = _mm256_extracti128_si256(b, 1);
    /* pixels 0-3 and 4-7; each 128-bit lane two pixels (0,1 | 2,3 and 4,5 | 6,7) */
    const __m256i g0[2] = {_mm256_i32gather_epi64(p0, b_lo, 1), _mm256_i32gather_epi64(p0, b_hi, 1)};
    const __m256i g1[2] = {_mm256_i32gather_epi64(p1, b_lo, 1), _mm256_i32gather_epi64(p1, b_hi, 1)};
    const __m256i wx = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(j->x.wt + x + i)));
    const __m256i w = _mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(ONE), wx), _mm256_slli_epi32(wx, 16));
    __m256i o[4]; /* pixels 0|2, 1|3, 4|6, 5|7 (low | high lane), channels 0..3 as int32 */
    for (int k = 0; k < 4; k++) {
      const int g = k >> 1, q = k & 1, p = 4 * g + q; /* lane 0 holds pixel p, lane 1 pixel p + 2 */
      const __m256i wk = _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(p, p, p, p, p + 2, p + 2, p + 2, p + 2));
      const __m256i ctl = q ? ctl_b : ctl_a;
      const __m256i h0 = _mm256_madd_epi16(_mm256_shuffle_epi8(g0[g], ctl), wk);
      const __m256i h1 = _mm256_madd_epi16(_mm256_shuffle_epi8(g1[g], ctl), wk);
      const __m256i s = _mm256_add_epi32(_mm256_slli_epi32(h0, WB), _mm256_mullo_epi32(_mm256_sub_epi32(h1, h0), wy));
      o[k] = _mm256_srai_epi32(_mm256_add_epi32(s, half), 2 * WB);
    }
    /* dwords (one pixel's 4 bytes each): 0 1 4 5 | 2 3 6 7 -> 0..7, then 3 bytes per pixel */
    const __m256i by = _mm256_packus_epi16(_mm256_packs_epi32(o[0], o[1]), _mm256_packs_epi32(o[2], o[3]));
    const __m256i px =
        _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(by, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7)), drop);
    const __m128i lo = _mm256_castsi256_si128(px), hi = _mm256_extracti128_si256(px, 1);
    _mm_storeu_si128((__m128i *)(void *)(rgb + 3 * i), _mm_or_si128(lo, _mm_slli_si128(hi, 12)));
    _mm_storel_epi64((__m128i *)(void *)(rgb + 3 * i + 16), _mm_srli_si128(hi, 4));
  }
  if (i < n) yk_frame_row_packed__scalar(r, x + i, n - i, rgb + 3 * i);
}

void yk_frame_store__avx2(const yk_frame_job *j, size_t at, const uint8_t *rgb, int n) {
  if (j->out_i8 && j->lut_is_shift) {
    int8_t *o = (int8_t *)j->dst + at;
    const __m256i k = _mm256_set1_epi8((char)j->lut_shift);
    const int m = 3 * n;
    int i = 0;
    for (; i + 32 <= m; i += 32)
      _mm256_storeu_si256((__m256i *)(void *)(o + i),
                          _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(rgb + i)), k));
    for (; i < m; i++) o[i] = j->lut_i8[rgb[i]];
    return;
  }
  if (j->out_i8) {
    yk_frame_store__scalar(j, at, rgb, n);
    return;
  }
  float *o = (float *)j->dst + at;
  const int m = 3 * n;
  int i = 0;
  for (; i + 8 <= m; i += 8) {
    const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(rgb + i)));
    _mm256_storeu_ps(o + i, _mm256_i32gather_ps(j->lut_f32, idx, 4));
  }
  for (; i < m; i++) o[i] = j->lut_f32[rgb[i]];
}

void yk_frame_rows__avx2(const yk_frame_job *j, int r0, int r1) {
  static const yk_frame_ops ops = {yk_frame_row_packed__avx2, yk_frame_row_gray__scalar, yk_frame_row_yuv__avx2,
                                   yk_frame_store__avx2};
  yk_frame_drive(j, r0, r1, &ops);
}
