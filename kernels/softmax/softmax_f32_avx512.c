/* softmax_f32_avx512.c — softmax over the middle axis of [outer][axis][inner], bit-exact with
 * yk_softmax_f32__scalar (same exp, same summation order: see that file).
 *   inner == 1: one zmm runs along the row; it is the 16 interleaved partial sums, reduced by
 *     the halving tree (8, 4, 2, 1). Rows of exactly 16 (YOLO's DFL) take a loop-free path.
 *   inner > 1: zmm lanes are 16 neighbouring positions, the axis is walked with stride inner. */
#include "../unary/exp_f32_avx512_inline.h"
#include "softmax_f32_outer.h"
#include "yk_variants.h"

static inline __mmask16 tail_mask(size_t left) {
  return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
}

/* p[i] += p[i + w] for w = 8, 4, 2, 1; returns p[0]. */
static inline float tree16(__m512 v) {
  const __m256 s8 = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_movehdup_ps(s2)));
}

/* Reduce 16 row vectors v[0..15] to one vector whose lane 4k+m holds row k+4m's result
 * (k, m in 0..3), combining lanes exactly as p[i] = p[i] op p[i + w] for w = 8, 4, 2, 1. */
#define REDUCE16(OP, v, out)                                                               \
  do {                                                                                     \
    __m512 w8[8], w4[4], w2[2];                                                            \
    for (int q = 0; q < 8; q++) /* lanes 0-7: row 2q, 8-15: row 2q+1; p[i] op p[i+8] */    \
      w8[q] = OP(_mm512_shuffle_f32x4(v[2 * q], v[2 * q + 1], _MM_SHUFFLE(1, 0, 1, 0)),    \
                 _mm512_shuffle_f32x4(v[2 * q], v[2 * q + 1], _MM_SHUFFLE(3, 2, 3, 2)));   \
    for (int q = 0; q < 4; q++) /* 128-bit lane k: row 4q+k; p[i] op p[i+4] */             \
      w4[q] = OP(_mm512_shuffle_f32x4(w8[2 * q], w8[2 * q + 1], _MM_SHUFFLE(2, 0, 2, 0)),  \
                 _mm512_shuffle_f32x4(w8[2 * q], w8[2 * q + 1], _MM_SHUFFLE(3, 1, 3, 1))); \
    for (int q = 0; q < 2; q++) /* p[i] op p[i+2] */                                       \
      w2[q] = OP(_mm512_shuffle_ps(w4[2 * q], w4[2 * q + 1], _MM_SHUFFLE(1, 0, 1, 0)),     \
                 _mm512_shuffle_ps(w4[2 * q], w4[2 * q + 1], _MM_SHUFFLE(3, 2, 3, 2)));    \
    out = OP(_mm512_shuffle_ps(w2[0], w2[1], _MM_SHUFFLE(2, 0, 2, 0)), /* p[0] op p[1] */  \
             _mm512_shuffle_ps(w2[0], w2[1], _MM_SHUFFLE(3, 1, 3, 1)));                    \
  } while (0)

/* Rows of exactly 16 (DFL), 16 rows at a time: the horizontal max / sum of 16 rows are done
 * together (REDUCE16), so the work is throughput- rather than latency-bound. */
static void rows16(const float *x, float *y, size_t rows) {
  size_t r0 = 0;
  for (; r0 + 16 <= rows; r0 += 16) {
    __m512 v[16], mx;
    for (int r = 0; r < 16; r++) v[r] = _mm512_loadu_ps(x + (r0 + r) * 16);
    REDUCE16(_mm512_max_ps, v, mx);
    for (int r = 0; r < 16; r++) {
      const __m512i lane = _mm512_set1_epi32(4 * (r % 4) + r / 4);
      v[r] = yk_exp_neg_f32_avx512(_mm512_sub_ps(v[r], _mm512_permutexvar_ps(lane, mx)));
    }
    __m512 sum;
    REDUCE16(_mm512_add_ps, v, sum);
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), sum);
    for (int r = 0; r < 16; r++) {
      const __m512i lane = _mm512_set1_epi32(4 * (r % 4) + r / 4);
      _mm512_storeu_ps(y + (r0 + r) * 16, _mm512_mul_ps(v[r], _mm512_permutexvar_ps(lane, inv)));
    }
  }
  for (; r0 < rows; r0++) {
    const __m512 v = _mm512_loadu_ps(x + r0 * 16);
    const __m512 e =
        yk_exp_neg_f32_avx512(_mm512_sub_ps(v, _mm512_set1_ps(_mm512_reduce_max_ps(v))));
    const float inv = 1.0f / tree16(e);
    _mm512_storeu_ps(y + r0 * 16, _mm512_mul_ps(e, _mm512_set1_ps(inv)));
  }
}

static void row(const float *x, float *y, size_t n) {
  __m512 vm = _mm512_set1_ps(x[0]);
  for (size_t j = 0; j < n; j += 16) {
    const __mmask16 m = tail_mask(n - j);
    vm = _mm512_mask_max_ps(vm, m, vm, _mm512_maskz_loadu_ps(m, x + j));
  }
  const __m512 mx = _mm512_set1_ps(_mm512_reduce_max_ps(vm));
  __m512 acc = _mm512_setzero_ps();
  for (size_t j = 0; j < n; j += 16) {
    const __mmask16 m = tail_mask(n - j);
    const __m512 e = yk_exp_neg_f32_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + j), mx));
    _mm512_mask_storeu_ps(y + j, m, e);
    acc = _mm512_mask_add_ps(acc, m, acc, e);
  }
  const __m512 inv = _mm512_set1_ps(1.0f / tree16(acc));
  for (size_t j = 0; j < n; j += 16) {
    const __mmask16 m = tail_mask(n - j);
    _mm512_mask_storeu_ps(y + j, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + j), inv));
  }
}

static void strided(const float *x, float *y, size_t axis_len, size_t inner) {
  for (size_t i = 0; i < inner; i += 16) {
    const __mmask16 m = tail_mask(inner - i);
    __m512 mx = _mm512_maskz_loadu_ps(m, x + i);
    for (size_t a = 1; a < axis_len; a++)
      mx = _mm512_max_ps(_mm512_maskz_loadu_ps(m, x + a * inner + i), mx); /* v > mx ? v : mx */
    __m512 sum = _mm512_setzero_ps();
    for (size_t a = 0; a < axis_len; a++) {
      const __m512 e =
          yk_exp_neg_f32_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + a * inner + i), mx));
      _mm512_mask_storeu_ps(y + a * inner + i, m, e);
      sum = _mm512_add_ps(sum, e);
    }
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), sum);
    for (size_t a = 0; a < axis_len; a++)
      _mm512_mask_storeu_ps(y + a * inner + i, m,
                            _mm512_mul_ps(_mm512_maskz_loadu_ps(m, y + a * inner + i), inv));
  }
}

void yk_softmax_f32__avx512(const float *x, float *y, size_t outer, size_t axis_len, size_t inner) {
  if (inner == 1 && axis_len == 16) {
    rows16(x, y, outer);
    return;
  }
  yk_softmax_f32_outer(x, y, outer, axis_len, inner, row, strided);
}
