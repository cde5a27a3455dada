/* qconv_nhwc_neon.c — int8 NHWC convolution on AArch64 NEON (ARMv8.0), plus the packing and the
 * tile driver that the dot-product variant (qconv_nhwc_neondot.c) shares; layout in
 * qconv_nhwc_neon.h.
 *
 * Micro-kernel without dot product: MR pixels x NZ columns of 4 output channels. Per 4-byte K
 * step, the pixel's dword is broadcast to 16 bytes, SMULL/SMULL2 give the 16 int16 products
 * against a column (exact: |int8 * int8| <= 2^14) and SADALP adds them pairwise into two int32x4
 * accumulators per column; one ADDP per column at the end gives the 4 channel sums. When no
 * weight is -128 (symmetric quantization), SMLAL/SMLAL2 first add a second K step's products in
 * int16: 6 instructions per 32 MACs instead of 8. Integer sums
 * are exact (and wrap like the reference's int32), so the result is bit-exact with the scalar
 * reference whatever the order.
 */
/* gcc's first (pre-allocation) scheduler raises register pressure in the K loops until the
 * allocator copies accumulators around or spills them (measured in the disassembly: 4x4 SDOT
 * loop 51 -> 44 instructions, no spills in the SMLAL one); it only reorders, results are equal. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif
#include "qconv_nhwc_neon.h"
#include "qconv_segments.h"

#if YK_ARCH_AARCH64



static int cout4(const yk_qconv *c) { return (c->cout + 3) & ~3; }

static size_t weights_offset(const yk_qconv *c) {
  return align64((size_t)cout4(c) * 4) * 2 + align64((size_t)c->seg_bytes);
}

/* Bytes of one full block of NZ columns (the last block may have fewer columns). */
static size_t block_stride(const yk_qconv *c) {
  return (size_t)c->nseg * (size_t)(c->seg_bytes / 4) * (size_t)c->nz * 16;
}

void yk_qconv_blocking__neon(int cout, int dot, int *mr, int *nz) {
  const int cols = (cout + 3) / 4;
  if (dot) {
    /* MR*NZ accumulators + 2*NZ weight columns (two K steps) + the pixel's 8 bytes <= 32 */
    if (cols == 1) *mr = 8, *nz = 1;
    else if (cols == 2) *mr = 8, *nz = 2;
    else if (cols == 3) *mr = 6, *nz = 3;
    else *mr = 4, *nz = 4;
  } else {
    /* two accumulators per pixel and column */
    if (cols == 1) *mr = 8, *nz = 1;
    else *mr = 4, *nz = 2;
  }
}

static int valid_blocking(int variant, int mr, int nz) {
  if (variant == YK_QCONV_NEONDOT)
    return (mr == 8 && nz <= 2) || (mr == 6 && nz <= 3) || (mr == 4 && nz <= 4);
  if (variant == YK_QCONV_NEON) return (mr == 8 && nz == 1) || (mr == 4 && nz <= 2);
  return 0;
}


size_t yk_qconv_packed_bytes__neon(yk_qconv *c) {
  if (!valid_blocking(c->variant, c->mr, c->nz)) return 0;
  if (!((c->dw == 1 && seg_plan(c, c->kw, 8)) || seg_plan(c, 1, 8))) {
    c->nseg = 0;
    return 0;
  }
  const int cols = cout4(c) / 4, nblocks = (cols + c->nz - 1) / c->nz;
  return align64(weights_offset(c) + (size_t)nblocks * block_stride(c));
}

void yk_qconv_pack__neon(yk_qconv *c, void *mem) {
  uint8_t *base = mem;
  const int c4 = cout4(c), taps = c->kh * c->kw, cols = c4 / 4;
  const int span = c->seg_span, spk = c->kw / span, steps = c->seg_bytes / 4;
  int8_t *w = (int8_t *)(base + weights_offset(c));
  pack_head(c, c4, c->x_zp, base);
  c->w_sym = 1;
  for (size_t k = 0; k < (size_t)c->cout * taps * c->cin; k++)
    if (c->weights[k] == INT8_MIN) c->w_sym = 0;
  for (int col0 = 0; col0 < cols; col0 += c->nz) {
    const int nz = cols - col0 < c->nz ? cols - col0 : c->nz;
    for (int s = 0; s < c->nseg; s++) {
      const int ky = s / spk, kx0 = (s % spk) * span;
      for (int g = 0; g < steps; g++)
        for (int z = 0; z < nz; z++)
          for (int l = 0; l < 4; l++) {
            const int oc = 4 * (col0 + z) + l;
            for (int j = 0; j < 4; j++) {
              const int k = 4 * g + j, kx = kx0 + k / c->cin, ci = k % c->cin;
              *w++ = oc < c->cout && k < span * c->cin
                         ? c->weights[((size_t)oc * taps + ky * c->kw + kx) * c->cin + ci]
                         : 0;
            }
          }
    }
  }
  c->packed = mem;
}

/* ---- tile driver (shared with the dot-product variant) */



void yk_qconv_drive__neon(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1,
                          yk_qn_block_fn full, yk_qn_block_fn last) {
  const uint8_t *base = c->packed;
  const int c4 = cout4(c), cols = c4 / 4, MR = c->mr, NZ = c->nz;
  const int32_t *bias = (const int32_t *)base;
  const float *scale = (const float *)(base + align64((size_t)c4 * 4));
  const int8_t *pad = (const int8_t *)(base + 2 * align64((size_t)c4 * 4));
  const int8_t *wbase = (const int8_t *)(base + weights_offset(c));
  const size_t bstride = block_stride(c), ys = yk_qconv_ys(c);
  const int8_t *sp[NSEG_MAX * YK_QN_MR_MAX];
  _Alignas(16) int8_t scratch[SCRATCH_BYTES];

  yk_qn_block_args a = {.sp = sp, .nseg = c->nseg, .steps = c->seg_bytes / 4,
                        .ystride = (int)ys, .pair = c->w_sym, .lo = (float)(-128 - c->y_zp),
                        .hi = (float)(127 - c->y_zp), .y_zp = c->y_zp, .lut = c->lut};
  const int ow = c->ow;
  const seg_geom g = seg_geom_of(c, x, pad);
  const int pend = row1 * ow;
  for (int p0 = row0 * ow; p0 < pend; p0 += MR) {
    const int mr = pend - p0 < MR ? pend - p0 : MR;
    tile_segments(&g, sp, MR, p0, mr, scratch);
    a.mr = mr;
    for (int col0 = 0, b = 0; col0 < cols; col0 += NZ, b++) {
      a.w = wbase + (size_t)b * bstride;
      a.bias = bias + 4 * col0;
      a.scale = scale + 4 * col0;
      if (c->out_f32) a.yf = (float *)y + (size_t)p0 * ys + 4 * col0;
      else a.y = (int8_t *)y + (size_t)p0 * ys + 4 * col0;
      a.nch = c->cout - 4 * col0;
      (col0 + NZ <= cols ? full : last)(&a);
    }
  }
}

/* ---- micro-kernel without dot product */

static inline __attribute__((always_inline)) void block_kernel(const yk_qn_block_args *a,
                                                               const int MR, const int NZ) {
  int32x4_t lo[YK_QN_MR_MAX][2], hi[YK_QN_MR_MAX][2];
#pragma GCC unroll 8
  for (int m = 0; m < MR; m++)
#pragma GCC unroll 2
    for (int z = 0; z < NZ; z++) lo[m][z] = hi[m][z] = vdupq_n_s32(0);
  const int8_t *w = a->w;
  const int steps = a->steps;
  for (int s = 0; s < a->nseg; s++) {
    const int8_t *p[YK_QN_MR_MAX];
#pragma GCC unroll 8
    for (int m = 0; m < MR; m++) p[m] = a->sp[s * MR + m];
    int g = 0;
    if (a->pair) {
      /* Two K steps per SADALP: x0 * w0 + x1 * w1 is exact in int16 when no weight is -128
       * (|sum| <= 2 * 128 * 127). */
      for (; g + 2 <= steps; g += 2) {
        int8x16_t w0[2], w1[2];
#pragma GCC unroll 2
        for (int z = 0; z < NZ; z++) {
          w0[z] = vld1q_s8(w + 16 * z);
          w1[z] = vld1q_s8(w + 16 * (NZ + z));
        }
        w += 32 * NZ;
#pragma GCC unroll 8
        for (int m = 0; m < MR; m++) {
          const int32x2_t xv = vreinterpret_s32_s8(vld1_s8(p[m] + 4 * g));
          const int8x16_t x0 = vreinterpretq_s8_s32(vdupq_lane_s32(xv, 0));
          const int8x16_t x1 = vreinterpretq_s8_s32(vdupq_lane_s32(xv, 1));
#pragma GCC unroll 2
          for (int z = 0; z < NZ; z++) {
            int16x8_t pl = vmull_s8(vget_low_s8(x0), vget_low_s8(w0[z]));
            int16x8_t ph = vmull_high_s8(x0, w0[z]);
            pl = vmlal_s8(pl, vget_low_s8(x1), vget_low_s8(w1[z]));
            ph = vmlal_high_s8(ph, x1, w1[z]);
            lo[m][z] = vpadalq_s16(lo[m][z], pl);
            hi[m][z] = vpadalq_s16(hi[m][z], ph);
          }
        }
      }
    }
    for (; g < steps; g++) {
      int8x16_t wz[2];
#pragma GCC unroll 2
      for (int z = 0; z < NZ; z++) wz[z] = vld1q_s8(w + 16 * z);
      w += 16 * NZ;
#pragma GCC unroll 8
      for (int m = 0; m < MR; m++) {
        int32_t v;
        memcpy(&v, p[m] + 4 * g, 4);
        const int8x16_t xd = vreinterpretq_s8_s32(vdupq_n_s32(v));
#pragma GCC unroll 2
        for (int z = 0; z < NZ; z++) {
          lo[m][z] = vpadalq_s16(lo[m][z], vmull_s8(vget_low_s8(xd), vget_low_s8(wz[z])));
          hi[m][z] = vpadalq_s16(hi[m][z], vmull_high_s8(xd, wz[z]));
        }
      }
    }
  }
#pragma GCC unroll 8
  for (int m = 0; m < MR; m++) {
    if (m >= a->mr) break;
    int32x4_t acc[2];
#pragma GCC unroll 2
    for (int z = 0; z < NZ; z++)
      acc[z] = vaddq_s32(vpaddq_s32(lo[m][z], hi[m][z]), vld1q_s32(a->bias + 4 * z));
    yk_qn_output(a, m, acc, NZ);
  }
}

static void block_8x1(const yk_qn_block_args *a) { block_kernel(a, 8, 1); }
static void block_4x1(const yk_qn_block_args *a) { block_kernel(a, 4, 1); }
static void block_4x2(const yk_qn_block_args *a) { block_kernel(a, 4, 2); }

void yk_qconv_rows__neon(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  const int cols = cout4(c) / 4;
  if (c->mr == 8) {
    yk_qconv_drive__neon(c, x, y, row0, row1, block_8x1, block_8x1);
  } else {
    const int nlast = cols % c->nz ? cols % c->nz : c->nz;
    yk_qconv_drive__neon(c, x, y, row0, row1, c->nz == 2 ? block_4x2 : block_4x1,
                         nlast == 2 ? block_4x2 : block_4x1);
  }
}

#endif
