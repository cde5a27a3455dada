/* qconv_nhwc_neondot.c — int8 NHWC convolution on ARMv8.2 dot product (SDOT), AArch64.
 *
 * Micro-kernel: MR pixels x NZ columns of 4 output channels (4x4, 6x3, 8x2 or 8x1, see
 * yk_qconv_blocking__neon). Per 8 bytes of K: 2*NZ column loads (16 bytes each), one 8-byte load
 * per pixel and 2 SDOT-by-lane per accumulator, each 16 int8 MACs into 4 int32 lanes. SDOT sums
 * are exact, so with the bias (x_zp folded in at pack time) the int32 accumulator equals the
 * scalar reference's; the output stage is qconv_nhwc_neon.h's, shared with the plain NEON one.
 * Packing and the tile driver are every variant's (qconv_pack.c, qconv_segments.h).
 */
/* gcc's first (pre-allocation) scheduler raises register pressure in the K loops until the
 * allocator copies accumulators around or spills them (measured in the disassembly: 4x4 SDOT
 * loop 51 -> 44 instructions, no spills in the SMLAL one); it only reorders, results are equal. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif
#include "qconv_nhwc_neon.h"

#if YK_ARCH_AARCH64

static inline __attribute__((always_inline)) void block_kernel(const qconv_block_args *a,
                                                               const int MR, const int NZ) {
  int32x4_t acc[YK_QN_MR_MAX][4];
  /* one load per accumulator: copies of one register made gcc shuffle them in the K loop */
#pragma GCC unroll 8
  for (int m = 0; m < MR; m++)
#pragma GCC unroll 4
    for (int z = 0; z < NZ; z++) acc[m][z] = vld1q_s32(a->bias + 4 * z);
  const int8_t *w = a->w;
  const int steps = a->steps;
  for (int s = 0; s < a->nseg; s++) {
    const int8_t *p[YK_QN_MR_MAX];
#pragma GCC unroll 8
    for (int m = 0; m < MR; m++) p[m] = a->sp[s * MR + m];
    for (int g = 0; g < steps; g += 2) { /* steps is even (seg_plan) */
      /* the pixels' 8 bytes first, then one K step's columns at a time: MR*NZ + MR + NZ live
       * registers (28 for 4x4) */
      int8x8_t xv[YK_QN_MR_MAX];
      int8x16_t wz[4];
#pragma GCC unroll 8
      for (int m = 0; m < MR; m++) xv[m] = vld1_s8(p[m] + 4 * g);
#pragma GCC unroll 4
      for (int z = 0; z < NZ; z++) wz[z] = vld1q_s8(w + 16 * z);
#pragma GCC unroll 8
      for (int m = 0; m < MR; m++)
#pragma GCC unroll 4
        for (int z = 0; z < NZ; z++) acc[m][z] = vdotq_lane_s32(acc[m][z], wz[z], xv[m], 0);
#pragma GCC unroll 4
      for (int z = 0; z < NZ; z++) wz[z] = vld1q_s8(w + 16 * (NZ + z));
#pragma GCC unroll 8
      for (int m = 0; m < MR; m++)
#pragma GCC unroll 4
        for (int z = 0; z < NZ; z++) acc[m][z] = vdotq_lane_s32(acc[m][z], wz[z], xv[m], 1);
      w += 32 * NZ;
    }
  }
#pragma GCC unroll 8
  for (int m = 0; m < MR; m++) {
    if (m >= a->mr) break;
    yk_qn_output(a, m, acc[m], NZ);
  }
}

/* The blockings instantiated (yk_qconv_blocking__neon picks among them). */
#define BLOCKS(X) X(8, 1) X(8, 2) X(6, 1) X(6, 2) X(6, 3) X(4, 1) X(4, 2) X(4, 3) X(4, 4)
#define DEF_BLOCK(MR, NZ) \
  static void block_##MR##x##NZ(const qconv_block_args *a) { block_kernel(a, MR, NZ); }
BLOCKS(DEF_BLOCK)
static const qconv_ukernel ukernels[] = {BLOCKS(QCONV_UKERNEL)};

size_t yk_qconv_packed_bytes__neondot(yk_qconv *c) {
  return qconv_packed_bytes_with(c, YK_QCONV_NEONDOT, ukernels, QCONV_NUKERNELS(ukernels));
}

void yk_qconv_rows__neondot(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  qconv_rows_with(c, x, y, row0, row1, ukernels, QCONV_NUKERNELS(ukernels), NULL);
}

#endif
