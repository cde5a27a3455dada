/* softmax_i8_avx512.c — int8 softmax rows (yk_softmax_i8), bit-exact with the float chain of
 * softmax_i8_scalar.c, in three passes over one row instead of four over float rows:
 *   1. the row's int8 max (64 bytes a step); dequantize is monotone, so its float max is the
 *      dequantized int8 max: the same mx the float softmax finds;
 *   2. x = (float)(q - zp) * s, e = exp(x - mx) (the exp of exp_f32_avx512_inline.h), stored in a
 *      stack row and summed by one zmm accumulator: element j into lane j % 16 in order of j,
 *      reduced by the halving tree, as yk_softmax_f32 sums a row;
 *   3. y = e * (1 / sum) [* k], then QuantizeLinear's true division, clamp, round half to even,
 *      + zp and saturation (vpmovsdb) — each step the chain's own float operation. */
#include <immintrin.h>

#include "../unary/exp_f32_avx512_inline.h"
#include "yk_inline.h"
#include "yk_variants.h"
#include "softmax_i8_avx512.h"

static int8_t row_max(const int8_t *x, size_t n) {
  __m512i vm = _mm512_set1_epi8(-128);
  for (size_t j = 0; j < n; j += 64) {
    const __mmask64 m = yk_sm_tail64(n - j);
    vm = _mm512_mask_max_epi8(vm, m, vm, _mm512_maskz_loadu_epi8(m, x + j));
  }
  return (int8_t)yk_sm_reduce_i8(vm, 1);
}

static void row(const int8_t *x, int8_t *y, size_t n, const yk_softmax_i8_params *p, float *e) {
  const __m512i vzx = _mm512_set1_epi32(p->x_zp);
  const __m512 vsx = _mm512_set1_ps(p->x_scale);
  const __m512 mx = _mm512_set1_ps(yk_dequantize1(row_max(x, n), p->x_scale, p->x_zp));
  __m512 acc = _mm512_setzero_ps();
  for (size_t j = 0; j < n; j += 16) {
    const __mmask16 m = yk_sm_tail16(n - j);
    const __m512i q = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, x + j));
    const __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(q, vzx)), vsx);
    const __m512 ev = yk_exp_neg_f32_avx512(_mm512_sub_ps(v, mx));
    _mm512_store_ps(e + j, ev); /* lanes past n are never read back */
    acc = _mm512_mask_add_ps(acc, m, acc, ev);
  }
  const __m512 inv = _mm512_set1_ps(1.0f / yk_sm_tree16(acc));
  const __m512 vk = _mm512_set1_ps(p->k), vsy = _mm512_set1_ps(p->y_scale);
  const __m512 lo = _mm512_set1_ps(-YK_QCLAMP), hi = _mm512_set1_ps(YK_QCLAMP);
  const __m512i vzy = _mm512_set1_epi32(p->y_zp);
  const int scale_k = p->k != 1.0f;
  for (size_t j = 0; j < n; j += 16) {
    __m512 v = _mm512_mul_ps(_mm512_load_ps(e + j), inv);
    if (scale_k) v = _mm512_mul_ps(v, vk);
    v = _mm512_min_ps(_mm512_max_ps(_mm512_div_ps(v, vsy), lo), hi); /* yk_qclamp's order */
    _mm512_mask_cvtsepi32_storeu_epi8(y + j, yk_sm_tail16(n - j),
                                      _mm512_add_epi32(_mm512_cvtps_epi32(v), vzy));
  }
}

void yk_softmax_i8__avx512(const int8_t *x, int8_t *y, size_t rows, size_t len,
                           const yk_softmax_i8_params *p) {
  if (len == 0 || len > YK_SOFTMAX_I8_MAX_LEN) return;
  float e[YK_SOFTMAX_I8_MAX_LEN + 16] __attribute__((aligned(64)));
  int8_t codes[YK_SOFTMAX_I8_MAX_LEN];
  for (size_t r = 0; r < rows; r++) {
    const int8_t *q = x + r * len;
    if (p->lut) { /* the table first, as the chain's LUT node */
      yk_lut_i8__scalar(q, codes, len, p->lut);
      q = codes;
    }
    row(q, y + r * len, len, p, e);
  }
}
