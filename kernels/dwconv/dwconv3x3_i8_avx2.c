/* dwconv3x3_i8_avx2.c — depthwise 3x3 int8 NHWC, 16 channels per step.
 * (x - x_zp) fits int16 and (x - x_zp) * w fits int16 exactly (|.| <= 255 * 128), so taps are
 * multiplied in int16 and widened to int32 for the sum; requant as the scalar (same float ops),
 * LUT applied per output row with the AVX2 LUT kernel. Channel tails use the same scalar math. */
#include "yk_avx2_inline.h"
#include "yk_variants.h"

static void taps(int o, int stride, int pad, int in, int *k0, int *k1) {
  const int base = o * stride - pad;
  *k0 = base < 0 ? -base : 0;
  *k1 = in - base < 3 ? in - base : 3;
  if (*k1 < *k0) *k1 = *k0;
}

void yk_dwconv3x3_i8__avx2(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                           const yk_dw_params *p) {
  if (p->x_zp < -128 || p->x_zp > 127) { /* int16 products would overflow: use the reference */
    yk_dwconv3x3_i8__scalar(x, w, bias, y, p);
    return;
  }
  const int C = p->c;
  const __m256i vxzp = _mm256_set1_epi16((short)p->x_zp);
  const __m256i vyzp = _mm256_set1_epi32(p->y_zp);
  for (int b = 0; b < p->n; b++)
    for (int oy = 0; oy < p->oh; oy++) {
      int ky0, ky1;
      taps(oy, p->stride, p->pad_t, p->h, &ky0, &ky1);
      const int iy0 = oy * p->stride - p->pad_t;
      int8_t *orow = y + ((size_t)b * p->oh + oy) * (size_t)p->ow * C;
      for (int ox = 0; ox < p->ow; ox++) {
        int kx0, kx1;
        taps(ox, p->stride, p->pad_l, p->w, &kx0, &kx1);
        const int ix0 = ox * p->stride - p->pad_l;
        int8_t *out = orow + (size_t)ox * C;
        int c = 0;
        for (; c + 16 <= C; c += 16) {
          __m256i acc0, acc1;
          if (bias) {
            acc0 = _mm256_loadu_si256((const __m256i *)(const void *)(bias + c));
            acc1 = _mm256_loadu_si256((const __m256i *)(const void *)(bias + c + 8));
          } else {
            acc0 = acc1 = _mm256_setzero_si256();
          }
          for (int ky = ky0; ky < ky1; ky++)
            for (int kx = kx0; kx < kx1; kx++) {
              const int8_t *in = x + (((size_t)b * p->h + (iy0 + ky)) * p->w + (ix0 + kx)) * C + c;
              const int8_t *wk = w + (size_t)(ky * 3 + kx) * C + c;
              __m256i xv = _mm256_sub_epi16(
                  _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)in)), vxzp);
              __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)wk));
              __m256i prod = _mm256_mullo_epi16(xv, wv);
              acc0 = _mm256_add_epi32(acc0, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(prod)));
              acc1 = _mm256_add_epi32(acc1, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(prod, 1)));
            }
          __m256 f0 = _mm256_mul_ps(_mm256_cvtepi32_ps(acc0), _mm256_loadu_ps(p->requant_scale + c));
          __m256 f1 = _mm256_mul_ps(_mm256_cvtepi32_ps(acc1), _mm256_loadu_ps(p->requant_scale + c + 8));
          _mm_storeu_si128((__m128i *)(void *)(out + c),
                           yk_avx2_pack16(yk_avx2_quant_i32(f0, vyzp), yk_avx2_quant_i32(f1, vyzp)));
        }
        for (; c < C; c++) {
          int32_t acc = bias ? bias[c] : 0;
          for (int ky = ky0; ky < ky1; ky++)
            for (int kx = kx0; kx < kx1; kx++) {
              const int8_t xv = x[(((size_t)b * p->h + (iy0 + ky)) * p->w + (ix0 + kx)) * C + c];
              acc += ((int32_t)xv - p->x_zp) * w[(size_t)(ky * 3 + kx) * C + c];
            }
          out[c] = yk_quant_val((float)acc * p->requant_scale[c], p->y_zp);
        }
      }
      if (p->lut) yk_lut_i8__avx2(orow, orow, (size_t)p->ow * C, p->lut);
    }
}
