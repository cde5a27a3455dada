/* qconv_nhwc_avx2.c — int8 NHWC convolution on AVX2 (no VNNI); layout in qconv_nhwc_avx2.h.
 *
 * Micro-kernel: MR pixels x NZ columns of 8 output channels. vpmaddubsw would saturate its int16
 * pair sums for u8 * s8 (255 * -128 * 2 < -32768), so activations stay signed and are widened
 * instead: the pixel's dword is broadcast, its even bytes (x0, x2) and odd bytes (x1, x3) are
 * sign-extended to int16 with shifts, and vpmaddwd against the pre-widened weight pairs gives
 * exact int32 sums (|w0*x0 + w2*x2| <= 2^15) that are added to the accumulators. Integer sums
 * are exact (and wrap like the reference's int32), so the result is bit-exact with the scalar
 * reference whatever the order; x_zp * sum(w) is folded into the bias at pack time. The MR x NZ
 * choice (yk_qconv_blocking__avx2) and its check are shared with the AVX-VNNI variant.
 */
#include "qconv_nhwc_avx2.h"

#if YK_ARCH_X86_64

void yk_qconv_blocking__avx2(int cout, int vnni, int *mr, int *nz) {
  const int cols = (cout + 7) / 8;
  /* 16 ymm: MR*NZ accumulators + the pixel's broadcast (AVX2: two widened halves and the
   * products); weights are memory operands */
  if (cols == 1) *mr = vnni ? 12 : 8, *nz = 1;
  else if (cols == 2 || vnni) *mr = 6, *nz = 2; /* VNNI 4x3 spills (12 + 3 weights + 2) */
  else *mr = 4, *nz = 3; /* spills 4 accumulators too, but measured ~4% faster than 6x2 */
}

/* ---- micro-kernel without VNNI */

static inline __attribute__((always_inline)) void block_kernel(const qconv_block_args *a,
                                                               const int MR, const int NZ) {
  __m256i acc[YK_QA_MR_MAX][YK_QA_NZ_MAX];
#pragma GCC unroll 3
  for (int z = 0; z < NZ; z++) {
    const __m256i bz = _mm256_loadu_si256((const __m256i *)(a->bias + 8 * z));
#pragma GCC unroll 12
    for (int m = 0; m < MR; m++) acc[m][z] = bz;
  }
  const int8_t *w = a->w;
  for (int s = 0; s < a->nseg; s++) {
    const int8_t *p[YK_QA_MR_MAX];
#pragma GCC unroll 12
    for (int m = 0; m < MR; m++) p[m] = a->sp[s * MR + m];
    for (int g = 0; g < a->steps; g++) {
#pragma GCC unroll 12
      for (int m = 0; m < MR; m++) {
        int32_t v;
        memcpy(&v, p[m] + 4 * g, 4);
        const __m256i xb = _mm256_set1_epi32(v);
        const __m256i xe = _mm256_srai_epi16(_mm256_slli_epi16(xb, 8), 8); /* x0, x2 */
        const __m256i xo = _mm256_srai_epi16(xb, 8);                       /* x1, x3 */
#pragma GCC unroll 3
        for (int z = 0; z < NZ; z++) {
          const __m256i we = _mm256_load_si256((const __m256i *)(w + 64 * z));
          const __m256i wo = _mm256_load_si256((const __m256i *)(w + 64 * z + 32));
          acc[m][z] = _mm256_add_epi32(acc[m][z], _mm256_madd_epi16(we, xe));
          acc[m][z] = _mm256_add_epi32(acc[m][z], _mm256_madd_epi16(wo, xo));
        }
      }
      w += 64 * NZ;
    }
  }
  yk_qa_output(a, acc, MR, NZ);
}

#define DEF_BLOCK(MR, NZ) \
  static void block_##MR##x##NZ(const qconv_block_args *a) { block_kernel(a, MR, NZ); }
YK_QA_BLOCKS(DEF_BLOCK)
static const qconv_ukernel ukernels[] = {YK_QA_BLOCKS(QCONV_UKERNEL)};

size_t yk_qconv_packed_bytes__avx2(yk_qconv *c) {
  if (c->variant != YK_QCONV_AVX2 || !qconv_find_ukernel(ukernels, QCONV_NUKERNELS(ukernels), c->mr, c->nz))
    return 0;
  return yk_qconv_packed_size(c);
}

void yk_qconv_rows__avx2(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  __m256i lut_t[16];
  qconv_rows_with(c, x, y, row0, row1, ukernels, QCONV_NUKERNELS(ukernels), yk_qa_prep_lut(c, lut_t));
}

#endif
