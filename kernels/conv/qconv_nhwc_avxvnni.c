/* qconv_nhwc_avxvnni.c — int8 NHWC convolution on AVX-VNNI (256-bit vpdpbusd, no AVX-512).
 *
 * Micro-kernel: MR pixels x NZ columns of 8 output channels (one ymm of int32 each). Per 4-byte
 * K step, the pixel's dword is broadcast with its sign bit flipped (u8 = x + 128) and one
 * vpdpbusd per column adds 32 u8 * s8 products in 8 int32 lanes; the -(128 + x_zp) * sum(w)
 * correction is in the bias, so the int32 accumulator equals the scalar reference's. The output
 * stage is qconv_nhwc_avx2.h's (shared with plain AVX2); packing and the tile driver are every
 * variant's (qconv_pack.c, qconv_segments.h).
 */
#include "qconv_nhwc_avx2.h"

#if YK_ARCH_X86_64

static inline __attribute__((always_inline)) void block_kernel(const qconv_block_args *a,
                                                               const int MR, const int NZ) {
  __m256i acc[YK_QA_MR_MAX][YK_QA_NZ_MAX];
  yk_qa_acc_bias(acc, a, MR, NZ);
  const __m256i flip = _mm256_set1_epi32((int)0x80808080u);
  const int8_t *w = a->w;
  for (int s = 0; s < a->nseg; s++) {
    const int8_t *p[YK_QA_MR_MAX];
#pragma GCC unroll 12
    for (int m = 0; m < MR; m++) p[m] = a->sp[s * MR + m];
    for (int g = 0; g < a->steps; g++) {
      __m256i wz[YK_QA_NZ_MAX];
#pragma GCC unroll 3
      for (int z = 0; z < NZ; z++) wz[z] = _mm256_load_si256((const __m256i *)(w + 32 * z));
      w += 32 * NZ;
#pragma GCC unroll 12
      for (int m = 0; m < MR; m++) {
        int32_t v;
        memcpy(&v, p[m] + 4 * g, 4);
        const __m256i xb = _mm256_xor_si256(_mm256_set1_epi32(v), flip);
#pragma GCC unroll 3
        for (int z = 0; z < NZ; z++) acc[m][z] = _mm256_dpbusd_avx_epi32(acc[m][z], xb, wz[z]);
      }
    }
  }
  yk_qa_output(a, acc, MR, NZ);
}

#define DEF_BLOCK(MR, NZ) \
  static void block_##MR##x##NZ(const qconv_block_args *a) { block_kernel(a, MR, NZ); }
YK_QA_BLOCKS(DEF_BLOCK)
static const qconv_ukernel ukernels[] = {YK_QA_BLOCKS(QCONV_UKERNEL)};

size_t yk_qconv_packed_bytes__avxvnni(yk_qconv *c) {
  return qconv_packed_bytes_with(c, YK_QCONV_AVXVNNI, ukernels, QCONV_NUKERNELS(ukernels));
}

void yk_qconv_rows__avxvnni(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  __m256i lut_t[16];
  qconv_rows_with(c, x, y, row0, row1, ukernels, QCONV_NUKERNELS(ukernels), yk_qa_prep_lut(c, lut_t));
}

#endif
