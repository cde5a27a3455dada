/* qconv_nhwc_avx512vnni.c — int8 NHWC convolution on AVX-512 VNNI (+VBMI for the LUT).
 *
 * Micro-kernel: MR output pixels x NZ zmm of 16 output channels (MR x NZ picked per layer from
 * cout, see yk_qconv_blocking__avx512vnni). K is walked as segments (yk_qconv.h): with dw == 1 a
 * segment is one kernel row, kw*cin contiguous bytes of the NHWC input, so a 3x3 conv over 3
 * channels is 3 segments of 9 (+3 zero-weight) bytes rather than 9 taps of 3. Each 4-byte step is
 * one dword broadcast per pixel (sign bit flipped to make it u8) and one vpdpbusd per zmm.
 *
 * Segment pointers are built once per tile (shared by all channel blocks): into the input, into
 * a row of x_zp bytes (vertical padding), or into a stack copy for pixels whose kernel row is
 * clipped at the left/right edge or whose dword tail would read past the input's end.
 *
 * Requantization packs 4 zmm of int32 into 64 int8 with two saturating packs (the y_zp add is a
 * saturating int16 add in between, which equals the reference's clamp for any int8 y_zp) and one
 * vpermd; the LUT is applied in register before the single store.
 *
 * Packed memory (64-byte aligned pieces):
 *   int32 bias_adj[cout16]   bias - (128 + x_zp) * sum(w)   (the u8 shift correction)
 *   float scale[cout16]
 *   int8  pad_seg[seg_bytes] x_zp: padded taps then contribute exactly zero
 *   int8  weights: per block of NZ zmm, per segment, per dword step, nz x 64 bytes
 *         (lane l of zmm z = output channel 16*(NZ*b + z) + l, its 4 consecutive K bytes).
 */
#include <immintrin.h>
#include <string.h>

#include "qconv_segments.h"
#include "yk_qconv.h"

#define MR_MAX 16


static int cout16(const yk_qconv *c) { return (c->cout + 15) & ~15; }

static size_t weights_offset(const yk_qconv *c) {
  return align64((size_t)cout16(c) * 4) * 2 + align64((size_t)c->seg_bytes);
}

/* Bytes of one full block of NZ columns (the last block may have fewer columns). */
static size_t block_stride(const yk_qconv *c) {
  return (size_t)c->nseg * (size_t)(c->seg_bytes / 4) * (size_t)c->nz * 64;
}

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


static int valid_blocking(int mr, int nz) {
  return (mr == 16 && nz == 1) || (mr == 12 && nz <= 2) || (mr == 8 && nz <= 3) ||
         (mr == 6 && nz <= 4) || (mr == 5 && nz <= 5) || (mr == 4 && nz <= 4);
}

size_t yk_qconv_packed_bytes__avx512vnni(yk_qconv *c) {
  if (!valid_blocking(c->mr, c->nz)) return 0;
  if (!((c->dw == 1 && seg_plan(c, c->kw, 4)) || seg_plan(c, 1, 4))) {
    c->nseg = 0;
    return 0;
  }
  const int cols = cout16(c) / 16, nblocks = (cols + c->nz - 1) / c->nz;
  return align64(weights_offset(c) + (size_t)nblocks * block_stride(c));
}

void yk_qconv_pack__avx512vnni(yk_qconv *c, void *mem) {
  uint8_t *base = mem;
  const int c16 = cout16(c), taps = c->kh * c->kw, cols = c16 / 16;
  const int span = c->seg_span, spk = c->kw / span, steps = c->seg_bytes / 4;
  int8_t *w = (int8_t *)(base + weights_offset(c));
  pack_head(c, c16, 128 + c->x_zp, base);
  for (int col0 = 0; col0 < cols; col0 += c->nz) {
    const int nz = cols - col0 < c->nz ? cols - col0 : c->nz;
    for (int s = 0; s < c->nseg; s++) {
      const int ky = s / spk, kx0 = (s % spk) * span;
      for (int g = 0; g < steps; g++)
        for (int z = 0; z < nz; z++)
          for (int l = 0; l < 16; l++) {
            const int oc = 16 * (col0 + z) + l;
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

/* 256-entry LUT on 64 bytes with two vpermi2b and a blend on the index's top bit. */
static inline __m512i lut64(__m512i v, const int8_t *lut) {
  const __m512i idx = _mm512_xor_si512(v, _mm512_set1_epi8((char)0x80));
  const __m512i lo = _mm512_permutex2var_epi8(_mm512_loadu_si512(lut), idx,
                                              _mm512_loadu_si512(lut + 64));
  const __m512i hi = _mm512_permutex2var_epi8(_mm512_loadu_si512(lut + 128), idx,
                                              _mm512_loadu_si512(lut + 192));
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
}

typedef struct block_args {
  const int8_t *const *sp; /* [nseg][MR] segment pointers */
  int nseg, steps;
  const int8_t *w;
  const int32_t *bias; /* at the block's first channel */
  const float *scale;
  int8_t *y; /* first pixel, block's first channel */
  float *yf; /* instead of y for out_f32 (ystride then counts floats) */
  int ystride, nch, mr;
  float hi;
  int32_t y_zp;
  const int8_t *lut;
} block_args;

static inline __attribute__((always_inline)) __m512i requant16(__m512i acc, const float *scale,
                                                               __m512 hi) {
  /* min(v, hi) keeps cvt from overflowing upward; a downward overflow gives INT_MIN, which the
   * saturating packs turn into -128 like the reference's clamp. */
  const __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_loadu_ps(scale));
  return _mm512_cvtps_epi32(_mm512_min_ps(v, hi));
}

/* Pack 4 requantized zmm (items i0..i0+3 in pixel-major order) into 64 int8 and store them:
 * whole when contiguous in y (one pixel's 4 columns, or whole pixels when the block is a dense
 * output row), else 16 channels at a time. */
static inline __attribute__((always_inline)) void store_pack(const block_args *a,
                                                             const __m512i q[4], const int i0,
                                                             const int MR, const int NZ) {
  const __m512i zp = _mm512_set1_epi16((short)a->y_zp);
  const __m512i perm = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i ab = _mm512_adds_epi16(_mm512_packs_epi32(q[0], q[1]), zp);
  const __m512i cd = _mm512_adds_epi16(_mm512_packs_epi32(q[2], q[3]), zp);
  __m512i r = _mm512_permutexvar_epi32(perm, _mm512_packs_epi16(ab, cd));
  if (a->lut) r = lut64(r, a->lut);
  const int nch = a->nch < 16 * NZ ? a->nch : 16 * NZ;
  const int m0 = i0 / NZ, z0 = i0 % NZ;
  if (NZ % 4 == 0) {
    if (m0 < a->mr) {
      const int n = nch - 16 * z0;
      int8_t *yo = a->y + (size_t)m0 * a->ystride + 16 * z0;
      if (n >= 64) _mm512_storeu_si512(yo, r);
      else _mm512_mask_storeu_epi8(yo, ((__mmask64)1 << n) - 1, r);
    }
    return;
  }
  if (i0 + 4 <= MR * NZ && (i0 + 3) / NZ < a->mr && a->ystride == 16 * NZ && nch == 16 * NZ) {
    _mm512_storeu_si512(a->y + 16 * (size_t)i0, r);
    return;
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) {
    const int i = i0 + j, m = i / NZ, z = i % NZ, n = nch - 16 * z;
    if (i >= MR * NZ || m >= a->mr || n <= 0) continue;
    const __m128i chunk = j == 0   ? _mm512_castsi512_si128(r)
                          : j == 1 ? _mm512_extracti32x4_epi32(r, 1)
                          : j == 2 ? _mm512_extracti32x4_epi32(r, 2)
                                   : _mm512_extracti32x4_epi32(r, 3);
    _mm_mask_storeu_epi8(a->y + (size_t)m * a->ystride + 16 * z,
                         n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1), chunk);
  }
}

static inline __attribute__((always_inline)) void block_kernel(const block_args *a, const int MR,
                                                               const int NZ) {
  __m512i acc[MR_MAX][5];
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
  if (a->yf) { /* float output: (float)acc * scale, 16 channels per masked store */
#pragma GCC unroll 16
    for (int m = 0; m < MR; m++) {
      if (m >= a->mr) break;
#pragma GCC unroll 5
      for (int z = 0; z < NZ; z++) {
        const int n = a->nch - 16 * z;
        if (n <= 0) break;
        const __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[m][z]), _mm512_loadu_ps(a->scale + 16 * z));
        _mm512_mask_storeu_ps(a->yf + (size_t)m * a->ystride + 16 * z,
                              n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1), v);
      }
    }
    return;
  }
  /* Output: the MR x NZ accumulators in pixel-major order, 4 zmm per pack (64 bytes). */
  const __m512 hi = _mm512_set1_ps(a->hi);
  __m512i q[4];
  int k = 0;
  /* The runtime break keeps gcc from turning acc into memory in the K loop (without it, it
   * does: measured 2.5x slower). Items past mr are never stored, so a pending pack is flushed
   * before leaving. */
#pragma GCC unroll 16
  for (int m = 0; m < MR; m++) {
    if (m >= a->mr) {
      if (k) {
        for (int j = k; j < 4; j++) q[j] = _mm512_setzero_si512();
        store_pack(a, q, m * NZ - k, MR, NZ);
      }
      break;
    }
#pragma GCC unroll 5
    for (int z = 0; z < NZ; z++) {
      q[k++] = requant16(acc[m][z], a->scale + 16 * z, hi);
      if (k == 4 || (m == MR - 1 && z == NZ - 1)) {
        for (int j = k; j < 4; j++) q[j] = _mm512_setzero_si512();
        store_pack(a, q, m * NZ + z + 1 - k, MR, NZ);
        k = 0;
      }
    }
  }
}

#define DEF_BLOCK(MR, NZ) \
  static void block_##MR##x##NZ(const block_args *a) { block_kernel(a, MR, NZ); }
DEF_BLOCK(16, 1)
DEF_BLOCK(12, 1)
DEF_BLOCK(12, 2)
DEF_BLOCK(8, 1)
DEF_BLOCK(8, 2)
DEF_BLOCK(8, 3)
DEF_BLOCK(6, 1)
DEF_BLOCK(6, 2)
DEF_BLOCK(6, 3)
DEF_BLOCK(6, 4)
DEF_BLOCK(5, 1)
DEF_BLOCK(5, 2)
DEF_BLOCK(5, 3)
DEF_BLOCK(5, 4)
DEF_BLOCK(5, 5)
DEF_BLOCK(4, 1)
DEF_BLOCK(4, 2)
DEF_BLOCK(4, 3)
DEF_BLOCK(4, 4)

typedef void (*block_fn)(const block_args *);

static block_fn pick_block(int mr, int nz) {
  switch (mr * 8 + nz) {
    case 16 * 8 + 1: return block_16x1;
    case 12 * 8 + 1: return block_12x1;
    case 12 * 8 + 2: return block_12x2;
    case 8 * 8 + 1: return block_8x1;
    case 8 * 8 + 2: return block_8x2;
    case 8 * 8 + 3: return block_8x3;
    case 6 * 8 + 1: return block_6x1;
    case 6 * 8 + 2: return block_6x2;
    case 6 * 8 + 3: return block_6x3;
    case 6 * 8 + 4: return block_6x4;
    case 5 * 8 + 1: return block_5x1;
    case 5 * 8 + 2: return block_5x2;
    case 5 * 8 + 3: return block_5x3;
    case 5 * 8 + 4: return block_5x4;
    case 5 * 8 + 5: return block_5x5;
    case 4 * 8 + 1: return block_4x1;
    case 4 * 8 + 2: return block_4x2;
    case 4 * 8 + 3: return block_4x3;
    default: return block_4x4;
  }
}



void yk_qconv_rows__avx512vnni(const yk_qconv *c, const int8_t *x, void *y, int row0,
                               int row1) {
  const uint8_t *base = c->packed;
  const int c16 = cout16(c), cols = c16 / 16, MR = c->mr, NZ = c->nz;
  const int steps = c->seg_bytes / 4;
  const int32_t *bias = (const int32_t *)base;
  const float *scale = (const float *)(base + align64((size_t)c16 * 4));
  const int8_t *pad = (const int8_t *)(base + 2 * align64((size_t)c16 * 4));
  const int8_t *wbase = (const int8_t *)(base + weights_offset(c));
  const size_t bstride = block_stride(c), ys = yk_qconv_ys(c);
  const int nlast = cols % NZ ? cols % NZ : NZ;
  const block_fn full = pick_block(MR, NZ), last = pick_block(MR, nlast);
  const int8_t *sp[NSEG_MAX * MR_MAX];
  _Alignas(64) int8_t scratch[SCRATCH_BYTES];

  block_args a = {.sp = sp, .nseg = c->nseg, .steps = steps, .ystride = (int)ys,
                  .hi = (float)(127 - c->y_zp), .y_zp = c->y_zp, .lut = c->lut};
  const int nseg = c->nseg, w = c->w, ow = c->ow, oh = c->oh, sw = c->sw, pl = c->pad_l;
  const int segb = c->seg_bytes;
  const seg_geom g = seg_geom_of(c, x, pad);
  const size_t xstep = (size_t)sw * g.xs;
  const int8_t *const xend = g.xend;
  const int reach = g.reach; /* from a pixel's first tap to its last */
  const int pend = row1 * ow;
  int prev_direct = 0; /* the previous pixel's segments are all direct or vertical padding */
  for (int p0 = row0 * ow; p0 < pend; p0 += MR) {
    const int mr = pend - p0 < MR ? pend - p0 : MR;
    int8_t *scr = scratch;
    int r = p0 / ow, ox = p0 % ow, n = r / oh, oy = r % oh;
    /* A tile inside one output row with no clipped pixel: build the first pixel's segments,
     * the others are the same moved by m * sw pixels (vertical padding stays). */
    int m = 0;
    if (ox + mr <= ow && ox * sw - pl >= 0 && (ox + mr - 1) * sw - pl + reach < w) {
      prev_direct = 0;
      int ok = build_pixel_segments(&g, sp, MR, 0, n, oy, ox, &scr);
      for (int s = 0; ok && s < nseg; s++) {
        const int8_t *q = sp[s * MR];
        if (q != pad && q + (size_t)(mr - 1) * xstep + segb > xend) ok = 0;
      }
      if (ok) {
        for (int s = 0; s < nseg; s++) {
          const int8_t *q = sp[s * MR];
          const size_t step = q == pad ? 0 : xstep;
          for (int k = 1; k < mr; k++) sp[s * MR + k] = q + (size_t)k * step;
        }
        m = mr;
        prev_direct = 1;
        ox += mr;
        if (ox == ow) {
          ox = 0;
          if (++oy == oh) oy = 0, n++;
        }
      } else {
        scr = scratch;
      }
    }
    for (; m < mr; m++) {
      const int ix00 = ox * sw - pl;
      const int interior = ix00 >= 0 && ix00 + reach < w;
      const int mp = m > 0 ? m - 1 : MR - 1; /* the previous pixel's slot */
      int done = 0;
      if (interior && prev_direct && ox > 0) {
        /* Same output row as the previous pixel: every segment moves by sw pixels. */
        done = 1;
        for (int s = 0; s < nseg; s++) {
          const int8_t *q = sp[s * MR + mp];
          if (q != pad) {
            q += xstep;
            if (q + segb > xend) done = 0;
          }
          sp[s * MR + m] = q;
        }
      }
      if (!done) prev_direct = build_pixel_segments(&g, sp, MR, m, n, oy, ox, &scr);
      if (++ox == ow) {
        ox = 0;
        if (++oy == oh) oy = 0, n++;
      }
    }
    for (int m = mr; m < MR; m++) /* a short tile repeats its last pixel */
      for (int s = 0; s < c->nseg; s++) sp[s * MR + m] = sp[s * MR + mr - 1];
    a.mr = mr;
    for (int col0 = 0, b = 0; col0 < cols; col0 += NZ, b++) {
      a.w = wbase + (size_t)b * bstride;
      a.bias = bias + 16 * col0;
      a.scale = scale + 16 * col0;
      if (c->out_f32) a.yf = (float *)y + (size_t)p0 * ys + 16 * col0;
      else a.y = (int8_t *)y + (size_t)p0 * ys + 16 * col0;
      a.nch = c->cout - 16 * col0;
      (col0 + NZ <= cols ? full : last)(&a);
    }
  }
}
