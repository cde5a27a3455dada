/* softmax_f32_avx2.c — softmax over the middle axis of [outer][axis][inner] with AVX2+FMA,
 * bit-exact with yk_softmax_f32__scalar (same exp, same summation order: see that file).
 *   inner == 1: two ymm accumulators are the 16 interleaved partial sums (lanes 0-7, 8-15 of
 *     each 16-element chunk), reduced by the halving tree (8, 4, 2, 1).
 *   inner > 1: ymm lanes are 8 neighbouring positions, the axis is walked with stride inner. */
#include "../unary/exp_f32_avx2_inline.h"
#include "softmax_f32_outer.h"
#include "yk_variants.h"

static const int32_t k_lane_mask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

/* lanes [0, left) set, left clamped to [0, 8] */
static inline __m256i mask8(ptrdiff_t left) {
  left = left < 0 ? 0 : (left > 8 ? 8 : left);
  return _mm256_loadu_si256((const __m256i *)(k_lane_mask + 8 - left));
}

/* p[i] += p[i + w] for w = 8, 4, 2, 1 with p = lanes of lo (0-7) then hi (8-15); returns p[0]. */
static inline float tree16(__m256 lo, __m256 hi) {
  const __m256 s8 = _mm256_add_ps(lo, hi);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_movehdup_ps(s2)));
}

static inline float hmax8(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

static void row(const float *x, float *y, size_t n) {
  const __m256 first = _mm256_set1_ps(x[0]);
  __m256 vm = first;
  size_t j = 0;
  for (; j + 8 <= n; j += 8) vm = _mm256_max_ps(_mm256_loadu_ps(x + j), vm);
  if (j < n) { /* masked-off lanes load 0: replace them by x[0], which cannot raise the max */
    const __m256i m = mask8((ptrdiff_t)(n - j));
    const __m256 v = _mm256_blendv_ps(first, _mm256_maskload_ps(x + j, m), _mm256_castsi256_ps(m));
    vm = _mm256_max_ps(v, vm);
  }
  const __m256 mx = _mm256_set1_ps(hmax8(vm));
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  for (j = 0; j + 16 <= n; j += 16) {
    const __m256 e0 = yk_exp_neg_f32_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j), mx));
    const __m256 e1 = yk_exp_neg_f32_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + j + 8), mx));
    _mm256_storeu_ps(y + j, e0);
    _mm256_storeu_ps(y + j + 8, e1);
    acc0 = _mm256_add_ps(acc0, e0);
    acc1 = _mm256_add_ps(acc1, e1);
  }
  if (j < n) { /* masked-off lanes add +0, which leaves a partial sum unchanged */
    const ptrdiff_t left = (ptrdiff_t)(n - j);
    const __m256i m0 = mask8(left), m1 = mask8(left - 8);
    __m256 e0 = yk_exp_neg_f32_avx2(_mm256_sub_ps(_mm256_maskload_ps(x + j, m0), mx));
    __m256 e1 = yk_exp_neg_f32_avx2(_mm256_sub_ps(_mm256_maskload_ps(x + j + 8, m1), mx));
    e0 = _mm256_and_ps(e0, _mm256_castsi256_ps(m0));
    e1 = _mm256_and_ps(e1, _mm256_castsi256_ps(m1));
    _mm256_maskstore_ps(y + j, m0, e0);
    _mm256_maskstore_ps(y + j + 8, m1, e1);
    acc0 = _mm256_add_ps(acc0, e0);
    acc1 = _mm256_add_ps(acc1, e1);
  }
  const __m256 inv = _mm256_set1_ps(1.0f / tree16(acc0, acc1));
  for (j = 0; j + 8 <= n; j += 8)
    _mm256_storeu_ps(y + j, _mm256_mul_ps(_mm256_loadu_ps(y + j), inv));
  if (j < n) {
    const __m256i m = mask8((ptrdiff_t)(n - j));
    _mm256_maskstore_ps(y + j, m, _mm256_mul_ps(_mm256_maskload_ps(y + j, m), inv));
  }
}

static void strided(const float *x, float *y, size_t axis_len, size_t inner) {
  for (size_t i = 0; i < inner; i += 8) {
    const __m256i m = mask8((ptrdiff_t)(inner - i));
    __m256 mx = _mm256_maskload_ps(x + i, m);
    for (size_t a = 1; a < axis_len; a++)
      mx = _mm256_max_ps(_mm256_maskload_ps(x + a * inner + i, m), mx); /* v > mx ? v : mx */
    __m256 sum = _mm256_setzero_ps();
    for (size_t a = 0; a < axis_len; a++) {
      const __m256 e =
          yk_exp_neg_f32_avx2(_mm256_sub_ps(_mm256_maskload_ps(x + a * inner + i, m), mx));
      _mm256_maskstore_ps(y + a * inner + i, m, e);
      sum = _mm256_add_ps(sum, e);
    }
    const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), sum);
    for (size_t a = 0; a < axis_len; a++)
      _mm256_maskstore_ps(y + a * inner + i, m,
                          _mm256_mul_ps(_mm256_maskload_ps(y + a * inner + i, m), inv));
  }
}

void yk_softmax_f32__avx2(const float *x, float *y, size_t outer, size_t axis_len, size_t inner) {
  yk_softmax_f32_outer(x, y, outer, axis_len, inner, row, strided);
}
