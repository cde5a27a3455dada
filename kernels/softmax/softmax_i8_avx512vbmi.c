/* softmax_i8_avx512vbmi.c — int8 softmax rows (yk_softmax_i8) on tables of the row's own codes,
 * bit-exact with the float chain of softmax_i8_scalar.c. The chain's e = exp((float)(q - zp) * s
 * - mx) and its quantized output are functions of q alone within a row (mx is the dequantized
 * row max: dequantize is monotone), so a row whose values span at most 128 codes runs as:
 *   1. the row's int8 min and max (64 bytes a step);
 *   2. E[d] = the chain's e for q = min + d, d < 128 (at most 8 vectors of exp instead of one per
 *      16 elements), as four byte planes; 64 elements at a time look up their 4 bytes (vpermi2b)
 *      and two rounds of unpacks rebuild 4 zmm of floats holding elements 16 t .. 16 t + 15 in
 *      order (the 64 codes are permuted once beforehand), summed by one zmm accumulator: element
 *      j into lane j % 16 in order of j, reduced by the halving tree, as yk_softmax_f32 sums a row;
 *   3. O[d] = the chain's output code for E[d] (E[d] * (1 / sum) [* k], QuantizeLinear's true
 *      division, clamp, round half to even, + zp, saturation), then y = O[q - min] 64 at a time.
 * With a LUT before it (yk_softmax_i8_params.lut) the tables are indexed by the raw codes, E[d]
 * taken at lut[min + d], and the max is that of the looked-up codes: the LUT costs nothing per
 * element. */
#include <immintrin.h>
#include <string.h>

#include "../unary/exp_f32_avx512_inline.h"
#include "yk_inline.h"
#include "yk_variants.h"
#include "softmax_i8_avx512.h"
#include "../lut/lut_vbmi.h"

/* The row's int8 min (*lo) and max (*top), and the max of its codes after the LUT (*hi; lut
 * NULL: none, *hi = *top). */
static void row_range(const int8_t *x, size_t n, const yk_lut4 *lut, int *lo, int *top, int *hi) {
  __m512i vmax = _mm512_set1_epi8(-128), vmin = _mm512_set1_epi8(127), lmax = vmax;
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  for (size_t j = 0; j < n; j += 64) {
    const __mmask64 m = yk_sm_tail64(n - j);
    const __m512i v = _mm512_maskz_loadu_epi8(m, x + j);
    vmax = _mm512_mask_max_epi8(vmax, m, vmax, v);
    vmin = _mm512_mask_min_epi8(vmin, m, vmin, v);
    if (lut) lmax = _mm512_mask_max_epi8(lmax, m, lmax, yk_lut4_lookup(lut, _mm512_xor_si512(v, flip)));
  }
  *top = yk_sm_reduce_i8(vmax, 1);
  *lo = yk_sm_reduce_i8(vmin, 0);
  *hi = lut ? yk_sm_reduce_i8(lmax, 1) : *top;
}

/* The per-call constants: byte k of 32 floats (idx[k]), and the order of the 64 codes. */
typedef struct consts {
  __m512i idx[4], order;
} consts;

/* Byte k of the 64 floats at e (64-byte aligned) as 64 bytes (idx: c->idx[k]). */
static inline __m512i plane64(const float *e, __m512i idx) {
  const __m512i lo = _mm512_permutex2var_epi8(_mm512_load_si512(e), idx, _mm512_load_si512(e + 16));
  const __m512i hi = _mm512_permutex2var_epi8(_mm512_load_si512(e + 32), idx, _mm512_load_si512(e + 48));
  return _mm512_inserti64x4(lo, _mm512_castsi512_si256(hi), 1);
}

/* The permutation of 64 codes after which byte-plane lookups and two rounds of unpacks give
 * zmm t = elements 16 t .. 16 t + 15: position 16 L + 8 a + 4 b + e holds element
 * 16 (2 a + b) + 4 L + e (L the 128-bit lane, e the byte in a dword). */
static void make_consts(consts *c) {
  uint8_t ix[64];
  for (int L = 0; L < 4; L++)
    for (int a = 0; a < 2; a++)
      for (int b = 0; b < 2; b++)
        for (int e = 0; e < 4; e++) ix[16 * L + 8 * a + 4 * b + e] = (uint8_t)(16 * (2 * a + b) + 4 * L + e);
  c->order = _mm512_loadu_si512(ix);
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < 64; i++) ix[i] = (uint8_t)((4 * i + k) & 127); /* outputs 32..63 unused */
    c->idx[k] = _mm512_loadu_si512(ix);
  }
}

/* t[d] for 64 byte indices d: 128-entry tables (q[0], q[1]) by the low 7 bits, 256-entry ones
 * (q[0..3], wide) with bit 7 picking the half, as lut/lut_vbmi.h does. */
static inline __m512i lookup(const __m512i q[4], __m512i d, int wide) {
  const __m512i lo = _mm512_permutex2var_epi8(q[0], d, q[1]);
  if (!wide) return lo;
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(d), lo, _mm512_permutex2var_epi8(q[2], d, q[3]));
}

/* A row whose raw codes lie in [lo, top] and whose (looked-up) codes peak at hi: step 2 and 3 of
 * the header on tables of its codes. lutx: NULL, or the LUT and its first 16 entries again. */
static void row_table(const int8_t *x, int8_t *y, size_t n, const yk_softmax_i8_params *p, int lo, int top, int hi,
                      const consts *c, const int8_t *lutx) {
  float e[256] __attribute__((aligned(64)));
  const int span = top - lo + 1, ne = span <= 64 ? 64 : span <= 128 ? 128 : 256, wide = ne > 128;
  const __m512 mx = _mm512_set1_ps(yk_dequantize1((int8_t)hi, p->x_scale, p->x_zp)), vsx = _mm512_set1_ps(p->x_scale);
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i vzx = _mm512_set1_epi32(p->x_zp);
  for (int d = 0; d < ne; d += 16) { /* code - zp for raw code lo + d + lane, as the chain's dequantize */
    if (d >= span) { /* codes the row lacks: never looked up */
      _mm512_store_ps(e + d, _mm512_setzero_ps());
      continue;
    }
    const __m512i qz =
        lutx ? _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(lutx + ((lo + 128 + d) & 255)))), vzx)
             : _mm512_add_epi32(iota, _mm512_set1_epi32(lo + d - p->x_zp));
    const __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(qz), vsx);
    _mm512_store_ps(e + d, yk_exp_neg_f32_avx512(_mm512_sub_ps(v, mx)));
  }
  __m512i pl[4][4]; /* byte k of e[0..63], e[64..127], ... */
  for (int k = 0; k < 4; k++)
    for (int h = 0; h < 4; h++) pl[k][h] = 64 * h < ne ? plane64(e + 64 * h, c->idx[k]) : pl[k][0];
  const __m512i order = c->order, vlo = _mm512_set1_epi8((char)lo);
  __m512 acc = _mm512_setzero_ps();
  for (size_t j = 0; j < n; j += 64) {
    const __mmask64 m = yk_sm_tail64(n - j);
    const __m512i d = _mm512_sub_epi8(_mm512_permutexvar_epi8(order, _mm512_maskz_loadu_epi8(m, x + j)), vlo);
    __m512i b[4];
    for (int k = 0; k < 4; k++) b[k] = lookup(pl[k], d, wide);
    const __m512i w01l = _mm512_unpacklo_epi8(b[0], b[1]), w01h = _mm512_unpackhi_epi8(b[0], b[1]);
    const __m512i w23l = _mm512_unpacklo_epi8(b[2], b[3]), w23h = _mm512_unpackhi_epi8(b[2], b[3]);
    const __m512i f[4] = {_mm512_unpacklo_epi16(w01l, w23l), _mm512_unpackhi_epi16(w01l, w23l),
                          _mm512_unpacklo_epi16(w01h, w23h), _mm512_unpackhi_epi16(w01h, w23h)};
    for (int t = 0; t < 4; t++) {
      if (j + 16 * (size_t)t >= n) break;
      acc = _mm512_mask_add_ps(acc, yk_sm_tail16(n - j - 16 * (size_t)t), acc, _mm512_castsi512_ps(f[t]));
    }
  }
  const __m512 inv = _mm512_set1_ps(1.0f / yk_sm_tree16(acc));
  const __m512 vk = _mm512_set1_ps(p->k), vsy = _mm512_set1_ps(p->y_scale);
  const __m512 qlo = _mm512_set1_ps(-YK_QCLAMP), qhi = _mm512_set1_ps(YK_QCLAMP);
  const __m512i vzy = _mm512_set1_epi32(p->y_zp);
  int8_t o[256] __attribute__((aligned(64)));
  for (int d = 0; d < ne; d += 16) {
    if (d >= span) { /* never looked up */
      _mm_store_si128((__m128i *)(void *)(o + d), _mm_setzero_si128());
      continue;
    }
    __m512 v = _mm512_mul_ps(_mm512_load_ps(e + d), inv);
    if (p->k != 1.0f) v = _mm512_mul_ps(v, vk);
    v = _mm512_min_ps(_mm512_max_ps(_mm512_div_ps(v, vsy), qlo), qhi); /* yk_qclamp's order */
    _mm_store_si128((__m128i *)(void *)(o + d), _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(v), vzy)));
  }
  __m512i ot[4];
  for (int h = 0; h < 4; h++) ot[h] = _mm512_load_si512(o + (64 * h < ne ? 64 * h : 0));
  for (size_t j = 0; j < n; j += 64) {
    const __mmask64 m = yk_sm_tail64(n - j);
    const __m512i d = _mm512_sub_epi8(_mm512_maskz_loadu_epi8(m, x + j), vlo);
    _mm512_mask_storeu_epi8(y + j, m, lookup(ot, d, wide));
  }
}

void yk_softmax_i8__avx512vbmi(const int8_t *x, int8_t *y, size_t rows, size_t len,
                               const yk_softmax_i8_params *p) {
  if (len == 0 || len > YK_SOFTMAX_I8_MAX_LEN) return;
  consts c;
  make_consts(&c);
  int8_t lutx[256 + 16];
  yk_lut4 l4;
  if (p->lut) {
    memcpy(lutx, p->lut, 256);
    memcpy(lutx + 256, p->lut, 16);
    l4 = yk_lut4_load(p->lut);
  }
  for (size_t r = 0; r < rows; r++) {
    int lo, top, hi;
    row_range(x + r * len, len, p->lut ? &l4 : NULL, &lo, &top, &hi);
    row_table(x + r * len, y + r * len, len, p, lo, top, hi, &c, p->lut ? lutx : NULL);
  }
}
