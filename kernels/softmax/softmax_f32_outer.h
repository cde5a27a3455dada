/* softmax_f32_outer.h — the walk over [outer][axis_len][inner] every yk_softmax_f32 variant
 * shares: each outer slice is one contiguous row (inner 1) or inner strided columns, given as the
 * variant's own static row / strided functions (inlined here: direct calls). */
#ifndef YOLORT_SOFTMAX_F32_OUTER_H
#define YOLORT_SOFTMAX_F32_OUTER_H

#include <stddef.h>

static inline void yk_softmax_f32_outer(const float *x, float *y, size_t outer, size_t axis_len, size_t inner,
                                        void (*row)(const float *, float *, size_t),
                                        void (*strided)(const float *, float *, size_t, size_t)) {
  if (axis_len == 0 || inner == 0) return;
  for (size_t o = 0; o < outer; o++) {
    const float *xo = x + o * axis_len * inner;
    float *yo = y + o * axis_len * inner;
    if (inner == 1)
      row(xo, yo, axis_len);
    else
      strided(xo, yo, axis_len, inner);
  }
}

#endif /* YOLORT_SOFTMAX_F32_OUTER_H */
