/*
 * yk_dwconv.h — depthwise 3x3 int8 NHWC convolution over a RANGE of output rows, with weights
 * packed once (so the runtime can thread it over row ranges and run without allocating).
 *
 * Its scalar reference (dwconv_scalar.c), in a few words: any
 * channel count, stride 1 or 2, any pad_t/pad_l (padding holds x_zp, i.e. contributes 0),
 * per-channel requant scale, optional 256-entry LUT in the output pass:
 *   acc[c] = bias[c] + sum over in-image taps of (x - x_zp) * w
 *   y      = sat(round_half_even((float)acc * requant_scale[c]) + y_zp);  y = lut ? lut[y+128] : y
 * Every variant is bit-exact with yk_dwconv_rows__scalar, for any split into row ranges.
 *
 * SIMD variants (AVX-512 BW or VNNI, AVX2) widen x to int16, interleave two input rows per
 * channel and multiply-add pairs of taps with vpmaddwd (exact int32), on weights packed as int16
 * pairs in the channel order the unpack produces; padding reads as x_zp and the packed bias holds
 * bias - x_zp * sum(w), so the sums equal the reference's; stride 1 computes two output rows per
 * pass from four input rows. They need x_zp and y_zp in [-128, 127]; other zero points use the
 * scalar variant.
 *
 * Use: fill p, weights ([3][3][C] int8) and bias ([C] or NULL); yk_dwconv_init picks a variant
 * and sets packed_bytes; allocate that (64-byte aligned), yk_dwconv_pack (once); then
 * yk_dwconv_rows on disjoint ranges of the flattened n*oh output rows, from any threads.
 * requant_scale, lut, weights and bias must stay alive (the scalar/NEON variants read them).
 */
#ifndef YOLORT_YK_DWCONV_H
#define YOLORT_YK_DWCONV_H

#include <stddef.h>
#include <stdint.h>

#include "yk.h"

/* The variants: include/variants/dwconv.inc (the AVX-512 VNNI one is the AVX-512 kernel with
 * vpdpwssd). */
enum yk_dwconv_variant {
#define YK_DWCONV_VARIANT(E, v, s, on, cblk, cond) YK_DWCONV_##E = v,
#include "variants/dwconv.inc"
#undef YK_DWCONV_VARIANT
};

typedef struct yk_dwconv {
  yk_dw_params p;
  const int8_t *weights; /* [3][3][C] */
  const int32_t *bias;   /* [C] or NULL */
  /* filled by yk_dwconv_init / yk_dwconv_pack */
  int variant; /* chosen once by init; yk_dwconv_rows jumps to it (no ISA test per call) */
  int cblk;            /* channels per packed block (0: variant reads weights directly) */
  size_t packed_bytes; /* 0 when nothing to pack */
  void *packed;
} yk_dwconv;

/* Validate (c >= 1, stride 1 or 2, 0 <= pads <= 2; weights may be set after, before packing)
 * and choose a variant; 0 on success, -1 on a shape it cannot run. */
int yk_dwconv_init(yk_dwconv *d, const yk_isa *isa);
/* Force variant (a yk_dwconv_variant of this architecture; tests and benchmarks, after init): sets
 * cblk and packed_bytes; -1 when the variant is not built here. */
int yk_dwconv_set_variant(yk_dwconv *d, int variant);
/* Pack weights, bias and scales into mem (d->packed_bytes bytes, 64-byte aligned); sets d->packed. */
void yk_dwconv_pack(yk_dwconv *d, void *mem);
/* Output rows [row0, row1) of the flattened n*oh rows. */
void yk_dwconv_rows(const yk_dwconv *d, const int8_t *x, int8_t *y, int row0, int row1);

/* Variants, exposed for tests and benchmarks (the scalar and NEON ones read weights, bias and p
 * directly, the others the packed blocks). */
#define YK_DWCONV_VARIANT(E, v, s, on, cblk, cond) \
  on(void yk_dwconv_rows__##s(const yk_dwconv *d, const int8_t *x, int8_t *y, int row0, int row1);)
#include "variants/dwconv.inc"
#undef YK_DWCONV_VARIANT

/* Packed layout, per block of B = cblk channels (B a multiple of 8), in int32 units:
 *   [0, B)           bias - x_zp * sum(w) (lo half then hi half, see yk_dwconv_pack_pos)
 *   [B, 2B)          requant scale (float, same order)
 *   [2B + (s*3+kx)*B, +B)  weight pairs of set s, kernel column kx: int16 (first, second)
 *     s 0: (w[0][kx], w[1][kx])  with rows (r0, r1)   - output row with top input row r0
 *     s 1: (w[2][kx], 0)         with rows (r2, r3)
 *     s 2: (0, w[0][kx])         with rows (r0, r1)   - output row with top input row r1
 *     s 3: (w[1][kx], w[2][kx])  with rows (r2, r3)
 * Channels past C have zero weights, bias and scale. */
#define YK_DWCONV_BLOCK_I32(B) (14 * (B))
/* Position in a block's half-vector order of channel t (0 <= t < B): unpacklo/hi_epi16 of
 * two widened rows put channels 8L+j (j < 4) in dword 4L+j of "lo", 8L+4+j in that of "hi". */
static inline int yk_dwconv_pack_pos(int t, int B) {
  const int lane = t / 8, j = t % 8;
  return j < 4 ? 4 * lane + j : B / 2 + 4 * lane + (j - 4);
}

#endif /* YOLORT_YK_DWCONV_H */
