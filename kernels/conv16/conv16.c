/* conv16.c — shape checks, variant choice (once, into c->variant), weight packing, the patch
 * gather and dispatch of yk_conv16 (yk_conv16.h; the variants: include/variants/conv16.inc). */
#include <string.h>

#include "conv16_driver.h"

int yk_conv16_set_variant(yk_conv16 *c, int variant) {
  int built = 0;
#define YK_CONV16_VARIANT(E, v, s, on, l, r, cond) \
  on(if (variant == v) {                           \
    c->lanes = l;                                  \
    c->kr = r;                                     \
    built = 1;                                     \
  })
#include "variants/conv16.inc"
#undef YK_CONV16_VARIANT
  if (!built) return -1;
  c->variant = variant;
  c->packed_bytes = 0;
  if (c->lanes) {
    const size_t cols = (size_t)(c->cout + c->lanes - 1) / (size_t)c->lanes;
    c->packed_bytes = cols * yk_conv16_col_bytes(c);
  }
  return 0;
}

int yk_conv16_init(yk_conv16 *c, const yk_isa *isa) {
  c->variant = YK_CONV16_SCALAR;
  c->lanes = c->kr = 0;
  c->packed_bytes = 0;
  c->packed = NULL;
  if (c->n < 1 || c->h < 1 || c->w < 1 || c->cin < 1 || c->oh < 1 || c->ow < 1 || c->cout < 1 ||
      c->cout > YK_CONV16_MAX_COUT || c->kh < 1 || c->kw < 1 || c->sh < 1 || c->sw < 1 ||
      c->dh < 1 || c->dw < 1 || c->pad_t < 0 || c->pad_l < 0 || c->y_zp < -128 || c->y_zp > 127 ||
      !c->scale)
    return -1;
  /* K in int: kh * kw * cin below 2^30 (a conv's weights are far smaller) */
  if (c->out16 && (c->out16 != 1 || c->y_zp != 0 || c->lut || c->act < YK_CONV16_ACT_NONE ||
                   c->act > YK_CONV16_ACT_SILU || !(c->y_scale > 0.0f && c->y_scale < 3.4e38f) ||
                   !(c->act_alpha > -3.4e38f && c->act_alpha < 3.4e38f)))
    return -1;
  const int64_t k = (int64_t)c->kh * c->kw * c->cin;
  if (k > (1 << 30)) return -1;
  c->k = (int)k;
  c->k2 = (c->k + 1) & ~1;
  if (c->bias)
    for (int i = 0; i < c->cout; i++)
      if (c->bias[i] > YK_CONV16_BIAS_MAX || c->bias[i] < -YK_CONV16_BIAS_MAX) return -1;
  int pick = -1;
#define YK_CONV16_VARIANT(E, v, s, on, l, r, cond) \
  on(if (pick < 0 && (v == YK_CONV16_SCALAR || (isa && (cond)))) pick = v;)
#include "variants/conv16.inc"
#undef YK_CONV16_VARIANT
  return yk_conv16_set_variant(c, pick);
}

void yk_conv16_pack(yk_conv16 *c, void *mem) {
  c->packed = mem;
  if (!c->lanes) return;
  const int L = c->lanes, kr = c->kr, K = c->k;
  const size_t col_bytes = yk_conv16_col_bytes(c);
  memset(mem, 0, c->packed_bytes);
  for (int c0 = 0; c0 < c->cout; c0 += L) {
    uint8_t *col = (uint8_t *)mem + (size_t)(c0 / L) * col_bytes;
    int32_t *bias = (int32_t *)(void *)col;
    float *scale = (float *)(void *)(col + (size_t)L * 4u);
    int16_t *w = (int16_t *)(void *)(col + (size_t)L * 8u);
    for (int t = 0; t < L && c0 + t < c->cout; t++) {
      const int co = c0 + t;
      bias[t] = c->bias ? c->bias[co] : 0;
      scale[t] = c->scale[co];
      const int8_t *wc = c->weights + (size_t)co * (size_t)K;
      for (int k = 0; k < K; k++)
        w[((size_t)(k / kr) * (size_t)L + (size_t)t) * (size_t)kr + (size_t)(k % kr)] = wc[k];
    }
  }
}

void yk_conv16_patch(const yk_conv16 *c, const int16_t *x, int r, int ox, int k0, int k1, int16_t *p) {
  const int b = r / c->oh, oy = r % c->oh, cin = c->cin;
  const int iy0 = oy * c->sh - c->pad_t, ix0 = ox * c->sw - c->pad_l;
  for (int k = k0; k < k1;) {
    /* one tap's run of channels (or the part of it inside the block) */
    const int tap = k / cin, ci = k % cin, run = cin - ci < k1 - k ? cin - ci : k1 - k;
    const int iy = iy0 + (tap / c->kw) * c->dh, ix = ix0 + (tap % c->kw) * c->dw;
    if (iy < 0 || iy >= c->h || ix < 0 || ix >= c->w)
      memset(p, 0, (size_t)run * sizeof(int16_t));
    else
      memcpy(p, x + (((size_t)b * (size_t)c->h + (size_t)iy) * (size_t)c->w + (size_t)ix) * (size_t)cin + (size_t)ci,
             (size_t)run * sizeof(int16_t));
    p += run;
    k += run;
  }
  if ((k1 - k0) & 1) *p = 0;
}

/* Short runs (the stem's kernel row: 9 values) copied inline: a libc call per run cost more than
 * the multiply-adds it feeds. */
static inline void copy16(int16_t *restrict d, const int16_t *restrict s, size_t n) {
  for (size_t i = 0; i < n; i++) d[i] = s[i];
}
static inline void zero16(int16_t *d, size_t n) {
  for (size_t i = 0; i < n; i++) d[i] = 0;
}

/* The whole patch (k <= YK_CONV16_KBLK) of pixel (r, ox) a kernel row at a time: with dilation 1
 * a row inside the image is kw * cin contiguous values (the stem: 9). */
static void patch_rows(const yk_conv16 *c, const int16_t *x, int b, int oy, int ox, int16_t *p) {
  const int cin = c->cin, kw = c->kw;
  const int iy0 = oy * c->sh - c->pad_t, ix0 = ox * c->sw - c->pad_l;
  const int row_inside = c->dw == 1 && ix0 >= 0 && ix0 + kw <= c->w;
  const size_t run = (size_t)kw * (size_t)cin;
  for (int ky = 0; ky < c->kh; ky++, p += run) {
    const int iy = iy0 + ky * c->dh;
    if (iy < 0 || iy >= c->h) {
      zero16(p, run);
      continue;
    }
    const int16_t *xr = x + ((size_t)b * (size_t)c->h + (size_t)iy) * (size_t)c->w * (size_t)cin;
    if (row_inside) {
      copy16(p, xr + (size_t)ix0 * (size_t)cin, run);
      continue;
    }
    for (int kx = 0; kx < kw; kx++) {
      const int ix = ix0 + kx * c->dw;
      if (ix < 0 || ix >= c->w) zero16(p + (size_t)kx * (size_t)cin, (size_t)cin);
      else copy16(p + (size_t)kx * (size_t)cin, xr + (size_t)ix * (size_t)cin, (size_t)cin);
    }
  }
  if (c->k & 1) *p = 0;
}

void yk_conv16_drive(const yk_conv16 *c, const int16_t *x, void *y, int row0, int row1,
                     yk_conv16_ukernel uk, yk_conv16_outfn out) {
  /* the MR pixels' patches of one K block; the float block sums [col][MR][lanes] of the tile */
  int16_t patch[YK_CONV16_MR * YK_CONV16_KBLK];
  float f[YK_CONV16_MR * (YK_CONV16_MAX_COUT + 16)];
  const int L = c->lanes, cols = (c->cout + L - 1) / L;
  const size_t col_bytes = yk_conv16_col_bytes(c);
  for (int r = row0; r < row1; r++)
    for (int ox0 = 0; ox0 < c->ow; ox0 += YK_CONV16_MR) {
      const int mr = c->ow - ox0 < YK_CONV16_MR ? c->ow - ox0 : YK_CONV16_MR;
      for (int k0 = 0; k0 < c->k; k0 += YK_CONV16_KBLK) {
        const int k1 = c->k - k0 < YK_CONV16_KBLK ? c->k : k0 + YK_CONV16_KBLK;
        /* missing pixels of a short tile repeat the last one (computed, not stored) */
        for (int m = 0; m < YK_CONV16_MR; m++) {
          const int ox = ox0 + (m < mr ? m : mr - 1);
          if (c->k <= YK_CONV16_KBLK) patch_rows(c, x, r / c->oh, r % c->oh, ox, patch + m * YK_CONV16_KBLK);
          else yk_conv16_patch(c, x, r, ox, k0, k1, patch + m * YK_CONV16_KBLK);
        }
        for (int j = 0; j < cols; j++) {
          const uint8_t *col = (const uint8_t *)c->packed + (size_t)j * col_bytes;
          const int16_t *w = (const int16_t *)(const void *)(col + (size_t)L * 8u) + (size_t)k0 * (size_t)L;
          uk(patch, w, (k1 - k0 + 1) & ~1, k0 == 0 ? (const int32_t *)(const void *)col : NULL,
             f + (size_t)j * YK_CONV16_MR * (size_t)L);
        }
      }
      if (c->out16) {
        for (int m = 0; m < mr; m++) {
          int16_t *yp = (int16_t *)y + ((size_t)r * (size_t)c->ow + (size_t)(ox0 + m)) * (size_t)c->cout;
          for (int j = 0; j < cols; j++) {
            const float *scale = (const float *)(const void *)((const uint8_t *)c->packed + (size_t)j * col_bytes + (size_t)L * 4u);
            yk_conv16_out16(f + ((size_t)j * YK_CONV16_MR + (size_t)m) * (size_t)L, scale, c, yp + (size_t)j * (size_t)L,
                            c->cout - j * L < L ? c->cout - j * L : L);
          }
        }
        continue;
      }
      for (int m = 0; m < mr; m++) {
        int8_t *yp = (int8_t *)y + ((size_t)r * (size_t)c->ow + (size_t)(ox0 + m)) * (size_t)c->cout;
        for (int j = 0; j < cols; j++) {
          const float *scale = (const float *)(const void *)((const uint8_t *)c->packed + (size_t)j * col_bytes + (size_t)L * 4u);
          out(f + ((size_t)j * YK_CONV16_MR + (size_t)m) * (size_t)L, scale, c->y_zp, yp + (size_t)j * (size_t)L,
              c->cout - j * L < L ? c->cout - j * L : L);
        }
        if (c->lut)
          for (int co = 0; co < c->cout; co++) yp[co] = c->lut[yp[co] + 128];
      }
    }
}

void yk_conv16_rows(const yk_conv16 *c, const int16_t *x, void *y, int row0, int row1) {
  switch (c->variant) {
#define YK_CONV16_VARIANT(E, v, s, on, l, r, cond) on(case v : yk_conv16_rows__##s(c, x, y, row0, row1); return;)
#include "variants/conv16.inc"
#undef YK_CONV16_VARIANT
    default: yk_conv16_rows__scalar(c, x, y, row0, row1); return;
  }
}
