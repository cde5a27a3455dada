/* qconv_nhwc_neon.c — int8 NHWC convolution on AArch64 NEON (ARMv8.0), and the MR x NZ choice
 * (yk_qconv_blocking__neon) the dot-product variant (qconv_nhwc_neondot.c) shares; layout in
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

#if YK_ARCH_AARCH64

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

/* ---- micro-kernel without dot product
 *
 * The multiplies (SMULL / SMLAL) run on one vector pipe of a Cortex-A72 (F0, one a cycle) and
 * SADALP on the other (F1): 8 MACs a cycle is this core's exact int8 floor (bench/arm/mca.sh,
 * "floor" rows). Reaching it is a matter of order, not of instruction count: a SMLAL issued right
 * behind the SMULL it adds to, or a SADALP right behind its SMLAL, stalls the pipe (the A72's
 * queues issue mostly in order; the A53 is in-order). So the source is written in the order the
 * cores should see it (gcc's first scheduler is off, above): all of a pixel's SMULLs, then the
 * previous pixel's SADALPs, the next pixel's activations, then this pixel's SMLALs; products
 * live in two sets of temporaries, one per pixel parity. */

/* The pixel's 8 K bytes as two broadcast dwords (steps g and g + 1). */
#define QN_LOAD_X(m)                                                                   \
  do {                                                                                 \
    const int32x2_t xv_ = vreinterpret_s32_s8(vld1_s8(p[m] + 4 * g));                  \
    x1[(m) & 1] = vreinterpretq_s8_s32(vdupq_lane_s32(xv_, 1));                        \
    x0[(m) & 1] = vreinterpretq_s8_s32(vdupq_lane_s32(xv_, 0));                        \
  } while (0)

static inline __attribute__((always_inline)) void block_kernel(const qconv_block_args *a,
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
        int8x16_t w0[2], w1[2], x0[2], x1[2];
        int16x8_t pl[2][2], ph[2][2]; /* [pixel parity][column] */
#pragma GCC unroll 2
        for (int z = 0; z < NZ; z++) {
          w0[z] = vld1q_s8(w + 16 * z);
          w1[z] = vld1q_s8(w + 16 * (NZ + z));
        }
        w += 32 * NZ;
        QN_LOAD_X(0);
#pragma GCC unroll 8
        for (int m = 0; m < MR; m++) {
          const int t = m & 1;
#pragma GCC unroll 2
          for (int z = 0; z < NZ; z++) {
            pl[t][z] = vmull_s8(vget_low_s8(x0[t]), vget_low_s8(w0[z]));
            ph[t][z] = vmull_high_s8(x0[t], w0[z]);
          }
          if (m > 0) {
#pragma GCC unroll 2
            for (int z = 0; z < NZ; z++) {
              lo[m - 1][z] = vpadalq_s16(lo[m - 1][z], pl[t ^ 1][z]);
              hi[m - 1][z] = vpadalq_s16(hi[m - 1][z], ph[t ^ 1][z]);
            }
          }
          if (m + 1 < MR) QN_LOAD_X(m + 1);
#pragma GCC unroll 2
          for (int z = 0; z < NZ; z++) {
            pl[t][z] = vmlal_s8(pl[t][z], vget_low_s8(x1[t]), vget_low_s8(w1[z]));
            ph[t][z] = vmlal_high_s8(ph[t][z], x1[t], w1[z]);
          }
        }
#pragma GCC unroll 2
        for (int z = 0; z < NZ; z++) {
          lo[MR - 1][z] = vpadalq_s16(lo[MR - 1][z], pl[(MR - 1) & 1][z]);
          hi[MR - 1][z] = vpadalq_s16(hi[MR - 1][z], ph[(MR - 1) & 1][z]);
        }
      }
    }
    /* A weight is -128: one step per SADALP. Two steps an iteration all the same, each pixel's
     * products of both before their SADALPs (segments are padded to 8 bytes: steps is even). */
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
        int16x8_t pl[2][2], ph[2][2]; /* [step][column] */
#pragma GCC unroll 2
        for (int z = 0; z < NZ; z++) {
          pl[0][z] = vmull_s8(vget_low_s8(x0), vget_low_s8(w0[z]));
          ph[0][z] = vmull_high_s8(x0, w0[z]);
        }
#pragma GCC unroll 2
        for (int z = 0; z < NZ; z++) {
          pl[1][z] = vmull_s8(vget_low_s8(x1), vget_low_s8(w1[z]));
          ph[1][z] = vmull_high_s8(x1, w1[z]);
        }
#pragma GCC unroll 2
        for (int k = 0; k < 2; k++)
#pragma GCC unroll 2
          for (int z = 0; z < NZ; z++) {
            lo[m][z] = vpadalq_s16(lo[m][z], pl[k][z]);
            hi[m][z] = vpadalq_s16(hi[m][z], ph[k][z]);
          }
      }
    }
    for (; g < steps; g++) { /* (an odd last step: not with today's 8-byte segments) */
      int8x16_t wz[2];
#pragma GCC unroll 2
      for (int z = 0; z < NZ; z++) wz[z] = vld1q_s8(w + 16 * z);
      w += 16 * NZ;
#pragma GCC unroll 8
      for (int m = 0; m < MR; m++) {
        int32_t v;
        memcpy(&v, p[m] + 4 * g, 4);
        const int8x16_t xd = vreinterpretq_s8_s32(vdupq_n_s32(v));
        int16x8_t pl[2], ph[2];
#pragma GCC unroll 2
        for (int z = 0; z < NZ; z++) {
          pl[z] = vmull_s8(vget_low_s8(xd), vget_low_s8(wz[z]));
          ph[z] = vmull_high_s8(xd, wz[z]);
        }
#pragma GCC unroll 2
        for (int z = 0; z < NZ; z++) {
          lo[m][z] = vpadalq_s16(lo[m][z], pl[z]);
          hi[m][z] = vpadalq_s16(hi[m][z], ph[z]);
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
#undef QN_LOAD_X

/* The blockings instantiated (yk_qconv_blocking__neon picks among them). */
#define BLOCKS(X) X(8, 1) X(4, 1) X(4, 2)
#define DEF_BLOCK(MR, NZ) \
  static void block_##MR##x##NZ(const qconv_block_args *a) { block_kernel(a, MR, NZ); }
BLOCKS(DEF_BLOCK)
static const qconv_ukernel ukernels[] = {BLOCKS(QCONV_UKERNEL)};

size_t yk_qconv_packed_bytes__neon(yk_qconv *c) {
  return qconv_packed_bytes_with(c, YK_QCONV_NEON, ukernels, QCONV_NUKERNELS(ukernels));
}

void yk_qconv_rows__neon(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  qconv_rows_with(c, x, y, row0, row1, ukernels, QCONV_NUKERNELS(ukernels), NULL);
}

#endif
