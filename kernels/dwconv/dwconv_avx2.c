/* dwconv_avx2.c — depthwise 3x3 int8 over output rows, AVX2, 16 channels per block.
 * Same scheme as the AVX-512 variant (see dwconv_avx512.h and yk_dwconv.h): rows
 * widened to int16 (padding = x_zp, folded into the bias), interleaved in pairs, vpmaddwd for two taps, sliding columns,
 * two output rows per pass at stride 1. A channel tail (< 16) goes through a zeroed 16-byte
 * buffer (AVX2 has no masked byte loads); the LUT runs over each finished output row. */
#include <string.h>

#include "yk_avx2_inline.h"
#include "yk_dwconv.h"
#include "yk_variants.h"

#define CB 16

typedef struct col4 {
  __m256i p01lo, p01hi, p23lo, p23hi;
} col4;

typedef struct dw_ctx {
  const int8_t *r[4]; /* input rows at the block's first channel, NULL outside the image */
  int w, c, nc;       /* nc: channels in this block (< CB: tail) */
  __m256i xzp; /* int16 x_zp: the value of padding */
} dw_ctx;

static inline __m256i ld_row(const dw_ctx *k, const int8_t *row, int ix) {
  if (!row) return k->xzp;
  const int8_t *src = row + (size_t)ix * (size_t)k->c;
  __m128i b;
  if (k->nc == CB) {
    b = _mm_loadu_si128((const __m128i *)(const void *)src);
  } else {
    int8_t tmp[CB] = {0};
    memcpy(tmp, src, (size_t)k->nc);
    b = _mm_loadu_si128((const __m128i *)(const void *)tmp);
  }
  return _mm256_cvtepi8_epi16(b);
}

static inline col4 ld_col(const dw_ctx *k, int ix) {
  col4 o;
  if (ix < 0 || ix >= k->w) {
    o.p01lo = o.p01hi = o.p23lo = o.p23hi = k->xzp;
    return o;
  }
  const __m256i a = ld_row(k, k->r[0], ix), b = ld_row(k, k->r[1], ix);
  const __m256i c = ld_row(k, k->r[2], ix), d = ld_row(k, k->r[3], ix);
  o.p01lo = _mm256_unpacklo_epi16(a, b);
  o.p01hi = _mm256_unpackhi_epi16(a, b);
  o.p23lo = _mm256_unpacklo_epi16(c, d);
  o.p23hi = _mm256_unpackhi_epi16(c, d);
  return o;
}

static inline __m256i ldw(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }

static inline void dot3(const col4 *c0, const col4 *c1, const col4 *c2, const int32_t *ws,
                        const int32_t *bias, __m256i *lo, __m256i *hi) {
  const col4 *col[3] = {c0, c1, c2};
  __m256i a = ldw(bias), b = ldw(bias + CB / 2);
  for (int kx = 0; kx < 3; kx++) {
    const int32_t *w01 = ws + kx * CB, *w23 = ws + 3 * CB + kx * CB;
    a = _mm256_add_epi32(a, _mm256_madd_epi16(col[kx]->p01lo, ldw(w01)));
    b = _mm256_add_epi32(b, _mm256_madd_epi16(col[kx]->p01hi, ldw(w01 + CB / 2)));
    a = _mm256_add_epi32(a, _mm256_madd_epi16(col[kx]->p23lo, ldw(w23)));
    b = _mm256_add_epi32(b, _mm256_madd_epi16(col[kx]->p23hi, ldw(w23 + CB / 2)));
  }
  *lo = a;
  *hi = b;
}

typedef struct dw_out {
  __m256 lo, hi; /* clamp bounds -128 - y_zp, 127 - y_zp */
  __m256i yzp;   /* int16 */
} dw_out;

static inline __m256i requant(const dw_out *o, __m256i acc, const float *scale) {
  __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_loadu_ps(scale));
  v = _mm256_min_ps(_mm256_max_ps(v, o->lo), o->hi);
  return _mm256_cvtps_epi32(v);
}

static inline void store(const dw_out *o, __m256i lo, __m256i hi, const float *scale, int8_t *dst,
                         int nc) {
  /* packs_epi32 undoes the unpack's channel interleave: int16 lanes come out in order */
  const __m256i q = _mm256_add_epi16(
      _mm256_packs_epi32(requant(o, lo, scale), requant(o, hi, scale + CB / 2)), o->yzp);
  const __m128i r = _mm_packs_epi16(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  if (nc == CB) {
    _mm_storeu_si128((__m128i *)(void *)dst, r);
  } else {
    int8_t tmp[CB];
    _mm_storeu_si128((__m128i *)(void *)tmp, r);
    memcpy(dst, tmp, (size_t)nc);
  }
}

void yk_dwconv_rows__avx2(const yk_dwconv *d, const int8_t *x, int8_t *y, int row0, int row1) {
  const yk_dw_params *p = &d->p;
  const int C = p->c, S = p->stride;
  const size_t rowb = (size_t)p->w * (size_t)C, orowb = (size_t)p->ow * (size_t)C;
  dw_out o;
  o.lo = _mm256_set1_ps((float)(-128 - p->y_zp));
  o.hi = _mm256_set1_ps((float)(127 - p->y_zp));
  o.yzp = _mm256_set1_epi16((short)p->y_zp);
  dw_ctx k;
  k.w = p->w;
  k.c = C;
  k.xzp = _mm256_set1_epi16((short)p->x_zp);
  for (int row = row0; row < row1;) {
    const int b = row / p->oh, oy = row % p->oh;
    const int two = S == 1 && row + 1 < row1 && oy + 1 < p->oh;
    const int8_t *img = x + (size_t)b * (size_t)p->h * rowb;
    const int iy0 = oy * S - p->pad_t;
    int8_t *out0 = y + (size_t)row * orowb, *out1 = out0 + orowb;
    const int8_t *rp[4];
    for (int t = 0; t < 4; t++) {
      const int iy = iy0 + t;
      rp[t] = (t < 3 + two && iy >= 0 && iy < p->h) ? img + (size_t)iy * rowb : NULL;
    }
    const int32_t *pk = d->packed;
    for (int c0 = 0; c0 < C; c0 += CB, pk += YK_DWCONV_BLOCK_I32(CB)) {
      k.nc = C - c0 >= CB ? CB : C - c0;
      for (int t = 0; t < 4; t++) k.r[t] = rp[t] ? rp[t] + c0 : NULL;
      const float *scale = (const float *)(const void *)(pk + CB);
      const int32_t *wtop = pk + 2 * CB, *wbot = pk + 2 * CB + 6 * CB;
      const int ix0 = -p->pad_l;
      col4 A = ld_col(&k, ix0), Bc = A, Cc = A;
      if (S == 1) Bc = ld_col(&k, ix0 + 1);
      for (int ox = 0; ox < p->ow; ox++) {
        if (S == 1) {
          Cc = ld_col(&k, ix0 + ox + 2);
        } else {
          Bc = ld_col(&k, ix0 + 2 * ox + 1);
          Cc = ld_col(&k, ix0 + 2 * ox + 2);
        }
        __m256i lo, hi;
        dot3(&A, &Bc, &Cc, wtop, pk, &lo, &hi);
        store(&o, lo, hi, scale, out0 + (size_t)ox * C + c0, k.nc);
        if (two) {
          dot3(&A, &Bc, &Cc, wbot, pk, &lo, &hi);
          store(&o, lo, hi, scale, out1 + (size_t)ox * C + c0, k.nc);
        }
        if (S == 1) {
          A = Bc;
          Bc = Cc;
        } else {
          A = Cc;
        }
      }
    }
    if (p->lut) {
      yk_lut_i8__avx2(out0, out0, orowb, p->lut);
      if (two) yk_lut_i8__avx2(out1, out1, orowb, p->lut);
    }
    row += 1 + two;
  }
}
