/* frame_rows_avx512.c — AVX-512 variant of yk_frame_rows, bit-exact to frame_rows_scalar.c: the
 * YUV template frame_yuv_simd.h on 16 pixels at a time, narrowed with vpmovdb and
 * interleaved by three byte shuffles per 16 output bytes. Groups whose taps reach the last bytes
 * of a row go to the AVX2 row (8 pixels, then scalar). Packed rows that blend two source rows:
 * the AVX2 variant's 16-byte windows, 16 pixels at a time (packed_body); the other packed rows,
 * the stores and the gray layout are the AVX2 / scalar variant's. */
#include <immintrin.h>

#include "frame_rows_internal.h"

#define WB YK_FRAME_WBITS
#define ONE (1 << WB)

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

/* 16 pixels' R, G, B (int32 lanes of 0..255) narrowed with vpmovdb, then interleaved. */
static inline void store_rgb16(__m512i R, __m512i G, __m512i B, uint8_t *out) {
  interleave16(_mm512_cvtepi32_epi8(R), _mm512_cvtepi32_epi8(G), _mm512_cvtepi32_epi8(B), out);
}

/* the YUV row: the template frame_yuv_simd.h on 16 lanes (the last pixels: the AVX2 row) */
#define FV __m512i
#define FV_LANES 16
#define FV_FN(name) name##_avx512
#define FV_SET1 _mm512_set1_epi32
#define FV_ZERO _mm512_setzero_si512
#define FV_ADD _mm512_add_epi32
#define FV_SUB _mm512_sub_epi32
#define FV_MULLO _mm512_mullo_epi32
#define FV_SRAI _mm512_srai_epi32
#define FV_SLLI _mm512_slli_epi32
#define FV_SRLI _mm512_srli_epi32
#define FV_AND _mm512_and_si512
#define FV_OR _mm512_or_si512
#define FV_MAX _mm512_max_epi32
#define FV_MIN _mm512_min_epi32
#define FV_MADD16 _mm512_madd_epi16
#define FV_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define FV_LOAD_W16(p) _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define FV_GATHER(row, ofs) _mm512_i32gather_epi32((ofs), (row), 1)
#define FV_STORE_RGB store_rgb16
#define FV_YUV_REST yk_frame_row_yuv__avx2
#include "frame_yuv_simd.h"

/* Four 16-byte windows, one a lane. */
static inline __m512i window4(const uint8_t *row, const int32_t *o, int bpp) {
  __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)(row + o[0] * bpp)));
  v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(row + o[4] * bpp)), 1);
  v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(row + o[8] * bpp)), 2);
  return _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(row + o[12] * bpp)), 3);
}

static inline __m512i bilerp(__m512i t0, __m512i t1, __m512i ctl, __m512i wk, __m512i wy) {
  const __m512i h0 = _mm512_madd_epi16(_mm512_shuffle_epi8(t0, ctl), wk);
  const __m512i h1 = _mm512_madd_epi16(_mm512_shuffle_epi8(t1, ctl), wk);
  const __m512i s = _mm512_add_epi32(_mm512_slli_epi32(h0, WB), _mm512_mullo_epi32(_mm512_sub_epi32(h1, h0), wy));
  return _mm512_srai_epi32(_mm512_add_epi32(s, _mm512_set1_epi32(1 << (2 * WB - 1))), 2 * WB);
}

/* Packed rows (a yk_frame_packed_body): the AVX2 variant's 16-byte-window path on 16 pixels (lane
 * L of window set g: pixels 4L + 2g and 4L + 2g + 1, so the packs leave pixel order) for rows
 * that blend two source rows (wy != 0); one-row rows (1:1 and integer downscales: near memory
 * speed already), the rest of a row from its first group too wide for the windows (downscales
 * over 3x RGB / 2x RGBA), and the last pixels are the AVX2 body's. */
static int packed_body(const yk_frame_row *r, const int32_t *o, const int16_t *wt, int src_w, int n, uint8_t *rgb) {
  const int fmt = r->j->fmt, bpp = fmt == YK_PIX_RGB || fmt == YK_PIX_BGR ? 3 : 4;
  /* decided before any 512-bit work (a row that would only test its first group and hand the rest
   * over was slower than the AVX2 body alone): one-row rows, short runs, a first group whose pixel
   * pairs do not fit the windows */
  int fit = r->wy != 0 && n >= 16;
  for (int k = 0; fit && k < 16; k += 2) fit = (o[k + 1] - o[k]) * bpp <= 16 - 2 * bpp;
  if (!fit) return yk_frame_packed_body__avx2(r, o, wt, src_w, n, rgb);
  const int swap = yk_frame_swap(r->j);
  const int wlast = src_w * bpp - 16; /* the last byte offset a 16-byte window may start at */
  const __m512i ctl_a =
      _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)yk_frame_pair_tab[bpp - 3][swap]));
  const __m512i zero_pos = _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(ctl_a, _mm512_set1_epi8(-1)));
  const __m512i far = _mm512_set1_epi32(16 - 2 * bpp), wy = _mm512_set1_epi32(r->wy);
  const __m512i drop = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));
  const __m512i pack = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0, 0, 0, 0);
  int i = 0;
  for (; i + 16 <= n && o[i + 15] * bpp <= wlast; i += 16) {
    const __m512i ofs = _mm512_loadu_si512((const void *)(o + i));
    const __m512i b = bpp == 3 ? _mm512_add_epi32(_mm512_add_epi32(ofs, ofs), ofs) : _mm512_slli_epi32(ofs, 2);
    const __m512i d = _mm512_sub_epi32(b, _mm512_bslli_epi128(b, 4)); /* dword 2k + 1: from pixel 2k */
    if (_mm512_cmpgt_epi32_mask(d, far) & 0xAAAA) break;
    const __m512i wx = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(wt + i)));
    const __m512i w = _mm512_or_si512(_mm512_sub_epi32(_mm512_set1_epi32(ONE), wx), _mm512_slli_epi32(wx, 16));
    __m512i v[4]; /* lane L: pixels 4L | 4L + 1 | 4L + 2 | 4L + 3 */
    for (int g = 0; g < 2; g++) {
      const __m512i t0 = window4(r->p0, o + i + 2 * g, bpp), t1 = window4(r->p1, o + i + 2 * g, bpp);
      const __m512i rel = _mm512_shuffle_epi8(d, _mm512_set1_epi8((char)(4 + 8 * g)));
      const __m512i ctl = _mm512_or_si512(_mm512_add_epi8(ctl_a, rel), zero_pos);
      const __m512i pa = _mm512_setr_epi32(2 * g, 2 * g, 2 * g, 2 * g, 4 + 2 * g, 4 + 2 * g, 4 + 2 * g, 4 + 2 * g,
                                           8 + 2 * g, 8 + 2 * g, 8 + 2 * g, 8 + 2 * g, 12 + 2 * g, 12 + 2 * g,
                                           12 + 2 * g, 12 + 2 * g);
      v[2 * g] = bilerp(t0, t1, ctl_a, _mm512_permutexvar_epi32(pa, w), wy);
      v[2 * g + 1] = bilerp(t0, t1, ctl, _mm512_permutexvar_epi32(_mm512_add_epi32(pa, _mm512_set1_epi32(1)), w), wy);
    }
    const __m512i by = _mm512_packus_epi16(_mm512_packs_epi32(v[0], v[1]), _mm512_packs_epi32(v[2], v[3]));
    _mm512_mask_storeu_epi32(rgb + 3 * i, 0x0FFF, _mm512_permutexvar_epi32(pack, _mm512_shuffle_epi8(by, drop)));
  }
  /* the rest of the row (a group too wide for the windows: the ratio is the same along the row) */
  return i + yk_frame_packed_body__avx2(r, o + i, wt + i, src_w, n - i, rgb + 3 * i);
}

void yk_frame_row_packed__avx512(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  if (r->wy == 0) {
    yk_frame_row_packed__avx2(r, x, n, rgb);
    return;
  }
  const int i = packed_body(r, r->j->x.ofs + x, r->j->x.wt + x, r->j->src_w, n, rgb);
  if (i < n) yk_frame_packed_tail(r, x + i, n - i, rgb + 3 * i, packed_body);
}

void yk_frame_rows__avx512(const yk_frame_job *j, int r0, int r1) {
  static const yk_frame_ops ops = {yk_frame_row_packed__avx512, yk_frame_row_gray__scalar, yk_frame_row_yuv__avx512,
                                   yk_frame_store__avx2};
  yk_frame_drive(j, r0, r1, &ops);
}
