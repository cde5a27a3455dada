/*
 * yk_conv16.h — NHWC convolution (groups = 1) of int16 activations by int8 weights (W8A16),
 * int32 accumulation, per-channel requantization to int8 and an optional fused 256-entry LUT:
 * the int8 conv's output stage (yk_qconv.h) behind an input with 256x finer steps, for the convs
 * where int8 activations lose the most (the stem: 3x3 stride 2 over the image).
 *
 * Activations are symmetric (zero point 0): padded taps contribute exactly 0 and no x_zp * sum(w)
 * correction exists. One product is at most 2^15 * 2^7 = 2^22 in magnitude, so 256 of them sum to
 * at most 2^30: K (taps x cin, order ky, kx, ci) is walked in blocks of YK_CONV16_KBLK values, each
 * block's int32 sum is exact (the bias, |bias| < 2^30, joins block 0), and the blocks are added in
 * float. Arithmetic (identical in every variant, so they are bit-exact):
 *   a[b]  = (b == 0 ? bias[c] : 0) + sum_{k in block b} x * w          (int32, exact)
 *   f     = (float)a[0];  f = f + (float)a[b] for b = 1, 2, ...          (in block order)
 *   v     = clamp(f * scale[c], -128 - y_zp, 127 - y_zp)
 *   y     = round_half_even(v) + y_zp;  y = lut ? lut[y + 128] : y
 * With K <= YK_CONV16_KBLK (the stem: 27) this is exactly the int8 conv's (float)acc * scale.
 *
 * int16 output (out16 = 1: the stem's convs whose output feeds another int16-input conv; a
 * 256-entry LUT cannot carry a 65536-value domain, so the activation is computed in float):
 *   v = act(f * scale[c])              (scale[c] = s_x * s_w[c]: the real value before the act)
 *   y = clamp(round_half_even(v * (1 / y_scale)), -32767, 32767)   (symmetric, NaN -> -32767)
 * with act none / relu / leaky relu (act_alpha) / sigmoid / silu, sigmoid's exp a fixed polynomial
 * (yk_conv16_out16, one portable function every variant and the reference call: bit-exact by
 * construction, and a vectorizable loop instead of libm's expf per value).
 *
 * Use: fill the shape fields, yk_conv16_init() checks them and picks a variant for the yk_isa,
 * yk_conv16_pack() fills c->packed_bytes of memory (once), yk_conv16_rows() computes any range of
 * the n * oh output rows (from several threads on disjoint ranges). No allocation inside: the
 * patches of YK_CONV16_MR pixels x one K block (4 KB) and their float sums (17 KB) live on the stack.
 */
#ifndef YOLORT_YK_CONV16_H
#define YOLORT_YK_CONV16_H

#include <stddef.h>
#include <stdint.h>

#include "yk.h"

#define YK_CONV16_KBLK 256      /* K values per exact int32 block (even: pairs never straddle) */
#define YK_CONV16_MR 8          /* output pixels per tile */
#define YK_CONV16_MAX_COUT 512  /* the float block sums of a tile live on the stack (17 KB) */
#define YK_CONV16_BIAS_MAX 1073741823 /* |bias| < 2^30: bias + one block stays in int32 */

/* The activations of the int16 output stage (out16). */
enum yk_conv16_act {
  YK_CONV16_ACT_NONE = 0,
  YK_CONV16_ACT_RELU = 1,
  YK_CONV16_ACT_LEAKY_RELU = 2, /* x >= 0 ? x : act_alpha * x */
  YK_CONV16_ACT_SIGMOID = 3,
  YK_CONV16_ACT_SILU = 4,
};

enum yk_conv16_variant {
#define YK_CONV16_VARIANT(E, v, s, on, lanes, kr, cond) YK_CONV16_##E = v,
#include "variants/conv16.inc"
#undef YK_CONV16_VARIANT
};

typedef struct yk_conv16 {
  /* shape (NHWC, dense; the batch as extra rows: n * oh) */
  int n, h, w, cin, oh, ow, cout;
  int kh, kw, sh, sw, pad_t, pad_l, dh, dw;
  int32_t y_zp;
  const int8_t *weights; /* [cout][kh][kw][cin] */
  const int32_t *bias;   /* [cout] or NULL; scale s_x * s_w[c], |bias| <= YK_CONV16_BIAS_MAX */
  const float *scale;    /* [cout]: s_x * s_w[c] / s_y */
  const int8_t *lut;     /* NULL or 256 entries indexed by y + 128 */
  /* int16 output: out16 1, then scale[c] = s_x * s_w[c], y_scale = s_y, act; y_zp 0, lut NULL */
  int out16;
  int act;               /* yk_conv16_act */
  float act_alpha;       /* leaky relu's slope */
  float y_scale;
  /* filled by yk_conv16_init / yk_conv16_pack */
  int variant;
  int lanes, kr;       /* the variant's packed column (0: the scalar reference, nothing packed) */
  int k, k2;           /* kh * kw * cin, and rounded up to even */
  size_t packed_bytes; /* 0 for the scalar reference */
  void *packed;
} yk_conv16;

/* Check the shape (y_zp an int8 value, cout <= YK_CONV16_MAX_COUT, bias in range when set; out16:
 * y_zp 0, no LUT, a known act, y_scale positive and finite) and
 * choose the first variant of conv16.inc the yk_isa runs; 0 on success, -1 on a shape it refuses. */
int yk_conv16_init(yk_conv16 *c, const yk_isa *isa);
/* Force a variant of this architecture (tests, benchmarks; after init): -1 when not built here. */
int yk_conv16_set_variant(yk_conv16 *c, int variant);
/* Pack weights, bias and scales into mem (c->packed_bytes bytes, 64-byte aligned); sets c->packed. */
void yk_conv16_pack(yk_conv16 *c, void *mem);
/* Output rows [row0, row1) of the flattened n * oh rows; y is int8_t, or int16_t with out16. */
void yk_conv16_rows(const yk_conv16 *c, const int16_t *x, void *y, int row0, int row1);

/* The quantize that feeds it: y = clamp(round_half_even(x / scale), -32767, 32767) (symmetric,
 * NaN -> -32767; IEEE division as yk_quantize_f32_i8). Portable: the image is 3 channels. */
void yk_quantize_f32_i16(const float *x, int16_t *y, size_t n, float scale);
/* And back, where an int16 tensor meets a float op: y = (float)x * scale (exact in float). */
void yk_dequantize_i16_f32(const int16_t *x, float *y, size_t n, float scale);

/* Variants, exposed for tests. */
#define YK_CONV16_VARIANT(E, v, s, on, lanes, kr, cond) \
  on(void yk_conv16_rows__##s(const yk_conv16 *c, const int16_t *x, void *y, int row0, int row1);)
#include "variants/conv16.inc"
#undef YK_CONV16_VARIANT

/* Shared by the packed variants (conv16.c). Packed layout, per column of L = lanes channels:
 * int32 bias[L], float scale[L], then int16 w[k2 / kr][L][kr] (zero beyond cout and k). */
static inline size_t yk_conv16_col_bytes(const yk_conv16 *c) {
  return (size_t)c->lanes * 8u + (size_t)c->k2 * (size_t)c->lanes * 2u;
}
/* The K values [k0, k1) of output pixel (r, ox)'s patch (r: flattened row), zeros for padded taps
 * and beyond k up to an even count, into p. */
void yk_conv16_patch(const yk_conv16 *c, const int16_t *x, int r, int ox, int k0, int k1, int16_t *p);
/* The output stage of one pixel: f[cout] (the float block sums) through scale, clamp, round, zp, LUT. */
static inline int8_t yk_conv16_out(float f, float scale, int32_t y_zp, const int8_t *lut) {
  float v = f * scale;
  const float lo = (float)(-128 - y_zp), hi = (float)(127 - y_zp);
  v = v < lo ? lo : (v > hi ? hi : v);
  const int8_t q = (int8_t)(yk_round_half_even(v) + y_zp);
  return lut ? lut[q + 128] : q;
}

/* The int16 output stage of n channels of one pixel (out16): f[n] sums, scale[n] (s_x * s_w),
 * c's act / act_alpha / y_scale, into y[n]. conv16_out16.c: the one copy every variant calls. */
void yk_conv16_out16(const float *f, const float *scale, const yk_conv16 *c, int16_t *y, int n);

#endif /* YOLORT_YK_CONV16_H */
