/* softmax_f32_scalar.c — softmax over the middle axis of [outer][axis][inner], the reference
 * of the SIMD variants (bit-exact with them), so the summation order is part of the contract:
 *   y = e * (1 / sum), e = exp(x - max) with the exp of exp_f32_inline.h;
 *   inner == 1 (rows; YOLO's DFL and attention softmax after the NHWC layout): the row's e are
 *     summed into 16 interleaved partial sums (element j into partial j % 16, in order of j),
 *     then combined by the fixed tree p[i] += p[i + w] for w = 8, 4, 2, 1 — exactly what one
 *     zmm accumulator (or two ymm) and a halving horizontal add compute;
 *   inner > 1: each position sums its e in axis order (SIMD runs over positions), in blocks of
 *     positions so every pass is contiguous. */
#include "../unary/exp_f32_inline.h"
#include "softmax_f32_outer.h"
#include "yk_variants.h"

#define BLK 64

static float tree16(float p[16]) {
  for (int w = 8; w >= 1; w /= 2)
    for (int i = 0; i < w; i++) p[i] += p[i + w];
  return p[0];
}

static void softmax_row(const float *x, float *y, size_t n) {
  float mx = x[0];
  for (size_t j = 1; j < n; j++) mx = x[j] > mx ? x[j] : mx;
  float part[16] = {0};
  for (size_t j = 0; j < n; j++) {
    const float e = yk_exp_neg_f32_1(x[j] - mx);
    y[j] = e;
    part[j % 16] += e;
  }
  const float inv = 1.0f / tree16(part);
  for (size_t j = 0; j < n; j++) y[j] *= inv;
}

static void softmax_strided(const float *xo, float *yo, size_t axis_len, size_t inner) {
  for (size_t i0 = 0; i0 < inner; i0 += BLK) {
    const size_t nb = inner - i0 < BLK ? inner - i0 : BLK;
    float mx[BLK], sum[BLK];
    for (size_t t = 0; t < nb; t++) {
      mx[t] = xo[i0 + t];
      sum[t] = 0.0f;
    }
    for (size_t a = 1; a < axis_len; a++)
      for (size_t t = 0; t < nb; t++) {
        const float v = xo[a * inner + i0 + t];
        mx[t] = v > mx[t] ? v : mx[t];
      }
    for (size_t a = 0; a < axis_len; a++)
      for (size_t t = 0; t < nb; t++) {
        const float e = yk_exp_neg_f32_1(xo[a * inner + i0 + t] - mx[t]);
        yo[a * inner + i0 + t] = e;
        sum[t] += e;
      }
    for (size_t t = 0; t < nb; t++) sum[t] = 1.0f / sum[t];
    for (size_t a = 0; a < axis_len; a++)
      for (size_t t = 0; t < nb; t++) yo[a * inner + i0 + t] *= sum[t];
  }
}

void yk_softmax_f32__scalar(const float *x, float *y, size_t outer, size_t axis_len, size_t inner) {
  yk_softmax_f32_outer(x, y, outer, axis_len, inner, softmax_row, softmax_strided);
}
