/* dwconv_avx2.c — depthwise 3x3 int8 over output rows, AVX2, 16 channels per block: the loads
 * and output stage of the template dwconv_rows_simd.h (the scheme is there), vpmaddwd + vpaddd for
 * two taps. A channel tail (< 16) goes through a zeroed 16-byte buffer (AVX2 has no masked byte
 * loads); the LUT runs over each finished output row. */
#include <string.h>

#include "yk_avx2_inline.h"
#include "yk_dwconv.h"
#include "yk_variants.h"

#define CB 16

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

typedef struct dw_out {
  __m256 lo, hi; /* clamp bounds -128 - y_zp, 127 - y_zp */
  __m256i yzp;   /* int16 */
  const int8_t *lut;
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

static inline void dw_out_init(dw_out *o, const yk_dw_params *p) {
  o->lo = _mm256_set1_ps((float)(-128 - p->y_zp));
  o->hi = _mm256_set1_ps((float)(127 - p->y_zp));
  o->yzp = _mm256_set1_epi16((short)p->y_zp);
  o->lut = p->lut;
}

#define DWR_V __m256i
#define DWR_(name) name##_256
#define DWR_LDROW ld_row
#define DWR_XZP(k) ((k)->xzp)
#define DWR_UNPACKLO _mm256_unpacklo_epi16
#define DWR_UNPACKHI _mm256_unpackhi_epi16
#define DWR_LDW(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define DWR_DOT(acc, a, b) _mm256_add_epi32((acc), _mm256_madd_epi16((a), (b)))
#define DWR_STORE(o, lo, hi, scale, dst, k) store((o), (lo), (hi), (scale), (dst), (k)->nc)
#include "dwconv_rows_simd.h"

static inline void dw_block(const dw_out *o, dw_ctx *k, const int32_t *pk, int nc, int ow, int S, int ix0,
                            int two, int8_t *out0, int8_t *out1, size_t C) {
  k->nc = nc;
  block_256(o, k, pk, ow, S, ix0, two, out0, out1, C);
}

static inline void dw_row_end(const dw_out *o, int8_t *out0, int8_t *out1, int two, size_t orowb) {
  if (o->lut) {
    yk_lut_i8__avx2(out0, out0, orowb, o->lut);
    if (two) yk_lut_i8__avx2(out1, out1, orowb, o->lut);
  }
}

#define DWR_SET1_16(v) _mm256_set1_epi16((short)(v))
#define DWR_DRIVER yk_dwconv_rows__avx2
#include "dwconv_rows_driver.h"
