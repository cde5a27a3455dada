/* frame_rows_avx2.c — AVX2 variant of yk_frame_rows, bit-exact to frame_rows_scalar.c: YUV rows
 * (NV12, NV21, I420) 8 pixels at a time (the template frame_yuv_simd.h; packs and one byte
 * shuffle interleave R, G, B) — the int8 store as a byte add when the table is a
 * shift (lut_is_shift), the float table store through vgatherdps; packed RGB / BGR / RGBA / BGRA
 * rows 8 pixels at a time (16-byte windows of two pixels or 64-bit gathers fetch both taps of a
 * pixel, see yk_frame_row_packed__avx2). Pixels whose taps reach the last bytes of a row, and the gray
 * layout, use the scalar functions. */
#include <immintrin.h>

#include "frame_rows_internal.h"

#define WB YK_FRAME_WBITS
#define ONE (1 << WB)

/* 24 bytes out: pshufb ctl picks 12 RGB bytes in each 128-bit lane of by (its last 4 zeroed). */
static inline void store24(__m256i by, __m256i ctl, uint8_t *out) {
  const __m256i px = _mm256_shuffle_epi8(by, ctl);
  const __m128i lo = _mm256_castsi256_si128(px), hi = _mm256_extracti128_si256(px, 1);
  _mm_storeu_si128((__m128i *)(void *)out, _mm_or_si128(lo, _mm_slli_si128(hi, 12)));
  _mm_storel_epi64((__m128i *)(void *)(out + 16), _mm_srli_si128(hi, 4));
}

/* 8 pixels' R, G, B (int32 lanes of 0..255) -> 24 interleaved bytes. */
static inline void store_rgb8(__m256i R, __m256i G, __m256i B, uint8_t *out) {
  /* each 128-bit lane: R, G, B of 4 pixels as bytes, then RGBRGB... */
  const __m256i rg = _mm256_packus_epi32(R, G), b0 = _mm256_packus_epi32(B, _mm256_setzero_si256());
  store24(_mm256_packus_epi16(rg, b0), _mm256_setr_epi8(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1, 0, 4,
                                                        8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1),
          out);
}

/* the YUV row: the template frame_yuv_simd.h on 8 lanes */
#define FV __m256i
#define FV_LANES 8
#define FV_FN(name) name##_avx2
#define FV_SET1 _mm256_set1_epi32
#define FV_ZERO _mm256_setzero_si256
#define FV_ADD _mm256_add_epi32
#define FV_SUB _mm256_sub_epi32
#define FV_MULLO _mm256_mullo_epi32
#define FV_SRAI _mm256_srai_epi32
#define FV_SLLI _mm256_slli_epi32
#define FV_SRLI _mm256_srli_epi32
#define FV_AND _mm256_and_si256
#define FV_OR _mm256_or_si256
#define FV_MAX _mm256_max_epi32
#define FV_MIN _mm256_min_epi32
#define FV_MADD16 _mm256_madd_epi16
#define FV_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define FV_LOAD_W16(p) _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define FV_GATHER(row, ofs) _mm256_i32gather_epi32((const int *)(const void *)(row), (ofs), 1)
#define FV_STORE_RGB store_rgb8
#define FV_YUV_REST yk_frame_row_yuv__scalar
#include "frame_yuv_simd.h"

/* pshufb controls, the same in both 128-bit lanes (broadcast), of two pixels per lane (each: tap
 * 0's bpp bytes then tap 1's). yk_frame_pair_tab[bpp - 3][swap] (shared with the AVX-512 variant):
 * the pixel at lane byte 0 as int16 pairs (tap 0, tap 1) of output channels 0..3, ready for
 * vpmaddwd with (ONE - wx, wx); BGR / BGRA swap here; the 4th pair (alpha, or RGB's channel 2
 * again) is computed and dropped. copy_tab[swap][g]: tap 0's channels of the pixel at lane byte 0
 * into dword 2g and of the one at byte 0 + rel (where copy_b_tab[g] marks) into dword 2g + 1.
 * Tables, not built per call: the row function runs per 64-pixel chunk. */
const int8_t yk_frame_pair_tab[2][2][16] = {{{0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, 2, -1, 5, -1},
                                           {2, -1, 5, -1, 1, -1, 4, -1, 0, -1, 3, -1, 2, -1, 5, -1}},
                                          {{0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1},
                                           {2, -1, 6, -1, 1, -1, 5, -1, 0, -1, 4, -1, 3, -1, 7, -1}}};
static const int8_t copy_tab[2][2][16] = {{{0, 1, 2, 2, 0, 1, 2, 2, -1, -1, -1, -1, -1, -1, -1, -1},
                                           {-1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 2, 0, 1, 2, 2}},
                                          {{2, 1, 0, 2, 2, 1, 0, 2, -1, -1, -1, -1, -1, -1, -1, -1},
                                           {-1, -1, -1, -1, -1, -1, -1, -1, 2, 1, 0, 2, 2, 1, 0, 2}}};
static const int8_t copy_b_tab[2][16] = {{0, 0, 0, 0, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
                                         {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1}};

static inline __m256i bcast16(const int8_t *t) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)t));
}

/* One pixel per 128-bit lane from both rows' bytes t0, t1 (pshufb control ctl, weight pairs wk):
 * its 4 channels, horizontal pass by vpmaddwd, vertical h0 * ONE + (h1 - h0) * wy (the same
 * integer as the reference's h0 * (ONE - wy) + h1 * wy, one vpmulld instead of two), rounded. */
static inline __m256i bilerp(__m256i t0, __m256i t1, __m256i ctl, __m256i wk, __m256i wy) {
  const __m256i h0 = _mm256_madd_epi16(_mm256_shuffle_epi8(t0, ctl), wk);
  const __m256i h1 = _mm256_madd_epi16(_mm256_shuffle_epi8(t1, ctl), wk);
  const __m256i s = _mm256_add_epi32(_mm256_slli_epi32(h0, WB), _mm256_mullo_epi32(_mm256_sub_epi32(h1, h0), wy));
  return _mm256_srai_epi32(_mm256_add_epi32(s, _mm256_set1_epi32(1 << (2 * WB - 1))), 2 * WB);
}

/* The same when wy = 0 (the output row on a source row: 1:1, integer downscales): only row 0,
 * (h0 * ONE + 2^(2WB-1)) >> 2WB = (h0 + 2^(WB-1)) >> WB. */
static inline __m256i hlerp(__m256i t0, __m256i ctl, __m256i wk) {
  const __m256i h0 = _mm256_madd_epi16(_mm256_shuffle_epi8(t0, ctl), wk);
  return _mm256_srai_epi32(_mm256_add_epi32(h0, _mm256_set1_epi32(1 << (WB - 1))), WB);
}

/* Weight pairs of pixels p (low lane) and q (high lane) of w, each over the lane's 4 dwords. */
static inline __m256i lanes(__m256i w, int p, int q) {
  return _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(p, p, p, p, q, q, q, q));
}

/* 8 pixels' 4 bytes each (dword k = pixel k) -> 24 bytes RGB. */
static inline void store8(__m256i by, uint8_t *out) {
  store24(by, _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12,
                               13, 14, -1, -1, -1, -1),
          out);
}

static inline __m256i window2(const uint8_t *row, int lo, int hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(row + lo))),
                                 _mm_loadu_si128((const __m128i *)(const void *)(row + hi)), 1);
}

/* Packed rows (a yk_frame_packed_body), 8 pixels at a time, while the loads stay inside the row.
 * Both taps of a pixel are 2 * bpp bytes from s0 * bpp (s1 = s0 + 1: the clamp never applies
 * where the loads stay inside the row). Where pixels 2k and 2k + 1 lie within one 16-byte window
 * (up to a 3x downscale for RGB, 2x for RGBA: the camera and 1:1 cases), each lane is one 16-byte
 * load and the second pixel's pshufb control is shifted by its offset in the window (every weight
 * 0: tap 0's bytes copied by one pshufb); elsewhere one 64-bit gather per pixel and row. Then
 * packs and a pshufb dropping the 4th channel. */
int yk_frame_packed_body__avx2(const yk_frame_row *r, const int32_t *o, const int16_t *wt, int src_w, int n,
                               uint8_t *rgb) {
  const int fmt = r->j->fmt, bpp = fmt == YK_PIX_RGB || fmt == YK_PIX_BGR ? 3 : 4;
  const int swap = yk_frame_swap(r->j);
  const int last = src_w * bpp - 8;   /* the last byte offset an 8-byte gather may start at */
  const int wlast = src_w * bpp - 16; /* ... a 16-byte window */
  const __m256i ctl_a = bcast16(yk_frame_pair_tab[bpp - 3][swap]);
  const __m256i zero_pos = _mm256_cmpeq_epi8(ctl_a, _mm256_set1_epi8(-1));
  const __m256i ctl_b = _mm256_or_si256(_mm256_add_epi8(ctl_a, _mm256_set1_epi8(8)), zero_pos);
  const __m256i far = _mm256_set1_epi32(16 - 2 * bpp), wy = _mm256_set1_epi32(r->wy);
  const int one_row = r->wy == 0;
  const long long *p0 = (const long long *)(const void *)r->p0, *p1 = (const long long *)(const void *)r->p1;
  int i = 0;
  for (; i + 8 <= n && o[i + 7] * bpp <= last; i += 8) {
    const __m256i ofs = _mm256_loadu_si256((const __m256i *)(const void *)(o + i));
    const __m256i b = bpp == 3 ? _mm256_add_epi32(_mm256_add_epi32(ofs, ofs), ofs) : _mm256_slli_epi32(ofs, 2);
    const __m256i wx = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(wt + i)));
    const __m256i w = _mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(ONE), wx), _mm256_slli_epi32(wx, 16));
    /* dword 2k + 1: pixel 2k + 1's byte offset from pixel 2k's */
    const __m256i d = _mm256_sub_epi32(b, _mm256_slli_si256(b, 4));
    __m256i by;
    if (o[i + 7] * bpp <= wlast && !(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(d, far))) & 0xAA)) {
      /* lanes: pixels 0,1 | 4,5 and 2,3 | 6,7 */
      const __m256i t0[2] = {window2(r->p0, o[i] * bpp, o[i + 4] * bpp),
                             window2(r->p0, o[i + 2] * bpp, o[i + 6] * bpp)};
      __m256i rel[2];
      for (int g = 0; g < 2; g++) rel[g] = _mm256_shuffle_epi8(d, _mm256_set1_epi8((char)(4 + 8 * g)));
      if (one_row && _mm256_testz_si256(wx, wx)) {
        __m256i c[2];
        for (int g = 0; g < 2; g++) {
          const __m256i cc = bcast16(copy_tab[swap][g]);
          const __m256i ctl = _mm256_add_epi8(cc, _mm256_and_si256(rel[g], bcast16(copy_b_tab[g])));
          c[g] = _mm256_shuffle_epi8(t0[g], _mm256_or_si256(ctl, _mm256_cmpeq_epi8(cc, _mm256_set1_epi8(-1))));
        }
        by = _mm256_or_si256(c[0], c[1]);
      } else {
        __m256i v[4]; /* pixels 0|4, 1|5, 2|6, 3|7 (low | high lane) */
        for (int g = 0; g < 2; g++) {
          const __m256i ctl = _mm256_or_si256(_mm256_add_epi8(ctl_a, rel[g]), zero_pos);
          const __m256i wa = lanes(w, 2 * g, 2 * g + 4), wb = lanes(w, 2 * g + 1, 2 * g + 5);
          if (one_row) {
            v[2 * g] = hlerp(t0[g], ctl_a, wa);
            v[2 * g + 1] = hlerp(t0[g], ctl, wb);
          } else {
            const __m256i t1 = window2(r->p1, o[i + 2 * g] * bpp, o[i + 2 * g + 4] * bpp);
            v[2 * g] = bilerp(t0[g], t1, ctl_a, wa, wy);
            v[2 * g + 1] = bilerp(t0[g], t1, ctl, wb, wy);
          }
        }
        by = _mm256_packus_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
      }
    } else {
      const __m128i b_lo = _mm256_castsi256_si128(b), b_hi = _mm256_extracti128_si256(b, 1);
      /* lanes: pixels 0,1 | 2,3 and 4,5 | 6,7 */
      const __m256i g0[2] = {_mm256_i32gather_epi64(p0, b_lo, 1), _mm256_i32gather_epi64(p0, b_hi, 1)};
      __m256i v[4]; /* pixels 0|2, 1|3, 4|6, 5|7 */
      if (one_row) {
        for (int k = 0; k < 4; k++) {
          const int p = 4 * (k >> 1) + (k & 1);
          v[k] = hlerp(g0[k >> 1], k & 1 ? ctl_b : ctl_a, lanes(w, p, p + 2));
        }
      } else {
        const __m256i g1[2] = {_mm256_i32gather_epi64(p1, b_lo, 1), _mm256_i32gather_epi64(p1, b_hi, 1)};
        for (int k = 0; k < 4; k++) {
          const int g = k >> 1, q = k & 1, p = 4 * g + q;
          v[k] = bilerp(g0[g], g1[g], q ? ctl_b : ctl_a, lanes(w, p, p + 2), wy);
        }
      }
      /* dwords 0 1 4 5 | 2 3 6 7 -> pixel order */
      by = _mm256_permutevar8x32_epi32(
          _mm256_packus_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3])),
          _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
    }
    store8(by, rgb + 3 * i);
  }
  return i;
}

void yk_frame_row_packed__avx2(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const int i = yk_frame_packed_body__avx2(r, r->j->x.ofs + x, r->j->x.wt + x, r->j->src_w, n, rgb);
  if (i < n) yk_frame_packed_tail(r, x + i, n - i, rgb + 3 * i, yk_frame_packed_body__avx2);
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
    for (; i < m; i++) o[i] = j->lut_i8[rgb[i]]; /* every channel's table is this one */
    return;
  }
  if (j->out_i8) {
    yk_frame_store__scalar(j, at, rgb, n);
    return;
  }
  float *o = (float *)j->dst + at;
  const int m = 3 * n;
  /* element i reads table 256 * (i % 3): runs of 8 elements start at channel 0, 2, 1, 0, ... */
  const __m256i chan[3] = {_mm256_setr_epi32(0, 256, 512, 0, 256, 512, 0, 256),
                           _mm256_setr_epi32(512, 0, 256, 512, 0, 256, 512, 0),
                           _mm256_setr_epi32(256, 512, 0, 256, 512, 0, 256, 512)};
  int i = 0, ph = 0;
  for (; i + 8 <= m; i += 8, ph = ph == 2 ? 0 : ph + 1) {
    const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(rgb + i)));
    _mm256_storeu_ps(o + i, _mm256_i32gather_ps(j->lut_f32, _mm256_add_epi32(idx, chan[ph]), 4));
  }
  for (; i < m; i++) o[i] = j->lut_f32[256 * (i % 3) + rgb[i]];
}

void yk_frame_rows__avx2(const yk_frame_job *j, int r0, int r1) {
  static const yk_frame_ops ops = {yk_frame_row_packed__avx2, yk_frame_row_gray__scalar, yk_frame_row_yuv__avx2,
                                   yk_frame_store__avx2};
  yk_frame_drive(j, r0, r1, &ops);
}
