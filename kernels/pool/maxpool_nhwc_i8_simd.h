/* maxpool_nhwc_i8_simd.h — NHWC int8 max pooling written once for every ISA: the variant file
 * defines POOL_FN (the function's name) and POOL_STEPS, its vector widths widest first as
 * POOL_STEP(vector type, channels, set1, max, load, store) rows; the last channels go one at a
 * time. The window's taps are visited in the reference's order (max is exact either way). No
 * include guard: included once per variant file. */
#include <stddef.h>

#include "pool_window.h"
#include "yk_variants.h"

/* The tap (ky, kx) of the window at offset base, channel ch. */
#define POOL_TAP(ky, kx) (x + (base + ((ptrdiff_t)(ky) * dh * w + (ptrdiff_t)(kx) * dw) * c + ch))
/* Channels [ch, ch + W) at a time while they last. */
#define POOL_STEP(VT, W, SET1, MAX, LOAD, STORE)                                   \
  for (; ch + (W) <= c; ch += (W)) {                                               \
    VT m = SET1(INT8_MIN);                                                         \
    for (int ky = ky0; ky < ky1; ky++)                                             \
      for (int kx = kx0; kx < kx1; kx++) m = MAX(m, LOAD(POOL_TAP(ky, kx)));       \
    STORE(out + ch, m);                                                            \
  }
static inline int8_t pool_max1(int8_t m, int8_t v) { return v > m ? v : m; }
#define POOL_SET1(v) ((int8_t)(v))
#define POOL_LOAD1(p) (*(p))
#define POOL_STORE1(p, v) (*(p) = (v))

void POOL_FN(const int8_t *x, int n, int h, int w, int c, int8_t *y, int oh, int ow, const yk_pool_params *p) {
  const int dh = p->dh > 0 ? p->dh : 1, dw = p->dw > 0 ? p->dw : 1;
  for (int b = 0; b < n; b++)
    for (int oy = 0; oy < oh; oy++) {
      int ky0, ky1;
      yk_pool_taps(oy, p->sh, p->pad_t, dh, p->kh, h, &ky0, &ky1);
      for (int ox = 0; ox < ow; ox++) {
        int kx0, kx1;
        yk_pool_taps(ox, p->sw, p->pad_l, dw, p->kw, w, &kx0, &kx1);
        int8_t *out = y + (((size_t)b * oh + oy) * ow + ox) * c;
        /* Offsets, not pointers: the window origin may lie in the padding. */
        const ptrdiff_t base = (((ptrdiff_t)b * h + (oy * p->sh - p->pad_t)) * w +
                                (ox * p->sw - p->pad_l)) * c;
        int ch = 0;
        POOL_STEPS
        POOL_STEP(int8_t, 1, POOL_SET1, pool_max1, POOL_LOAD1, POOL_STORE1)
      }
    }
}
