/* dwconv_avx512.h — the AVX-512 depthwise 3x3 rows kernel: the loads and output stage of the
 * template dwconv_rows_simd.h (the scheme is there) on 512-bit vectors, and on 256-bit ones for a
 * last block of at most 16 channels. Included by dwconv_avx512.c (BW: vpmaddwd + vpaddd) and
 * dwconv_avx512vnni.c (vpdpwssd, and VBMI for the LUT), which define DW_FN (the function name)
 * and DW_VNNI (0/1). Both compute exactly the same integer sums, so they are bit-exact with each
 * other and the scalar reference. Channel tails use masked loads/stores (no over-read). Requant:
 * see requant(). LUT: vpermt2b (VNNI variant) or vpermt2w (BW). No include guard: meant to be
 * included once per variant file. */
#include <immintrin.h>

#include "yk_dwconv.h"

#define CB 32

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
static inline __m256i ld_row16(const dw_ctx *k, const int8_t *row, int ix) {
  if (!row) return _mm512_castsi512_si256(k->xzp);
  const __m128i b = _mm_maskz_loadu_epi8((__mmask16)k->m, row + (size_t)ix * (size_t)k->c);
  return _mm256_cvtepi8_epi16(b);
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

static inline void dw_out_init(dw_out *o, const yk_dw_params *p) {
  o->hi = _mm512_set1_ps((float)(127 - p->y_zp));
  o->yzp = _mm512_set1_epi16((short)p->y_zp);
  o->lut = p->lut;
#if DW_VNNI
  for (int k = 0; k < 4; k++)
    o->t[k] = p->lut ? _mm512_loadu_si512((const void *)(p->lut + 64 * k)) : _mm512_setzero_si512();
#else
  for (int k = 0; k < 8; k++)
    o->t[k] = p->lut ? _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(p->lut + 32 * k)))
                     : _mm512_setzero_si512();
#endif
}

/* the template (dwconv_rows_simd.h) on 512-bit vectors, then on 256-bit ones for a last block of
 * <= 16 channels */
#define DWR_V __m512i
#define DWR_(name) name##_512
#define DWR_LDROW ld_row
#define DWR_XZP(k) ((k)->xzp)
#define DWR_UNPACKLO _mm512_unpacklo_epi16
#define DWR_UNPACKHI _mm512_unpackhi_epi16
#define DWR_LDW(p) _mm512_loadu_si512((const void *)(p))
#define DWR_STORE(o, lo, hi, scale, dst, k) store((o), (lo), (hi), (scale), (dst), (k)->m)
/* acc + pairwise dot of int16 pairs: vpdpwssd with VNNI, else vpmaddwd + vpaddd (same sums) */
#if DW_VNNI
#define DWR_DOT(acc, a, b) _mm512_dpwssd_epi32((acc), (a), (b))
#define DWR_STORE2(o, lo, hi, lo1, hi1, scale, dst0, dst1, k) \
  store2((o), (lo), (hi), (lo1), (hi1), (scale), (dst0), (dst1), (k)->m)
#else
#define DWR_DOT(acc, a, b) _mm512_add_epi32((acc), _mm512_madd_epi16((a), (b)))
#endif
#include "dwconv_rows_simd.h"
#undef DWR_V
#undef DWR_
#undef DWR_LDROW
#undef DWR_XZP
#undef DWR_UNPACKLO
#undef DWR_UNPACKHI
#undef DWR_LDW
#undef DWR_STORE
#undef DWR_STORE2
#undef DWR_DOT

#define DWR_V __m256i
#define DWR_(name) name##_256
#define DWR_LDROW ld_row16
#define DWR_XZP(k) _mm512_castsi512_si256((k)->xzp)
#define DWR_UNPACKLO _mm256_unpacklo_epi16
#define DWR_UNPACKHI _mm256_unpackhi_epi16
#define DWR_LDW(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define DWR_STORE(o, lo, hi, scale, dst, k) store16((o), (lo), (hi), (scale), (dst), (__mmask16)(k)->m)
#if DW_VNNI
#define DWR_DOT(acc, a, b) _mm256_dpwssd_epi32((acc), (a), (b))
#else
#define DWR_DOT(acc, a, b) _mm256_add_epi32((acc), _mm256_madd_epi16((a), (b)))
#endif
#include "dwconv_rows_simd.h"

static inline void dw_block(const dw_out *o, dw_ctx *k, const int32_t *pk, int nc, int ow, int S, int ix0,
                            int two, int8_t *out0, int8_t *out1, size_t C) {
  k->m = nc == CB ? (__mmask32)0xFFFFFFFFu : (__mmask32)((1u << nc) - 1u);
  if (nc <= CB / 2) block_256(o, k, pk, ow, S, ix0, two, out0, out1, C);
  else block_512(o, k, pk, ow, S, ix0, two, out0, out1, C);
}

/* the LUT is applied in store() */
static inline void dw_row_end(const dw_out *o, int8_t *out0, int8_t *out1, int two, size_t orowb) {
  (void)o;
  (void)out0;
  (void)out1;
  (void)two;
  (void)orowb;
}

#define DWR_SET1_16(v) _mm512_set1_epi16((short)(v))
#define DWR_DRIVER DW_FN
#include "dwconv_rows_driver.h"
