/* gather.c — Gather along one axis: one memcpy of the inner block per (outer, index). */
#include <string.h>

#include "yk.h"

void yk_gather(const void *x, const yk_shape *sx, int axis, const int32_t *idx, size_t n_idx,
               void *y, size_t elem_size) {
  const int r = sx->rank < 0 ? 0 : (sx->rank > YK_MAX_RANK ? YK_MAX_RANK : sx->rank);
  if (r == 0 || axis < 0 || axis >= r) return;
  size_t outer = 1, inner = 1;
  for (int k = 0; k < axis; k++) outer *= (size_t)sx->d[k];
  for (int k = axis + 1; k < r; k++) inner *= (size_t)sx->d[k];
  const int64_t dim = sx->d[axis];
  const size_t blk = inner * elem_size;
  const uint8_t *xb = (const uint8_t *)x;
  uint8_t *yb = (uint8_t *)y;
  for (size_t o = 0; o < outer; o++) {
    const uint8_t *xo = xb + o * (size_t)dim * blk;
    for (size_t j = 0; j < n_idx; j++) {
      int64_t i = idx[j] < 0 ? idx[j] + dim : idx[j];
      memcpy(yb, xo + (size_t)i * blk, blk);
      yb += blk;
    }
  }
}
