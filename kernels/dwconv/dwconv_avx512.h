/* dwconv_avx512.h — body of the AVX-512 depthwise 3x3 rows kernel, included by
 * dwconv_avx512.c (BW: vpmaddwd + vpaddd) and dwconv_avx512vnni.c
 * (vpdpwssd, and VBMI for the LUT), which define DW_FN (the function name) and DW_VNNI (0/1). Both compute exactly the
 * same integer sums, so they are bit-exact with each other and the scalar reference.
 *
 * Per input column, each of up to four input rows is widened to int16 (out-of-image rows and
 * columns are x_zp vectors, so with -x_zp * sum(w) in the packed bias padding contributes 0, as
 * in the reference) and interleaved in row pairs (r0, r1), (r2, r3); one vpmaddwd then does two
 * taps of 16 channels.
 * Columns slide along the row so each is loaded once per pass; stride 1 produces two output
 * rows per pass. Channel tails use masked loads/stores (no over-read). Requant: see requant().
 * LUT: vpermt2b (VNNI variant, which also requires VBMI) or vpermt2w (BW). No include guard:
 * meant to be included once per variant file. */
#include <immintrin.h>

#include "yk_dwconv.h"

#define CB 32

/* acc + pairwise dot of int16 pairs: vpdpwssd with VNNI, else vpmaddwd + vpaddd (same sums) */
#if DW_VNNI
#define DW_DOT(acc, a, b) _mm512_dpwssd_epi32((acc), (a), (b))
#else
#define DW_DOT(acc, a, b) _mm512_add_epi32((acc), _mm512_madd_epi16((a), (b)))
#endif

typedef struct col4 {
  __m512i p01lo, p01hi, p23lo, p23hi;
} col4;

typedef struct dw_ctx {
  const int8_t *r[4]; /* input rows at the block's first channel, NULL outside the image */
  int w, c;
  __mmask32 m;
  __m512i xzp; /* int16 x_zp: the value of padding */
} dw_ctx;

static inline __m512i ld_row(const dw_ctx *k, const int8_t *row, int ix) {
  if (!row) return k->xzp;
  const __m256i b = _mm256_maskz_loadu_epi8(k->m, row + (size_t)ix * (size_t)k->c);
  return _mm512_cvtepi8_epi16(b);
}

static inline col4 ld_col(const dw_ctx *k, int ix) {
  col4 o;
  if (ix < 0 || ix >= k->w) {
    o.p01lo = o.p01hi = o.p23lo = o.p23hi = k->xzp;
    return o;
  }
  const __m512i a = ld_row(k, k->r[0], ix), b = ld_row(k, k->r[1], ix);
  const __m512i c = ld_row(k, k->r[2], ix), d = ld_row(k, k->r[3], ix);
  o.p01lo = _mm512_unpacklo_epi16(a, b);
  o.p01hi = _mm512_unpackhi_epi16(a, b);
  o.p23lo = _mm512_unpacklo_epi16(c, d);
  o.p23hi = _mm512_unpackhi_epi16(c, d);
  return o;
}

static inline __m512i ldw(const int32_t *p) { return _mm512_loadu_si512((const void *)p); }

/* acc of one output row: ws points at weight set s (pairs with r0,r1), set s+1 follows. */
static inline void dot3(const col4 *c0, const col4 *c1, const col4 *c2, const int32_t *ws,
                        const int32_t *bias, __m512i *lo, __m512i *hi) {
  const col4 *col[3] = {c0, c1, c2};
  __m512i a = ldw(bias), b = ldw(bias + CB / 2);
  for (int kx = 0; kx < 3; kx++) {
    const int32_t *w01 = ws + kx * CB, *w23 = ws + 3 * CB + kx * CB;
    a = DW_DOT(a, col[kx]->p01lo, ldw(w01));
    b = DW_DOT(b, col[kx]->p01hi, ldw(w01 + CB / 2));
    a = DW_DOT(a, col[kx]->p23lo, ldw(w23));
    b = DW_DOT(b, col[kx]->p23hi, ldw(w23 + CB / 2));
  }
  *lo = a;
  *hi = b;
}

typedef struct dw_out {
  __m512 hi;     /* 127 - y_zp: the only float clamp needed, see requant */
  __m512i yzp;   /* int16 */
  const int8_t *lut;
#if DW_VNNI
  __m512i t[4];  /* LUT bytes 0..63, 64..127, 128..191, 192..255 */
#else
  __m512i t[8];  /* LUT as int16, 32 entries each */
#endif
} dw_out;

#if DW_VNNI
/* lut[(uint8_t)(q + 128)] for 32 int8 q (low half of q): vpermt2b on the low 7 bits of q picks
 * from lut[0..127] where q < 0 (sign set) and lut[128..255] where q >= 0. Needs AVX512-VBMI. */
static inline __m256i apply_lut(const dw_out *o, __m256i q) {
  const __m512i z = _mm512_castsi256_si512(q);
  const __m512i neg = _mm512_permutex2var_epi8(o->t[0], z, o->t[1]);
  const __m512i pos = _mm512_permutex2var_epi8(o->t[2], z, o->t[3]);
  return _mm512_castsi512_si256(_mm512_mask_blend_epi8(_mm512_movepi8_mask(z), pos, neg));
}
#else
/* Same with AVX512-BW only: vpermt2w over four 64-entry int16 tables on q + 128. */
static inline __m256i apply_lut(const dw_out *o, __m256i q) {
  const __m512i idx = _mm512_add_epi16(_mm512_cvtepi8_epi16(q), _mm512_set1_epi16(128));
  const __m512i r0 = _mm512_permutex2var_epi16(o->t[0], idx, o->t[1]);
  const __m512i r1 = _mm512_permutex2var_epi16(o->t[2], idx, o->t[3]);
  const __m512i r2 = _mm512_permutex2var_epi16(o->t[4], idx, o->t[5]);
  const __m512i r3 = _mm512_permutex2var_epi16(o->t[6], idx, o->t[7]);
  const __mmask32 m6 = _mm512_test_epi16_mask(idx, _mm512_set1_epi16(64));
  const __mmask32 m7 = _mm512_test_epi16_mask(idx, _mm512_set1_epi16(128));
  return _mm512_cvtepi16_epi8(_mm512_mask_blend_epi16(m7, _mm512_mask_blend_epi16(m6, r0, r1),
                                                      _mm512_mask_blend_epi16(m6, r2, r3)));
}
#endif

/* v = (float)acc * scale, v = min(127 - y_zp, v), round half even. Only the upper clamp is
 * needed: below, vcvtps2dq gives INT32_MIN for NaN and out-of-range values, and the saturating
 * packs / adds / vpmovswb of store() take every too-small result to -128, as the reference's
 * clamp-round-saturate does (NaN -> -128 too: vminps returns its 2nd operand on NaN). */
static inline __m512i requant(const dw_out *o, __m512i acc, const float *scale) {
  const __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_loadu_ps(scale));
  return _mm512_cvtps_epi32(_mm512_min_ps(o->hi, v));
}

static inline void store(const dw_out *o, __m512i lo, __m512i hi, const float *scale, int8_t *dst,
                         __mmask32 m) {
  /* packs_epi32 undoes the unpack's channel interleave: int16 lanes come out in order */
  const __m512i q = _mm512_packs_epi32(requant(o, lo, scale), requant(o, hi, scale + CB / 2));
  __m256i b = _mm512_cvtsepi16_epi8(_mm512_adds_epi16(q, o->yzp));
  if (o->lut) b = apply_lut(o, b);
  if (m == (__mmask32)0xFFFFFFFFu) _mm256_storeu_si256((__m256i *)(void *)dst, b);
  else _mm256_mask_storeu_epi8(dst, m, b);
}

#if DW_VNNI
/* Two output rows at once: one saturating int16 -> int8 pack (8-byte groups of the two rows
 * interleave per 128-bit lane), the LUT over all 64 bytes, then one qword permute to put row 0
 * in the low half and row 1 in the high half. Same values as two store() calls. */
static inline void store2(const dw_out *o, __m512i lo0, __m512i hi0, __m512i lo1, __m512i hi1,
                          const float *scale, int8_t *dst0, int8_t *dst1, __mmask32 m) {
  const __m512i q0 = _mm512_packs_epi32(requant(o, lo0, scale), requant(o, hi0, scale + CB / 2));
  const __m512i q1 = _mm512_packs_epi32(requant(o, lo1, scale), requant(o, hi1, scale + CB / 2));
  __m512i b = _mm512_packs_epi16(_mm512_adds_epi16(q0, o->yzp), _mm512_adds_epi16(q1, o->yzp));
  if (o->lut) {
    const __m512i neg = _mm512_permutex2var_epi8(o->t[0], b, o->t[1]);
    const __m512i pos = _mm512_permutex2var_epi8(o->t[2], b, o->t[3]);
    b = _mm512_mask_blend_epi8(_mm512_movepi8_mask(b), pos, neg);
  }
  b = _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), b);
  const __m256i r0 = _mm512_castsi512_si256(b), r1 = _mm512_extracti64x4_epi64(b, 1);
  if (m == (__mmask32)0xFFFFFFFFu) {
    _mm256_storeu_si256((__m256i *)(void *)dst0, r0);
    _mm256_storeu_si256((__m256i *)(void *)dst1, r1);
  } else {
    _mm256_mask_storeu_epi8(dst0, m, r0);
    _mm256_mask_storeu_epi8(dst1, m, r1);
  }
}
#endif

/* ---- A last block of at most 16 channels (C = 80 = 32 + 32 + 16): the same on 256-bit vectors,
 * half the work of a masked 512-bit pass. The packed block keeps its 32-channel layout: channels
 * t < 16 sit in the first 8 dwords of each half, which is where the 256-bit unpack puts them. */
#if DW_VNNI
#define DW_DOT16(acc, a, b) _mm256_dpwssd_epi32((acc), (a), (b))
#else
#define DW_DOT16(acc, a, b) _mm256_add_epi32((acc), _mm256_madd_epi16((a), (b)))
#endif

typedef struct col4h {
  __m256i p01lo, p01hi, p23lo, p23hi;
} col4h;

static inline __m256i ld_row16(const dw_ctx *k, const int8_t *row, int ix) {
  if (!row) return _mm512_castsi512_si256(k->xzp);
  const __m128i b = _mm_maskz_loadu_epi8((__mmask16)k->m, row + (size_t)ix * (size_t)k->c);
  return _mm256_cvtepi8_epi16(b);
}

static inline col4h ld_col16(const dw_ctx *k, int ix) {
  col4h o;
  if (ix < 0 || ix >= k->w) {
    o.p01lo = o.p01hi = o.p23lo = o.p23hi = _mm512_castsi512_si256(k->xzp);
    return o;
  }
  const __m256i a = ld_row16(k, k->r[0], ix), b = ld_row16(k, k->r[1], ix);
  const __m256i c = ld_row16(k, k->r[2], ix), d = ld_row16(k, k->r[3], ix);
  o.p01lo = _mm256_unpacklo_epi16(a, b);
  o.p01hi = _mm256_unpackhi_epi16(a, b);
  o.p23lo = _mm256_unpacklo_epi16(c, d);
  o.p23hi = _mm256_unpackhi_epi16(c, d);
  return o;
}

static inline __m256i ldw16(const int32_t *p) {
  return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

static inline void dot3_16(const col4h *c0, const col4h *c1, const col4h *c2, const int32_t *ws,
                           const int32_t *bias, __m256i *lo, __m256i *hi) {
  const col4h *col[3] = {c0, c1, c2};
  __m256i a = ldw16(bias), b = ldw16(bias + CB / 2);
  for (int kx = 0; kx < 3; kx++) {
    const int32_t *w01 = ws + kx * CB, *w23 = ws + 3 * CB + kx * CB;
    a = DW_DOT16(a, col[kx]->p01lo, ldw16(w01));
    b = DW_DOT16(b, col[kx]->p01hi, ldw16(w01 + CB / 2));
    a = DW_DOT16(a, col[kx]->p23lo, ldw16(w23));
    b = DW_DOT16(b, col[kx]->p23hi, ldw16(w23 + CB / 2));
  }
  *lo = a;
  *hi = b;
}

static inline __m256i requant16(const dw_out *o, __m256i acc, const float *scale) {
  const __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_loadu_ps(scale));
  return _mm256_cvtps_epi32(_mm256_min_ps(_mm512_castps512_ps256(o->hi), v));
}

static inline void store16(const dw_out *o, __m256i lo, __m256i hi, const float *scale,
                           int8_t *dst, __mmask16 m) {
  const __m256i q = _mm256_packs_epi32(requant16(o, lo, scale), requant16(o, hi, scale + CB / 2));
  __m128i b = _mm256_cvtsepi16_epi8(_mm256_adds_epi16(q, _mm512_castsi512_si256(o->yzp)));
  if (o->lut) b = _mm256_castsi256_si128(apply_lut(o, _mm256_zextsi128_si256(b)));
  _mm_mask_storeu_epi8(dst, m, b);
}

static void block16(const dw_out *o, const dw_ctx *k, const int32_t *pk, int ow, int S, int ix0,
                    int two, int8_t *out0, int8_t *out1, size_t C) {
  const float *scale = (const float *)(const void *)(pk + CB);
  const int32_t *wtop = pk + 2 * CB, *wbot = pk + 2 * CB + 6 * CB;
  const __mmask16 m = (__mmask16)k->m;
  col4h A = ld_col16(k, ix0), Bc = A, Cc = A;
  if (S == 1) Bc = ld_col16(k, ix0 + 1);
  for (int ox = 0; ox < ow; ox++) {
    if (S == 1) {
      Cc = ld_col16(k, ix0 + ox + 2);
    } else {
      Bc = ld_col16(k, ix0 + 2 * ox + 1);
      Cc = ld_col16(k, ix0 + 2 * ox + 2);
    }
    __m256i lo, hi;
    dot3_16(&A, &Bc, &Cc, wtop, pk, &lo, &hi);
    store16(o, lo, hi, scale, out0 + (size_t)ox * C, m);
    if (two) {
      dot3_16(&A, &Bc, &Cc, wbot, pk, &lo, &hi);
      store16(o, lo, hi, scale, out1 + (size_t)ox * C, m);
    }
    if (S == 1) {
      A = Bc;
      Bc = Cc;
    } else {
      A = Cc;
    }
  }
}

void DW_FN(const yk_dwconv *d, const int8_t *x, int8_t *y, int row0, int row1) {
  const yk_dw_params *p = &d->p;
  const int C = p->c, S = p->stride;
  const size_t rowb = (size_t)p->w * (size_t)C;
  dw_out o;
  o.hi = _mm512_set1_ps((float)(127 - p->y_zp));
  o.yzp = _mm512_set1_epi16((short)p->y_zp);
  o.lut = p->lut;
#if DW_VNNI
  for (int k = 0; k < 4; k++)
    o.t[k] = p->lut ? _mm512_loadu_si512((const void *)(p->lut + 64 * k)) : _mm512_setzero_si512();
#else
  for (int k = 0; k < 8; k++)
    o.t[k] = p->lut ? _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(p->lut + 32 * k)))
                    : _mm512_setzero_si512();
#endif
  dw_ctx k;
  k.w = p->w;
  k.c = C;
  k.xzp = _mm512_set1_epi16((short)p->x_zp);
  for (int row = row0; row < row1;) {
    const int b = row / p->oh, oy = row % p->oh;
    const int two = S == 1 && row + 1 < row1 && oy + 1 < p->oh;
    const int8_t *img = x + (size_t)b * (size_t)p->h * rowb;
    const int iy0 = oy * S - p->pad_t;
    int8_t *out0 = y + (size_t)row * (size_t)p->ow * (size_t)C;
    int8_t *out1 = out0 + (size_t)p->ow * (size_t)C;
    const int8_t *rp[4];
    for (int t = 0; t < 4; t++) {
      const int iy = iy0 + t;
      rp[t] = (t < 3 + two && iy >= 0 && iy < p->h) ? img + (size_t)iy * rowb : NULL;
    }
    const int32_t *pk = d->packed;
    for (int c0 = 0; c0 < C; c0 += CB, pk += YK_DWCONV_BLOCK_I32(CB)) {
      k.m = C - c0 >= CB ? (__mmask32)0xFFFFFFFFu : (__mmask32)((1u << (C - c0)) - 1u);
      for (int t = 0; t < 4; t++) k.r[t] = rp[t] ? rp[t] + c0 : NULL;
      if (C - c0 <= CB / 2) {
        block16(&o, &k, pk, p->ow, S, -p->pad_l, two, out0 + c0, out1 + c0, (size_t)C);
        continue;
      }
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
        __m512i lo, hi;
        dot3(&A, &Bc, &Cc, wtop, pk, &lo, &hi);
#if DW_VNNI
        if (two) {
          __m512i lo1, hi1;
          dot3(&A, &Bc, &Cc, wbot, pk, &lo1, &hi1);
          store2(&o, lo, hi, lo1, hi1, scale, out0 + (size_t)ox * C + c0,
                 out1 + (size_t)ox * C + c0, k.m);
        } else {
          store(&o, lo, hi, scale, out0 + (size_t)ox * C + c0, k.m);
        }
#else
        store(&o, lo, hi, scale, out0 + (size_t)ox * C + c0, k.m);
        if (two) {
          dot3(&A, &Bc, &Cc, wbot, pk, &lo, &hi);
          store(&o, lo, hi, scale, out1 + (size_t)ox * C + c0, k.m);
        }
#endif
        if (S == 1) {
          A = Bc;
          Bc = Cc;
        } else {
          A = Cc;
        }
      }
    }
    row += 1 + two;
  }
}
