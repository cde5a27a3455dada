/* qconv_nhwc_avx2.c — int8 NHWC convolution on AVX2 (no VNNI); layout in qconv_nhwc_avx2.h.
 *
 * Micro-kernels: MR pixels x NZ columns of 8 output channels. vpmaddubsw would saturate its int16
 * pair sums for u8 * s8 (255 * -128 * 2 < -32768), so activations stay signed and are widened
 * to int16 instead, and vpmaddwd against the pre-widened weight pairs gives exact int32 sums
 * (|w0*x0 + w2*x2| <= 2^15) that are added to the accumulators. Two ways to widen:
 *   block_kernel: per pixel and dword, broadcast, then its even bytes (x0, x2) and odd bytes
 *     (x1, x3) sign-extended with shifts, for every column block again;
 *   block_kernel_wide: the tile's pixels are widened once (widen_tile, into a stack buffer, in
 *     the weight pairs' order) before its column blocks, so the inner loop is a broadcast per
 *     pixel and half-step and one vpmaddwd + vpaddd per column. Used with 3+ columns when the
 *     tile fits WIDE_BYTES (yk_qconv_rows__avx2).
 * Integer sums are exact (and wrap like the reference's int32), so the result is bit-exact with
 * the scalar reference whatever the order; x_zp * sum(w) is folded into the bias at pack time.
 * The MR x NZ choice (yk_qconv_blocking__avx2) is shared with the AVX-VNNI variant; the packed
 * weights are the same for both AVX2 kernels.
 */
#include "qconv_nhwc_avx2.h"

#if YK_ARCH_X86_64

void yk_qconv_blocking__avx2(int cout, int vnni, int *mr, int *nz) {
  const int cols = (cout + 7) / 8;
  /* 16 ymm: MR*NZ accumulators + the pixel's broadcast (AVX2: two widened halves and the
   * products); weights are memory operands. AVX2 with 3+ columns runs the widened tile
   * (block_kernel_wide: 12 accumulators, 2 weights, broadcast, product, no spill): 6x2
   * measured 3-8% faster there than the former 4x3 of block_kernel, which spilled. */
  if (cols == 1) *mr = vnni ? 12 : 8, *nz = 1;
  else *mr = 6, *nz = 2; /* VNNI 4x3 spills (12 + 3 weights + 2) */
}

/* ---- micro-kernel without VNNI */

static inline __attribute__((always_inline)) void block_kernel(const qconv_block_args *a,
                                                               const int MR, const int NZ) {
  __m256i acc[YK_QA_MR_MAX][YK_QA_NZ_MAX];
  yk_qa_acc_bias(acc, a, MR, NZ);
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

/* ---- the same on activations widened to int16 once per tile (widen_tile): per step and pixel
 * two dword broadcasts, then per column two vpmaddwd and two vpaddd; no shifts, and the whole
 * tile's widening is shared by all its column blocks. */

/* acc + vpmaddwd(*w, x), the weights a memory operand. In asm because gcc otherwise sums the
 * products before the accumulator and hoists the weights into registers, which spills
 * accumulators of the larger tiles. */
static inline __attribute__((always_inline)) __m256i madd_add(__m256i acc, __m256i w,
                                                              __m256i x) {
  __m256i t;
  __asm__("vpmaddwd %2, %3, %1\n\tvpaddd %1, %0, %0" : "+x"(acc), "=&x"(t) : "x"(w), "x"(x));
  return acc;
}

static inline __attribute__((always_inline)) void block_kernel_wide(const qconv_block_args *a,
                                                                    const int MR, const int NZ) {
  __m256i acc[YK_QA_MR_MAX][YK_QA_NZ_MAX];
  yk_qa_acc_bias(acc, a, MR, NZ);
  const int8_t *w = a->w;
  const int16_t *p[YK_QA_MR_MAX];
#pragma GCC unroll 12
  for (int m = 0; m < MR; m++) p[m] = a->xw + (size_t)m * (size_t)a->xws;
  const int n = a->nseg * a->steps;
  for (int g = 0; g < n; g++) {
    /* the even pairs (x0, x2) of every pixel, then the odd ones: one broadcast live at a time
     * beside the accumulators, weights as memory operands */
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
      __m256i wz[YK_QA_NZ_MAX];
#pragma GCC unroll 3
      for (int z = 0; z < NZ; z++) wz[z] = _mm256_load_si256((const __m256i *)(w + 64 * z + 32 * h));
#pragma GCC unroll 12
      for (int m = 0; m < MR; m++) {
        int32_t v;
        memcpy(&v, p[m] + 4 * g + 2 * h, 4);
        const __m256i xb = _mm256_set1_epi32(v);
#pragma GCC unroll 3
        for (int z = 0; z < NZ; z++) acc[m][z] = madd_add(acc[m][z], wz[z], xb);
      }
    }
    w += 64 * NZ;
  }
  yk_qa_output(a, acc, MR, NZ);
}

/* Stack bytes for a widened tile (MR pixels x K int16); larger tiles run block_kernel. */
#define WIDE_BYTES 32768
#define WIDE_SLACK 16 /* int16 a segment's last 16-byte load may write past K */

/* K elements per widened pixel: K rounded up to 16 (32-byte rows). */
static inline int wide_stride(const yk_qconv *c) { return (c->nseg * c->seg_bytes + 15) & ~15; }

/* n bytes (a multiple of 4) at s to int16 at d, each dword x0..x3 as x0, x2, x1, x3: the order of
 * the packed weight pairs. Reads exactly n bytes; may write up to 12 int16 past n. */
static inline void widen_segment(const int8_t *s, int16_t *d, int n) {
  const __m128i perm = _mm_setr_epi8(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
    _mm256_storeu_si256((__m256i *)(d + i), _mm256_cvtepi8_epi16(_mm_shuffle_epi8(v, perm)));
  }
  if (i < n) {
    int32_t t0, t1 = 0, t2 = 0; /* 4, 8 or 12 bytes left */
    memcpy(&t0, s + i, 4);
    if (n - i > 4) memcpy(&t1, s + i + 4, 4);
    if (n - i > 8) memcpy(&t2, s + i + 8, 4);
    const __m128i v = _mm_setr_epi32(t0, t1, t2, 0);
    _mm256_storeu_si256((__m256i *)(d + i), _mm256_cvtepi8_epi16(_mm_shuffle_epi8(v, perm)));
  }
}

/* The tile's MR pixels (short tiles repeat their last one), each segment after the other. */
static void widen_tile(qconv_block_args *a, int MR, void *ctx) {
  int16_t *buf = ctx;
  const int segb = 4 * a->steps, xws = (a->nseg * segb + 15) & ~15;
  for (int m = 0; m < MR; m++) {
    int16_t *d = buf + (size_t)m * (size_t)xws;
    for (int s = 0; s < a->nseg; s++, d += segb) widen_segment(a->sp[s * MR + m], d, segb);
  }
  a->xw = buf;
  a->xws = xws;
}

#define DEF_BLOCK(MR, NZ)                                                                      \
  static void block_##MR##x##NZ(const qconv_block_args *a) { block_kernel(a, MR, NZ); }       \
  static void wblock_##MR##x##NZ(const qconv_block_args *a) { block_kernel_wide(a, MR, NZ); }
YK_QA_BLOCKS(DEF_BLOCK)
static const qconv_ukernel ukernels[] = {YK_QA_BLOCKS(QCONV_UKERNEL)};
#define WIDE_UKERNEL(MR, NZ) {MR, NZ, wblock_##MR##x##NZ},
static const qconv_ukernel wide_ukernels[] = {YK_QA_BLOCKS(WIDE_UKERNEL)};

size_t yk_qconv_packed_bytes__avx2(yk_qconv *c) {
  return qconv_packed_bytes_with(c, YK_QCONV_AVX2, ukernels, QCONV_NUKERNELS(ukernels));
}

void yk_qconv_rows__avx2(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  __m256i lut_t[16];
  const void *lut = yk_qa_prep_lut(c, lut_t);
  /* Widening costs about a quarter of the shifts it saves but is paid once per tile: with 1 or
   * 2 columns (cout <= 16, little K) block_kernel measured faster (3x3 8 -> 16 at 160x160:
   * 18%, 32 -> 16 at 80x80: 11%) */
  if ((c->cout + 7) / 8 >= 3 && (size_t)c->mr * (size_t)wide_stride(c) * 2 <= WIDE_BYTES) {
    _Alignas(32) int16_t buf[WIDE_BYTES / 2 + WIDE_SLACK];
    qconv_rows_prep(c, x, y, row0, row1, wide_ukernels, QCONV_NUKERNELS(wide_ukernels), lut,
                    widen_tile, buf, 0);
    return;
  }
  qconv_rows_with(c, x, y, row0, row1, ukernels, QCONV_NUKERNELS(ukernels), lut);
}

#endif
