/* qconv_nhwc_avx512vnni.c — int8 NHWC convolution on AVX-512 VNNI (+VBMI for the LUT).
 *
 * Micro-kernel: MR = 6 output pixels x NZ * 16 output channels (NZ = 1..4 zmm), K walked as
 * taps x groups of 4 input channels; each step is one dword broadcast per pixel (sign bit flipped
 * to make it u8) and one vpdpbusd per accumulator. Packed memory (64-byte aligned pieces):
 *   int32 bias_adj[cout16]   bias - (128 + x_zp) * sum(w)   (the u8 shift correction)
 *   float scale[cout16]
 *   int8  pad_row[cin]       x_zp: padded taps then contribute exactly zero
 *   int8  weights: per 64-channel block, per tap, per 4-channel group, NZ x 64 bytes
 *                  (lane l of zmm z = output channel 64*b + 16*z + l, its 4 consecutive inputs).
 */
#include <immintrin.h>
#include <string.h>

#include "yk_qconv.h"

#define MR 6

static size_t align64(size_t v) { return (v + 63) & ~(size_t)63; }

static int cout16(const yk_qconv *c) { return (c->cout + 15) & ~15; }

static size_t weights_offset(const yk_qconv *c) {
  return align64((size_t)cout16(c) * 4) * 2 + align64((size_t)c->cin);
}

static size_t block_bytes(const yk_qconv *c, int b) {
  int nch = c->cout - 64 * b;
  if (nch > 64) nch = 64;
  const int nz = (nch + 15) / 16;
  return (size_t)c->kh * c->kw * (size_t)(c->cin / 4) * (size_t)nz * 64;
}

size_t yk_qconv_packed_bytes__avx512vnni(const yk_qconv *c) {
  size_t total = weights_offset(c);
  for (int b = 0; b * 64 < c->cout; b++) total += block_bytes(c, b);
  return align64(total);
}

void yk_qconv_pack__avx512vnni(yk_qconv *c, void *mem) {
  uint8_t *base = mem;
  const int c16 = cout16(c), taps = c->kh * c->kw, cin4 = c->cin / 4;
  int32_t *bias = (int32_t *)base;
  float *scale = (float *)(base + align64((size_t)c16 * 4));
  int8_t *pad = (int8_t *)(base + 2 * align64((size_t)c16 * 4));
  int8_t *w = (int8_t *)(base + weights_offset(c));
  for (int oc = 0; oc < c16; oc++) {
    int32_t sum = 0;
    if (oc < c->cout) {
      const int8_t *wo = c->weights + (size_t)oc * taps * c->cin;
      for (int k = 0; k < taps * c->cin; k++) sum += wo[k];
    }
    bias[oc] = oc < c->cout ? (c->bias ? c->bias[oc] : 0) - (128 + c->x_zp) * sum : 0;
    scale[oc] = oc < c->cout ? c->scale[oc] : 0.0f;
  }
  memset(pad, (int8_t)c->x_zp, (size_t)c->cin);
  for (int b = 0; b * 64 < c->cout; b++) {
    int nch = c->cout - 64 * b;
    if (nch > 64) nch = 64;
    const int nz = (nch + 15) / 16;
    for (int t = 0; t < taps; t++)
      for (int g = 0; g < cin4; g++)
        for (int z = 0; z < nz; z++)
          for (int l = 0; l < 16; l++) {
            const int oc = 64 * b + 16 * z + l;
            for (int j = 0; j < 4; j++)
              *w++ = oc < c->cout ? c->weights[((size_t)oc * taps + t) * c->cin + g * 4 + j] : 0;
          }
  }
  c->packed = mem;
}

static inline __m512i bcast_u8x4(const int8_t *p) {
  int32_t v;
  memcpy(&v, p, 4);
  return _mm512_xor_si512(_mm512_set1_epi32(v), _mm512_set1_epi32((int)0x80808080u));
}

/* 256-entry LUT on 64 bytes with two vpermi2b and a blend on the index's top bit. */
static inline __m512i lut64(__m512i v, const __m512i t[4]) {
  const __m512i idx = _mm512_xor_si512(v, _mm512_set1_epi8((char)0x80));
  const __m512i lo = _mm512_permutex2var_epi8(t[0], idx, t[1]);
  const __m512i hi = _mm512_permutex2var_epi8(t[2], idx, t[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
}

static inline __attribute__((always_inline)) void tile(const yk_qconv *c, const int8_t *x,
                                                       int8_t *y, int p0, int mr, int b,
                                                       const int nz) {
  const uint8_t *base = c->packed;
  const int c16 = cout16(c), taps = c->kh * c->kw, cin4 = c->cin / 4;
  const int32_t *bias = (const int32_t *)base;
  const float *scale = (const float *)(base + align64((size_t)c16 * 4));
  const int8_t *pad = (const int8_t *)(base + 2 * align64((size_t)c16 * 4));
  const int8_t *wb = (const int8_t *)(base + weights_offset(c));
  for (int bb = 0; bb < b; bb++) wb += block_bytes(c, bb);

  int iy0[MR], ix0[MR];
  const int8_t *img[MR];
  for (int m = 0; m < MR; m++) {
    const int p = p0 + (m < mr ? m : mr - 1);
    const int ox = p % c->ow, r = p / c->ow, oy = r % c->oh, n = r / c->oh;
    iy0[m] = oy * c->sh - c->pad_t;
    ix0[m] = ox * c->sw - c->pad_l;
    img[m] = x + (size_t)n * c->h * c->w * c->cin;
  }
  __m512i acc[MR][4];
  for (int z = 0; z < nz; z++) {
    const __m512i bz = _mm512_loadu_si512(bias + 64 * b + 16 * z);
    for (int m = 0; m < MR; m++) acc[m][z] = bz;
  }
  for (int ky = 0; ky < c->kh; ky++) {
    for (int kx = 0; kx < c->kw; kx++) {
      const int8_t *ptr[MR];
      for (int m = 0; m < MR; m++) {
        const int iy = iy0[m] + ky * c->dh, ix = ix0[m] + kx * c->dw;
        ptr[m] = (iy >= 0 && iy < c->h && ix >= 0 && ix < c->w)
                     ? img[m] + ((size_t)iy * c->w + ix) * c->cin
                     : pad;
      }
      const int8_t *wt = wb + (size_t)(ky * c->kw + kx) * cin4 * nz * 64;
      for (int g = 0; g < cin4; g++) {
        __m512i wz[4];
        for (int z = 0; z < nz; z++) wz[z] = _mm512_loadu_si512(wt + ((size_t)g * nz + z) * 64);
        for (int m = 0; m < MR; m++) {
          const __m512i xb = bcast_u8x4(ptr[m] + 4 * g);
          for (int z = 0; z < nz; z++) acc[m][z] = _mm512_dpbusd_epi32(acc[m][z], xb, wz[z]);
        }
      }
      (void)taps;
    }
  }
  const __m512 lo = _mm512_set1_ps((float)(-128 - c->y_zp));
  const __m512 hi = _mm512_set1_ps((float)(127 - c->y_zp));
  const __m512i zp = _mm512_set1_epi32(c->y_zp);
  for (int m = 0; m < mr; m++) {
    int8_t *yo = y + (size_t)(p0 + m) * c->cout + 64 * b;
    for (int z = 0; z < nz; z++) {
      const int rem = c->cout - (64 * b + 16 * z);
      const __mmask16 k = rem >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << rem) - 1);
      __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[m][z]),
                               _mm512_loadu_ps(scale + 64 * b + 16 * z));
      v = _mm512_max_ps(_mm512_min_ps(v, hi), lo);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(v), zp);
      _mm512_mask_cvtsepi32_storeu_epi8(yo + 16 * z, k, q);
    }
  }
}

void yk_qconv_rows__avx512vnni(const yk_qconv *c, const int8_t *x, int8_t *y, int row0,
                               int row1) {
  const int pend = row1 * c->ow;
  const int nblocks = (c->cout + 63) / 64;
  __m512i t[4];
  if (c->lut)
    for (int i = 0; i < 4; i++) t[i] = _mm512_loadu_si512(c->lut + 64 * i);
  for (int p0 = row0 * c->ow; p0 < pend; p0 += MR) {
    const int mr = pend - p0 < MR ? pend - p0 : MR;
    for (int b = 0; b < nblocks; b++) {
      int nch = c->cout - 64 * b;
      if (nch > 64) nch = 64;
      switch ((nch + 15) / 16) {
        case 1: tile(c, x, y, p0, mr, b, 1); break;
        case 2: tile(c, x, y, p0, mr, b, 2); break;
        case 3: tile(c, x, y, p0, mr, b, 3); break;
        default: tile(c, x, y, p0, mr, b, 4); break;
      }
    }
    if (c->lut) {
      /* Fused output pass: the tile's bytes are still in L1. */
      int8_t *yo = y + (size_t)p0 * c->cout;
      size_t n = (size_t)mr * c->cout, i = 0;
      for (; i + 64 <= n; i += 64)
        _mm512_storeu_si512(yo + i, lut64(_mm512_loadu_si512(yo + i), t));
      if (i < n) {
        const __mmask64 k = ((__mmask64)1 << (n - i)) - 1;
        _mm512_mask_storeu_epi8(yo + i, k, lut64(_mm512_maskz_loadu_epi8(k, yo + i), t));
      }
    }
  }
}
