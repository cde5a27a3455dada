/* maxpool_nhwc_i8_avx2.c — NHWC int8 max pooling, 32 channels per vector. */
#include <immintrin.h>

#include "pool_window.h"
#include "yk_variants.h"

void yk_maxpool_nhwc_i8__avx2(const int8_t *x, int n, int h, int w, int c, int8_t *y, int oh,
                              int ow, const yk_pool_params *p) {
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
        for (; ch + 32 <= c; ch += 32) {
          __m256i m = _mm256_set1_epi8(INT8_MIN);
          for (int ky = ky0; ky < ky1; ky++)
            for (int kx = kx0; kx < kx1; kx++) {
              const int8_t *in = x + (base + ((ptrdiff_t)ky * dh * w + (ptrdiff_t)kx * dw) * c + ch);
              m = _mm256_max_epi8(m, _mm256_loadu_si256((const __m256i *)(const void *)in));
            }
          _mm256_storeu_si256((__m256i *)(void *)(out + ch), m);
        }
        for (; ch + 16 <= c; ch += 16) {
          __m128i m = _mm_set1_epi8(INT8_MIN);
          for (int ky = ky0; ky < ky1; ky++)
            for (int kx = kx0; kx < kx1; kx++) {
              const int8_t *in = x + (base + ((ptrdiff_t)ky * dh * w + (ptrdiff_t)kx * dw) * c + ch);
              m = _mm_max_epi8(m, _mm_loadu_si128((const __m128i *)(const void *)in));
            }
          _mm_storeu_si128((__m128i *)(void *)(out + ch), m);
        }
        for (; ch < c; ch++) {
          int8_t m = INT8_MIN;
          for (int ky = ky0; ky < ky1; ky++)
            for (int kx = kx0; kx < kx1; kx++) {
              const int8_t v = x[base + ((ptrdiff_t)ky * dh * w + (ptrdiff_t)kx * dw) * c + ch];
              m = v > m ? v : m;
            }
          out[ch] = m;
        }
      }
    }
}
