/* softmax_f32_scalar.c — softmax over the middle axis of [outer][axis][inner]:
 * y = exp(x - max) / sum(exp(x - max)), sums in axis order. When inner > 1 (YOLO's DFL
 * softmax) the work runs over blocks of inner positions so every pass is contiguous. */
#include <math.h>

#include "yk_variants.h"

#define BLK 64

void yk_softmax_f32__scalar(const float *x, float *y, size_t outer, size_t axis_len,
                            size_t inner) {
  if (axis_len == 0) return;
  for (size_t o = 0; o < outer; o++) {
    const float *xo = x + o * axis_len * inner;
    float *yo = y + o * axis_len * inner;
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
          const float e = expf(xo[a * inner + i0 + t] - mx[t]);
          yo[a * inner + i0 + t] = e;
          sum[t] += e;
        }
      for (size_t a = 0; a < axis_len; a++)
        for (size_t t = 0; t < nb; t++) yo[a * inner + i0 + t] /= sum[t];
    }
  }
}

void yk_softmax_f32(const yk_isa *isa, const float *x, float *y, size_t outer, size_t axis_len,
                    size_t inner) {
  (void)isa;
  yk_softmax_f32__scalar(x, y, outer, axis_len, inner);
}
