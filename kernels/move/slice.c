/* slice.c — strided Slice (also every output of Split). The longest contiguous source run
 * (innermost step-1 axis plus trailing full axes) is one memcpy: Split along C of an NHWC
 * tensor copies one run per pixel, Split along H copies one run per image. */
#include <string.h>

#include "copy_elem.h"
#include "yk.h"

/* A run of n bytes; the sizes of Split along C of an NHWC tensor (8-64 channels a pixel) as
 * fixed-size copies the compiler inlines: a memcpy call per pixel cost more than the copy. */
static inline void copy_run(uint8_t *y, const uint8_t *x, size_t n) {
  switch (n) {
    case 8: memcpy(y, x, 8); return;
    case 16: memcpy(y, x, 16); return;
    case 32: memcpy(y, x, 32); return;
    case 48: memcpy(y, x, 48); return;
    case 64: memcpy(y, x, 64); return;
    default: memcpy(y, x, n); return;
  }
}

void yk_slice(const void *x, const yk_shape *sx, void *y, const yk_shape *sy,
              const int64_t *starts, const int64_t *steps, size_t elem_size) {
  const int r = sx->rank < 0 ? 0 : (sx->rank > YK_MAX_RANK ? YK_MAX_RANK : sx->rank);
  const uint8_t *xb = (const uint8_t *)x;
  uint8_t *yb = (uint8_t *)y;
  if (r == 0) {
    memcpy(yb, xb, elem_size);
    return;
  }
  int64_t xs[YK_MAX_RANK];
  int64_t total = 1;
  for (int k = r - 1; k >= 0; k--) {
    xs[k] = (k == r - 1) ? 1 : xs[k + 1] * sx->d[k + 1];
    total *= sy->d[k];
  }
  if (total <= 0) return;

  /* Axes [m, r) form one run: axis m has step 1 and every later axis is taken whole. */
  int m = r - 1;
  int contiguous = steps[r - 1] == 1;
  int64_t run = sy->d[r - 1];
  if (contiguous) {
    while (m > 0 && starts[m] == 0 && sy->d[m] == sx->d[m] && steps[m - 1] == 1) {
      m--;
      run *= sy->d[m];
    }
  }
  /* Offset of the run's first element for the current outer index. */
  int64_t idx[YK_MAX_RANK] = {0};
  int64_t off = 0;
  for (int k = 0; k <= m; k++) off += starts[k] * xs[k];
  const int64_t runs = total / run;
  const size_t run_bytes = (size_t)run * elem_size;
  /* The outer axes whole with step 1 (a channel range of an NHWC tensor: a Split half): run q
   * starts q * xs[m - 1] elements after the first, one tight loop per run size (the index
   * bookkeeping below cost more than a 16-byte copy). */
  int linear = contiguous && m > 0;
  for (int k = 0; k < m && linear; k++) linear = steps[k] == 1 && starts[k] == 0 && sy->d[k] == sx->d[k];
  if (linear) {
    const uint8_t *src = xb + off * (int64_t)elem_size;
    const size_t sstep = (size_t)xs[m - 1] * elem_size;
#define LINEAR_RUNS(N) \
  for (int64_t q = 0; q < runs; q++, yb += (N), src += sstep) memcpy(yb, src, (N));
    switch (run_bytes) {
      case 8: LINEAR_RUNS(8) return;
      case 16: LINEAR_RUNS(16) return;
      case 32: LINEAR_RUNS(32) return;
      case 64: LINEAR_RUNS(64) return;
      default: LINEAR_RUNS(run_bytes) return;
    }
#undef LINEAR_RUNS
  }
  for (int64_t q = 0; q < runs; q++) {
    if (contiguous)
      copy_run(yb, xb + off * (int64_t)elem_size, run_bytes);
    else
      yk_copy_strided(yb, xb + off * (int64_t)elem_size, steps[r - 1], run, elem_size);
    yb += run_bytes;
    for (int k = m - 1; k >= 0; k--) {
      off += steps[k] * xs[k];
      if (++idx[k] < sy->d[k]) break;
      off -= steps[k] * xs[k] * sy->d[k];
      idx[k] = 0;
    }
  }
}
