/* qconv_nhwc_planar_avx512vnni.c — int8 NHWC convolution on AVX-512 VNNI with output pixels in
 * the lanes: the narrow layers (cout <= 32, stride 1, cin a multiple of 4: YOLO's 160x160 16 -> 8
 * and 8 -> 16 3x3) that the channels-in-lanes kernel (qconv_nhwc_avx512vnni.c) runs at a
 * quarter of the VNNI peak: a cout-8 column leaves half of every zmm empty, and a short K (72,
 * 144) does not pay for the per-pixel segment pointers, the sign flip of every broadcast and the
 * per-tile setup.
 *
 * Here each input row the kernel reads is rewritten once per call into a ring of kh rows in
 * planar form: for each group g of 4 channels, one plane of (pixel, 4 bytes) dwords, sign bit
 * flipped (x + 128 as u8), with pl pixels of x_zp before the row and x_zp after it. The 16
 * output pixels ox..ox+15 of tap (ky, kx) and group g are then one 64-byte load at ring row ky,
 * plane g, pixel ox + kx: no pointers, no edge cases, no flip in the K loop. One vpdpbusd per
 * output channel takes that load and the channel's 4 weights broadcast (16 pixels x 4 MACs):
 * every lane busy for any cout. Blocks: 2 x 16 pixels x 8 channels (a column of <= 8 live
 * channels) or 16 pixels x 16 channels.
 *
 * The accumulators come out channel-major (a zmm = 16 pixels of one channel): requantized as
 * in every variant (yk_avx512_requant16 with the channel's scale broadcast, yk_avx512_pack64),
 * then byte permutes (vpermt2b, VBMI) turn them into NHWC pixels before the LUT and the store.
 *
 * Packed layout: the AVX-512 VNNI one with one segment per tap (layout .taps): column b of 16
 * channels, tap s = ky * kw + kx, group g, lane l: the 4 weights of channel 16 b + l for
 * channels 4 g .. 4 g + 3 of that tap; bias with (128 + x_zp) * sum(w) folded.
 */
#include <immintrin.h>
#include <string.h>

#include "qconv_out_avx512.h"
#include "qconv_segments.h"
#include "yk_avx512_inline.h"
#include "yk_qconv.h"

#define PL_RING_BYTES 49152 /* kh rows + a padding row of planes, on the stack */
#define PL_KH_MAX 7

/* Pixels a ring row holds: the input row behind pl pixels, and every pixel the last (32-pixel)
 * block of output reads. */
static int ring_pixels(const yk_qconv *c) {
  int need = (c->ow + 31) / 32 * 32 + c->kw - 1;
  if (need < c->pad_l + c->w) need = c->pad_l + c->w;
  return (need + 15) / 16 * 16;
}

static size_t ring_row_bytes(const yk_qconv *c) { return (size_t)ring_pixels(c) * (size_t)c->cin; }

void yk_qconv_blocking__avx512vnni_planar(int cout, int *mr, int *nz) {
  (void)cout;
  *mr = 16, *nz = 1;
}

int yk_qconv_planar_fits(const yk_qconv *c) {
  if (c->sh != 1 || c->sw != 1 || c->dh != 1 || c->dw != 1 || c->cin % 4 != 0 || c->cin > 64 ||
      c->cout > 32 || c->out_f32 || c->kh > PL_KH_MAX || c->kh * c->kw > NSEG_MAX || c->pad_l > c->kw - 1 ||
      c->pad_l < 0 || c->w > 4096)
    return 0;
  return ring_row_bytes(c) * (size_t)(c->kh + 1) <= PL_RING_BYTES;
}

size_t yk_qconv_packed_bytes__avx512vnni_planar(yk_qconv *c) {
  if (c->variant != YK_QCONV_AVX512VNNI_PLANAR || c->mr != 16 || c->nz != 1 || !yk_qconv_planar_fits(c))
    return 0;
  return yk_qconv_packed_size(c);
}

/* One ring row: input row `row` (w pixels, xs bytes apart) as cin / 4 planes of rp dwords. */
static void fill_row(const yk_qconv *c, const int8_t *row, uint8_t *dst, int rp, uint32_t padv) {
  const int G = c->cin / 4, w = c->w, pl = c->pad_l;
  const int xs = (int)yk_qconv_xs(c);
  const __m512i flip = _mm512_set1_epi32((int)0x80808080u), pad = _mm512_set1_epi32((int)padv);
  const __m512i step = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                          _mm512_set1_epi32(xs));
  for (int g = 0; g < G; g++) {
    uint8_t *pd = dst + (size_t)g * rp * 4;
    for (int p = 0; p < pl; p++) memcpy(pd + 4 * p, &padv, 4);
    const __m512i idx = _mm512_add_epi32(step, _mm512_set1_epi32(4 * g));
    int p = 0;
    if (G == 2 && xs == 8) { /* dense 8 channels: even / odd dwords of two loads */
      const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
      const __m512i sel = _mm512_add_epi32(ev, _mm512_set1_epi32(g));
      for (; p + 16 <= w; p += 16) {
        const __m512i a = _mm512_loadu_si512(row + (size_t)p * 8), b = _mm512_loadu_si512(row + (size_t)p * 8 + 64);
        _mm512_storeu_si512(pd + 4 * (pl + p), _mm512_xor_si512(_mm512_permutex2var_epi32(a, sel, b), flip));
      }
    } else if (G == 4 && xs == 16) { /* dense 16 channels: dword g of each pixel, four loads */
      const __m512i q = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
      const __m512i sel = _mm512_add_epi32(q, _mm512_set1_epi32(g));
      for (; p + 16 <= w; p += 16) {
        const int8_t *s = row + (size_t)p * 16;
        const __m512i lo = _mm512_permutex2var_epi32(_mm512_loadu_si512(s), sel, _mm512_loadu_si512(s + 64));
        const __m512i hi = _mm512_permutex2var_epi32(_mm512_loadu_si512(s + 128), sel, _mm512_loadu_si512(s + 192));
        const __m512i v = _mm512_shuffle_i64x2(lo, hi, 0x44); /* lo's pixels 0-7, hi's 8-15 */
        _mm512_storeu_si512(pd + 4 * (pl + p), _mm512_xor_si512(v, flip));
      }
    }
    for (; p < w; p += 16) {
      const __mmask16 m = w - p >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (w - p)) - 1);
      const __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, idx, row + (size_t)p * xs, 1);
      _mm512_mask_storeu_epi32(pd + 4 * (pl + p), m, _mm512_xor_si512(v, flip));
    }
    for (int q = pl + w; q < rp; q += 16) {
      const int n = rp - q;
      _mm512_mask_storeu_epi32(pd + 4 * q, n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1), pad);
    }
  }
}

typedef struct pl_block {
  const uint8_t *rows[PL_KH_MAX]; /* ring rows of ky = 0..kh-1 (the padding row where outside) */
  size_t plane;                   /* bytes from one plane to the next */
  int kh, kw, G;
  const int8_t *w;   /* the column's packed weights */
  const int32_t *bias;
  const float *scale;
  int8_t *y; /* pixel ox0's first channel of this column */
  size_t ys;
  int nch, npx; /* channels of the column to store, pixels of the block to store */
  __m512 hi;
  __m512i zp16;
  const yk_lut4 *lut;
} pl_block;

/* Byte permutes from two packed vectors (byte 16 L + 4 j + e: channel j, + 4 for the second
 * vector, of pixel 4 L + e) to 8 pixels x 8 channels (byte 8 p + c): pixels 0-7 (half 0) or
 * 8-15. Entry 8 p + c = (c >= 4 ? 64 : 0) + 16 (px / 4) + 4 (c % 4) + px % 4, px = 8 half + p. */
#define PX8(px) 16 * ((px) / 4) + (px) % 4, 16 * ((px) / 4) + 4 + (px) % 4, 16 * ((px) / 4) + 8 + (px) % 4, \
                16 * ((px) / 4) + 12 + (px) % 4, 64 + 16 * ((px) / 4) + (px) % 4,                       \
                64 + 16 * ((px) / 4) + 4 + (px) % 4, 64 + 16 * ((px) / 4) + 8 + (px) % 4,              \
                64 + 16 * ((px) / 4) + 12 + (px) % 4
static const uint8_t k_px8[2][64] __attribute__((aligned(64))) = {
    {PX8(0), PX8(1), PX8(2), PX8(3), PX8(4), PX8(5), PX8(6), PX8(7)},
    {PX8(8), PX8(9), PX8(10), PX8(11), PX8(12), PX8(13), PX8(14), PX8(15)}};
#undef PX8

static inline __m512i pixels8(__m512i b0, __m512i b1, int half) {
  return _mm512_permutex2var_epi8(b0, _mm512_load_si512(k_px8[half]), b1);
}

/* Store pixel-major bytes: v holds pixels 64 / cw consecutive pixels of cw channels (cw 8 or 16)
 * starting at pixel p0 of the block. */
static inline void store_px(const pl_block *b, __m512i v, int p0, int cw) {
  const int per = 64 / cw;
  int n = b->npx - p0;
  if (n <= 0) return;
  if (n > per) n = per;
  if (b->ys == (size_t)cw && b->nch == cw) {
    _mm512_mask_storeu_epi8(b->y + (size_t)p0 * cw, n >= per ? ~(__mmask64)0 : (((__mmask64)1 << (n * cw)) - 1), v);
    return;
  }
  /* a channel range of a wider tensor, or fewer channels: pixel by pixel, masked */
  const __mmask16 m = (__mmask16)((1u << b->nch) - 1);
  int8_t *yo = b->y + (size_t)p0 * b->ys;
#pragma GCC unroll 4
  for (int k = 0; k < 4; k++) {
    const __m128i q = k == 0   ? _mm512_castsi512_si128(v)
                      : k == 1 ? _mm512_extracti32x4_epi32(v, 1)
                      : k == 2 ? _mm512_extracti32x4_epi32(v, 2)
                               : _mm512_extracti32x4_epi32(v, 3);
    if (cw == 16) {
      if (k >= n) break;
      _mm_mask_storeu_epi8(yo + (size_t)k * b->ys, m, q);
    } else {
      if (2 * k >= n) break;
      _mm_mask_storeu_epi8(yo + (size_t)(2 * k) * b->ys, m, q);
      if (2 * k + 1 < n) _mm_mask_storeu_epi8(yo + (size_t)(2 * k + 1) * b->ys, m, _mm_unpackhi_epi64(q, q));
    }
  }
}

static inline __m512i lut_maybe(const pl_block *b, __m512i v) { return b->lut ? lut64_loaded(b->lut, v) : v; }

/* acc += x . w in place: gcc 12 copies every accumulator of _mm512_dpbusd_epi32 through a fresh
 * register each step and spills a third of them (measured 2.5x slower here); the asm ties them. */
static inline __attribute__((always_inline)) __m512i dpbusd(__m512i acc, __m512i x, __m512i w) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));
  return acc;
}
/* The same with the 4 weight bytes at p broadcast from memory. */
static inline __attribute__((always_inline)) __m512i dpbusd_bcst(__m512i acc, __m512i x, const int8_t *p) {
  __asm__("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(x), "m"(*(const char(*)[4])p));
  return acc;
}

static inline __attribute__((always_inline)) void block_kernel(const pl_block *b, const int ox0, const int NP,
                                                               const int NC) {
  __m512i acc[2][16];
#pragma GCC unroll 16
  for (int k = 0; k < NC; k++) {
    const __m512i bz = _mm512_set1_epi32(b->bias[k]);
#pragma GCC unroll 2
    for (int p = 0; p < NP; p++) acc[p][k] = bz;
  }
  const int8_t *w = b->w;
  for (int ky = 0; ky < b->kh; ky++) {
    const uint8_t *rp = b->rows[ky] + (size_t)ox0 * 4;
    for (int kx = 0; kx < b->kw; kx++, rp += 4) {
      const uint8_t *xp = rp;
      for (int g = 0; g < b->G; g++, xp += b->plane, w += 64) {
        __m512i xv[2];
#pragma GCC unroll 2
        for (int p = 0; p < NP; p++) xv[p] = _mm512_loadu_si512(xp + 64 * p);
#pragma GCC unroll 16
        for (int k = 0; k < NC; k++) {
          if (NP == 1) {
            acc[0][k] = dpbusd_bcst(acc[0][k], xv[0], w + 4 * k);
            continue;
          }
          int32_t wk;
          memcpy(&wk, w + 4 * k, 4);
          const __m512i wv = _mm512_set1_epi32(wk);
#pragma GCC unroll 2
          for (int p = 0; p < NP; p++) acc[p][k] = dpbusd(acc[p][k], xv[p], wv);
        }
      }
    }
  }
#pragma GCC unroll 2
  for (int p = 0; p < NP; p++) {
    __m512i q[16];
#pragma GCC unroll 16
    for (int k = 0; k < NC; k++) q[k] = yk_avx512_requant16(acc[p][k], _mm512_set1_ps(b->scale[k]), b->hi);
    if (NC == 8) {
      const __m512i b0 = yk_avx512_pack64(q[0], q[1], q[2], q[3], b->zp16);
      const __m512i b1 = yk_avx512_pack64(q[4], q[5], q[6], q[7], b->zp16);
      store_px(b, lut_maybe(b, pixels8(b0, b1, 0)), 16 * p, 8);
      store_px(b, lut_maybe(b, pixels8(b0, b1, 1)), 16 * p + 8, 8);
    } else {
      const __m512i b0 = yk_avx512_pack64(q[0], q[1], q[2], q[3], b->zp16);
      const __m512i b1 = yk_avx512_pack64(q[4], q[5], q[6], q[7], b->zp16);
      const __m512i b2 = yk_avx512_pack64(q[8], q[9], q[10], q[11], b->zp16);
      const __m512i b3 = yk_avx512_pack64(q[12], q[13], q[14], q[15], b->zp16);
      const __m512i lo8 = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), hi8 = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
#pragma GCC unroll 2
      for (int h = 0; h < 2; h++) {
        const __m512i u = pixels8(b0, b1, h), v = pixels8(b2, b3, h); /* channels 0-7 / 8-15 */
        store_px(b, lut_maybe(b, _mm512_permutex2var_epi64(u, lo8, v)), 8 * h, 16);
        store_px(b, lut_maybe(b, _mm512_permutex2var_epi64(u, hi8, v)), 8 * h + 4, 16);
      }
    }
  }
}

static __attribute__((noinline)) void block_2x8(const pl_block *b, int ox0) { block_kernel(b, ox0, 2, 8); }
static __attribute__((noinline)) void block_1x16(const pl_block *b, int ox0) { block_kernel(b, ox0, 1, 16); }

void yk_qconv_rows__avx512vnni_planar(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  const yk_qconv_layout *L = yk_qconv_layout_of(c->variant);
  const uint8_t *base = c->packed;
  const int cpad = qconv_cpad(c, L), cols = cpad / 16, G = c->cin / 4, rpx = ring_pixels(c);
  const int32_t *bias = (const int32_t *)base;
  const float *scale = (const float *)(base + align64((size_t)cpad * 4));
  const int8_t *wbase = (const int8_t *)(base + qconv_weights_offset(c, L));
  const size_t bstride = qconv_block_stride(c, L), ys = yk_qconv_ys(c), rowb = ring_row_bytes(c);
  const size_t rowin = (size_t)c->w * yk_qconv_xs(c);
  const uint32_t padv = 0x01010101u * (uint8_t)(c->x_zp ^ 0x80);
  _Alignas(64) uint8_t ring[PL_RING_BYTES];
  uint8_t *padrow = ring + (size_t)c->kh * rowb;
  int pad_filled = 0;
  long tag[PL_KH_MAX];
  for (int k = 0; k < c->kh; k++) tag[k] = -1;
  yk_lut4 lut;
  if (c->lut) lut = yk_lut4_load(c->lut);
  pl_block b = {.plane = (size_t)rpx * 4, .kh = c->kh, .kw = c->kw, .G = G, .ys = ys,
                .hi = _mm512_set1_ps((float)(127 - c->y_zp)), .zp16 = _mm512_set1_epi16((short)c->y_zp),
                .lut = c->lut ? &lut : NULL};
  for (int r = row0; r < row1; r++) {
    const int n = r / c->oh, oy = r % c->oh;
    for (int ky = 0; ky < c->kh; ky++) {
      const int iy = oy - c->pad_t + ky;
      if (iy < 0 || iy >= c->h) {
        if (!pad_filled) {
          for (size_t k = 0; k < rowb / 4; k++) memcpy(padrow + 4 * k, &padv, 4);
          pad_filled = 1;
        }
        b.rows[ky] = padrow;
        continue;
      }
      const long fl = (long)n * c->h + iy;
      const int slot = iy % c->kh; /* kh consecutive rows: distinct slots */
      uint8_t *dst = ring + (size_t)slot * rowb;
      if (tag[slot] != fl) {
        fill_row(c, x + (size_t)fl * rowin, dst, rpx, padv);
        tag[slot] = fl;
      }
      b.rows[ky] = dst;
    }
    int8_t *yrow = (int8_t *)y + (size_t)r * c->ow * ys;
    for (int col = 0; col < cols; col++) {
      const int nch = c->cout - 16 * col < 16 ? c->cout - 16 * col : 16;
      b.w = wbase + (size_t)col * bstride;
      b.bias = bias + 16 * col;
      b.scale = scale + 16 * col;
      b.nch = nch;
      if (nch <= 8) {
        for (int ox0 = 0; ox0 < c->ow; ox0 += 32) {
          b.y = yrow + (size_t)ox0 * ys + 16 * col;
          b.npx = c->ow - ox0 < 32 ? c->ow - ox0 : 32;
          block_2x8(&b, ox0);
        }
      } else {
        for (int ox0 = 0; ox0 < c->ow; ox0 += 16) {
          b.y = yrow + (size_t)ox0 * ys + 16 * col;
          b.npx = c->ow - ox0 < 16 ? c->ow - ox0 : 16;
          block_1x16(&b, ox0);
        }
      }
    }
  }
}
