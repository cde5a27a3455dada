/* qconv_nhwc_avx2.c — int8 NHWC convolution on AVX2 (no VNNI), plus the packing and the tile
 * driver that the AVX-VNNI variant (qconv_nhwc_avxvnni.c) shares; layout in qconv_nhwc_avx2.h.
 *
 * Micro-kernel: MR pixels x NZ columns of 8 output channels. vpmaddubsw would saturate its int16
 * pair sums for u8 * s8 (255 * -128 * 2 < -32768), so activations stay signed and are widened
 * instead: the pixel's dword is broadcast, its even bytes (x0, x2) and odd bytes (x1, x3) are
 * sign-extended to int16 with shifts, and vpmaddwd against the pre-widened weight pairs gives
 * exact int32 sums (|w0*x0 + w2*x2| <= 2^15) that are added to the accumulators. Integer sums
 * are exact (and wrap like the reference's int32), so the result is bit-exact with the scalar
 * reference whatever the order; x_zp * sum(w) is folded into the bias at pack time.
 */
#include "qconv_nhwc_avx2.h"
#include "qconv_segments.h"

#if YK_ARCH_X86_64



static int cout8(const yk_qconv *c) { return (c->cout + 7) & ~7; }

static size_t weights_offset(const yk_qconv *c) {
  return align64((size_t)cout8(c) * 4) * 2 + align64((size_t)c->seg_bytes);
}

/* Packed bytes per column and dword step: int8 for vpdpbusd, pre-widened int16 for vpmaddwd. */
static size_t col_step_bytes(const yk_qconv *c) { return c->variant == YK_QCONV_AVXVNNI ? 32 : 64; }

/* Bytes of one full block of NZ columns (the last block may have fewer columns). */
static size_t block_stride(const yk_qconv *c) {
  return (size_t)c->nseg * (size_t)(c->seg_bytes / 4) * (size_t)c->nz * col_step_bytes(c);
}

void yk_qconv_blocking__avx2(int cout, int vnni, int *mr, int *nz) {
  const int cols = (cout + 7) / 8;
  /* 16 ymm: MR*NZ accumulators + the pixel's broadcast (AVX2: two widened halves and the
   * products); weights are memory operands */
  if (cols == 1) *mr = vnni ? 12 : 8, *nz = 1;
  else if (cols == 2 || vnni) *mr = 6, *nz = 2; /* VNNI 4x3 spills (12 + 3 weights + 2) */
  else *mr = 4, *nz = 3; /* spills 4 accumulators too, but measured ~4% faster than 6x2 */
}

static int valid_blocking(int variant, int mr, int nz) {
  if (variant != YK_QCONV_AVXVNNI && variant != YK_QCONV_AVX2) return 0;
  return (mr == 12 && nz == 1) || (mr == 8 && nz == 1) || (mr == 6 && nz <= 2) ||
         (mr == 4 && nz <= 3);
}


size_t yk_qconv_packed_bytes__avx2(yk_qconv *c) {
  if (!valid_blocking(c->variant, c->mr, c->nz)) return 0;
  if (!((c->dw == 1 && seg_plan(c, c->kw, 4)) || seg_plan(c, 1, 4))) {
    c->nseg = 0;
    return 0;
  }
  const int cols = cout8(c) / 8, nblocks = (cols + c->nz - 1) / c->nz;
  return align64(weights_offset(c) + (size_t)nblocks * block_stride(c));
}

void yk_qconv_pack__avx2(yk_qconv *c, void *mem) {
  uint8_t *base = mem;
  const int c8 = cout8(c), taps = c->kh * c->kw, cols = c8 / 8;
  const int span = c->seg_span, spk = c->kw / span, steps = c->seg_bytes / 4;
  const int vnni = c->variant == YK_QCONV_AVXVNNI;
  int8_t *w8 = (int8_t *)(base + weights_offset(c));
  int16_t *w16 = (int16_t *)(base + weights_offset(c));
  /* the u8 shift of vpdpbusd's activations adds 128 * sum(w) */
  const int32_t xoff = vnni ? 128 + c->x_zp : c->x_zp;
  pack_head(c, c8, xoff, base);
  /* AVX2 order of a column step's 4 K bytes: (k0, k2) pairs for the 8 channels, then (k1, k3) */
  static const int order[4] = {0, 2, 1, 3};
  for (int col0 = 0; col0 < cols; col0 += c->nz) {
    const int nz = cols - col0 < c->nz ? cols - col0 : c->nz;
    for (int s = 0; s < c->nseg; s++) {
      const int ky = s / spk, kx0 = (s % spk) * span;
      for (int g = 0; g < steps; g++)
        for (int z = 0; z < nz; z++)
          for (int i = 0; i < 32; i++) {
            /* vnni: byte i = channel i / 4, K byte i % 4; avx2: int16 i of each 32-byte half */
            const int l = vnni ? i / 4 : (i % 16) / 2;
            const int j = vnni ? i % 4 : order[2 * (i / 16) + i % 2];
            const int oc = 8 * (col0 + z) + l;
            const int k = 4 * g + j, kx = kx0 + k / c->cin, ci = k % c->cin;
            const int8_t v = oc < c->cout && k < span * c->cin
                                 ? c->weights[((size_t)oc * taps + ky * c->kw + kx) * c->cin + ci]
                                 : 0;
            if (vnni) *w8++ = v;
            else *w16++ = v;
          }
    }
  }
  c->packed = mem;
}

/* ---- tile driver (shared with the AVX-VNNI variant) */



void yk_qconv_drive__avx2(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1,
                          yk_qa_block_fn full, yk_qa_block_fn last) {
  const uint8_t *base = c->packed;
  const int c8 = cout8(c), cols = c8 / 8, MR = c->mr, NZ = c->nz;
  const int32_t *bias = (const int32_t *)base;
  const float *scale = (const float *)(base + align64((size_t)c8 * 4));
  const int8_t *pad = (const int8_t *)(base + 2 * align64((size_t)c8 * 4));
  const int8_t *wbase = (const int8_t *)(base + weights_offset(c));
  const size_t bstride = block_stride(c), ys = yk_qconv_ys(c);
  const int8_t *sp[NSEG_MAX * YK_QA_MR_MAX];
  _Alignas(32) int8_t scratch[SCRATCH_BYTES];

  yk_qa_block_args a = {.sp = sp, .nseg = c->nseg, .steps = c->seg_bytes / 4,
                        .ystride = (int)ys, .hi = (float)(127 - c->y_zp), .y_zp = c->y_zp, .lut = NULL};
  __m256i lut_t[16];
  if (c->lut) {
    for (int k = 0; k < 16; k++)
      lut_t[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(c->lut + 16 * k)));
    a.lut = lut_t;
  }
  const int ow = c->ow;
  const seg_geom g = seg_geom_of(c, x, pad);
  const int pend = row1 * ow;
  for (int p0 = row0 * ow; p0 < pend; p0 += MR) {
    const int mr = pend - p0 < MR ? pend - p0 : MR;
    tile_segments(&g, sp, MR, p0, mr, scratch);
    a.mr = mr;
    for (int col0 = 0, b = 0; col0 < cols; col0 += NZ, b++) {
      a.w = wbase + (size_t)b * bstride;
      a.bias = bias + 8 * col0;
      a.scale = scale + 8 * col0;
      if (c->out_f32) a.yf = (float *)y + (size_t)p0 * ys + 8 * col0;
      else a.y = (int8_t *)y + (size_t)p0 * ys + 8 * col0;
      a.nch = c->cout - 8 * col0;
      (col0 + NZ <= cols ? full : last)(&a);
    }
  }
}

/* ---- micro-kernel without VNNI */

static inline __attribute__((always_inline)) void block_kernel(const yk_qa_block_args *a,
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
  static void block_##MR##x##NZ(const yk_qa_block_args *a) { block_kernel(a, MR, NZ); }
DEF_BLOCK(12, 1)
DEF_BLOCK(8, 1)
DEF_BLOCK(6, 1)
DEF_BLOCK(6, 2)
DEF_BLOCK(4, 1)
DEF_BLOCK(4, 2)
DEF_BLOCK(4, 3)

static yk_qa_block_fn pick_block(int mr, int nz) {
  switch (mr * 8 + nz) {
    case 12 * 8 + 1: return block_12x1;
    case 8 * 8 + 1: return block_8x1;
    case 6 * 8 + 1: return block_6x1;
    case 6 * 8 + 2: return block_6x2;
    case 4 * 8 + 1: return block_4x1;
    case 4 * 8 + 2: return block_4x2;
    default: return block_4x3;
  }
}

void yk_qconv_rows__avx2(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  const int cols = (c->cout + 7) / 8;
  const int nlast = cols % c->nz ? cols % c->nz : c->nz;
  yk_qconv_drive__avx2(c, x, y, row0, row1, pick_block(c->mr, c->nz), pick_block(c->mr, nlast));
}

#endif
