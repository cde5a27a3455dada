/* qconv_nhwc_avx512vnni.c — int8 NHWC convolution on AVX-512 VNNI (+VBMI for the LUT).
 *
 * Micro-kernel: MR output pixels x NZ zmm of 16 output channels (MR x NZ picked per layer from
 * cout, see yk_qconv_blocking__avx512vnni). K is walked as segments (yk_qconv.h): with dw == 1 a
 * segment is one kernel row, kw*cin contiguous bytes of the NHWC input, so a 3x3 conv over 3
 * channels is 3 segments of 9 (+3 zero-weight) bytes rather than 9 taps of 3. Each 4-byte step is
 * one dword broadcast per pixel (sign bit flipped to make it u8) and one vpdpbusd per zmm.
 *
 * The tile driver (segment pointers built once per tile, shared by all channel blocks) and the
 * packing are every variant's: qconv_segments.h, qconv_pack.c.
 *
 * The output stage (requantization, LUT, float output) is the AMX variant's too:
 * qconv_out_avx512.h.
 *
 * Packed layout (qconv_pack.c): 16 lanes, kr 4 (lane l of zmm z = output channel 16*(NZ*b + z)
 * + l, its 4 consecutive K bytes, the vpdpbusd operand), bias with (128 + x_zp) * sum(w) folded.
 */
#include <immintrin.h>
#include <string.h>

#include "qconv_out_avx512.h"
#include "qconv_segments.h"
#include "yk_qconv.h"

#define MR_MAX 16 /* its largest blocking, 16 x 1 */

void yk_qconv_blocking__avx512vnni(int cout, int *mr, int *nz) {
  const int cols = (cout + 15) / 16;
  /* ~24 accumulators, leaving registers for NZ weights, the broadcast and the flip constant. */
  if (cols == 1) *mr = 16, *nz = 1;
  else if (cols == 2) *mr = 12, *nz = 2;
  else if (cols == 3) *mr = 8, *nz = 3;
  else if (cols == 5) *mr = 5, *nz = 5;
  else if (cols % 4 == 0 || cols % 3 != 0) *mr = 6, *nz = 4;
  else *mr = 8, *nz = 3;
}

static inline __attribute__((always_inline)) void block_kernel(const qconv_block_args *a, const int MR,
                                                               const int NZ) {
  __m512i acc[MR_MAX][QO_NZ_MAX];
#pragma GCC unroll 5
  for (int z = 0; z < NZ; z++) {
    const __m512i bz = _mm512_loadu_si512(a->bias + 16 * z);
#pragma GCC unroll 16
    for (int m = 0; m < MR; m++) acc[m][z] = bz;
  }
  const __m512i flip = _mm512_set1_epi32((int)0x80808080u);
  const int8_t *w = a->w;
  for (int s = 0; s < a->nseg; s++) {
    const int8_t *p[MR_MAX];
#pragma GCC unroll 16
    for (int m = 0; m < MR; m++) p[m] = a->sp[s * MR + m];
    for (int g = 0; g < a->steps; g++) {
      __m512i wz[5];
#pragma GCC unroll 5
      for (int z = 0; z < NZ; z++) wz[z] = _mm512_load_si512(w + 64 * z);
      w += 64 * NZ;
#pragma GCC unroll 16
      for (int m = 0; m < MR; m++) {
        int32_t v;
        memcpy(&v, p[m] + 4 * g, 4);
        const __m512i xb = _mm512_xor_si512(_mm512_set1_epi32(v), flip);
#pragma GCC unroll 5
        for (int z = 0; z < NZ; z++) acc[m][z] = _mm512_dpbusd_epi32(acc[m][z], xb, wz[z]);
      }
    }
  }
  qo_output(a, acc, MR, NZ);
}

/* The blockings instantiated (yk_qconv_blocking__avx512vnni picks among them). */
#define BLOCKS(X)                                                                                \
  X(16, 1) X(12, 1) X(12, 2) X(8, 1) X(8, 2) X(8, 3) X(6, 1) X(6, 2) X(6, 3) X(6, 4) X(5, 1)   \
  X(5, 2) X(5, 3) X(5, 4) X(5, 5) X(4, 1) X(4, 2) X(4, 3) X(4, 4)
#define DEF_BLOCK(MR, NZ) \
  static void block_##MR##x##NZ(const qconv_block_args *a) { block_kernel(a, MR, NZ); }
BLOCKS(DEF_BLOCK)
static const qconv_ukernel ukernels[] = {BLOCKS(QCONV_UKERNEL)};

size_t yk_qconv_packed_bytes__avx512vnni(yk_qconv *c) {
  return qconv_packed_bytes_with(c, YK_QCONV_AVX512VNNI, ukernels, QCONV_NUKERNELS(ukernels));
}

void yk_qconv_rows__avx512vnni(const yk_qconv *c, const int8_t *x, void *y, int row0,
                               int row1) {
  qconv_rows_with(c, x, y, row0, row1, ukernels, QCONV_NUKERNELS(ukernels), NULL);
}
