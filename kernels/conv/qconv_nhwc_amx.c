/* qconv_nhwc_amx.c — int8 NHWC convolution on AMX-INT8 (Sapphire Rapids and later), output
 * stage on AVX-512 (+VBMI for the LUT).
 *
 * One tdpbssd multiplies an A tile of 16 output pixels x 64 K bytes (signed activations) by a
 * B tile of 64 K bytes x 16 output channels (signed weights) into a C tile of 16 x 16 int32:
 * 16384 MAC, 8x what vpdpbusd zmm does per instruction. Tiles of 16 pixels: tmm0 A, tmm1 B,
 * tmm2.. C for the block's NZ columns (NZ <= 6). With one or two columns (cout <= 32) a C
 * tile's chain (bias, K's tdpbssd, store) is short and its latency shows: tiles of 32 pixels,
 * two A tiles (tmm0, tmm1), a B tile per column (tmm2, tmm7) and two independent C chains per
 * column (tmm3-6). The C tiles start as the bias (a stride-0 load: every pixel's row is the same
 * 16 channels), K is walked as the driver's segments (qconv_segments.h) padded to whole 64-byte
 * chunks with zero weights (layout seg_align 64), so a padded tail's bytes, whatever they are,
 * add nothing.
 *
 * A tiles come straight from the NHWC input when the 16 pointers of a segment are evenly spaced
 * (tileloadd's row stride). A full tile inside one output row with no clipped pixel (the
 * driver's first_only tiles) gives only its first pixel's pointers: base + sw pixels per row,
 * the padding row with stride 0, without filling and re-checking 16 x nseg pointers. Otherwise
 * the driver fills every pointer; per 16 pixels and segment, evenly spaced ones are read in
 * place and the rest (image edges, tiles across output rows, short tiles, clipped segments) are
 * copied by tile_prep into a compact stack buffer once per tile, for all its column blocks.
 * Every pointer the driver gives is valid for the segment's seg_bytes (it checked direct ones
 * against the input's end), so both ways read only bytes it vouched for. Kernel-row segments of
 * a dense input (3x3 and the like at stride 1; at stride 2 only with 32-pixel tiles) skip the
 * driver: amx_rows_ring copies each input row once, x_zp padding included, into a ring of kh
 * rows, and every tile of every output row reads it in place.
 *
 * Activations stay signed (layout .u8 0): x_zp * sum(w) is folded into the bias at pack time and
 * padded taps read x_zp bytes, so they add exactly zero, as in the reference. Packed weights
 * (qconv_pack.c, 16 lanes, kr 4): per block, segment and 4-byte step, per column 16 x 4 bytes,
 * so the B tile of column z and chunk j is 16 rows (steps) 64 * NZ bytes apart.
 *
 * After K the C tiles go to a stack int32 buffer and through the AVX-512 VNNI variant's output
 * stage (qconv_out_avx512.h), 16, 8 or 4 pixels at a time (NZ 1, 2, more). A 32-pixel tile's
 * block runs the previous block's output stage while its own tdpbssd compute (the pending
 * block, two acc buffers; the last one after the rows).
 */
#include <immintrin.h>
#include <stdint.h>

#include "qconv_out_avx512.h"
#include "qconv_segments.h"
#include "yk_qconv.h"

#define AMX_NZ_MAX 6      /* C tiles of a 16-pixel tile: 8 tile registers - A - B */
#define AMX_NZ32_MAX 2    /* C tiles per A of a 32-pixel tile: A0, A1, B0, B1 + 2 x 2 C */
#define AMX_COPY_BYTES 36864 /* per-tile copies: 16 pixels x K (3x3 taps of 256 channels) */

typedef struct amx_tilecfg { /* ldtilecfg's 64-byte operand, palette 1 */
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} amx_tilecfg;

/* Where each segment's A tiles come from for the current tile, per 16 pixels h: base[h][s] +
 * chunk * 64, rows stride[h][s] bytes apart. */
typedef struct amx_pending amx_pending;
typedef struct amx_tile {
  const int8_t *base[2][NSEG_MAX];
  size_t stride[2][NSEG_MAX];
  amx_pending *pend;
} amx_tile;

/* A block whose C tiles wait in acc for their output stage, run by the next block while its
 * tdpbssd chains compute (or by the end of the rows). */
typedef void (*amx_out_fn)(const qconv_block_args *a, const int32_t *acc32);
struct amx_pending {
  qconv_block_args a;
  amx_out_fn out; /* NULL: nothing pending */
  int32_t *acc[2]; /* 16 * 16 * AMX_NZ_MAX int32 each, 64-byte aligned; acc[0] is pending's */
};

typedef struct amx_ctx {
  amx_tile t;
  int8_t *buf; /* AMX_COPY_BYTES, 64-byte aligned */
} amx_ctx;

void yk_qconv_blocking__amx(int cout, int *mr, int *nz) {
  const int cols = (cout + 15) / 16;
  /* One or two columns: 32 pixels, two independent C tile chains per column (one chain of
   * tdpbssd waits out each one's latency); yk_qconv_packed_bytes__amx falls back to 16 when
   * the copies of 32 would not fit. */
  *mr = cols <= AMX_NZ32_MAX ? 32 : 16;
  if (cols <= AMX_NZ_MAX) {
    *nz = cols;
    return;
  }
  /* the fewest blocks, then the widest last block */
  int best = AMX_NZ_MAX, bb = 1 << 30, bl = 0;
  for (int n = AMX_NZ_MAX; n >= 4; n--) {
    const int nb = (cols + n - 1) / n, last = cols - (nb - 1) * n;
    if (nb < bb || (nb == bb && last > bl)) best = n, bb = nb, bl = last;
  }
  *nz = best;
}

/* Per 16 pixels h and segment: an interior tile's (a->first_only) base and sw pixels' stride
 * straight from the driver; else the 16 pointers evenly spaced (one tileloadd reads them in
 * place), else copied to buf, 64 bytes at a time (seg_bytes is a multiple of 64). */
static void amx_tile_prep(qconv_block_args *a, int MR, void *ctx) {
  amx_ctx *x = ctx;
  a->tile = &x->t;
  if (a->first_only) {
    const size_t xs = a->xstep, half = 16 * xs;
    for (int s = 0; s < a->nseg; s++) {
      const int8_t *q = a->sp[(size_t)s * MR];
      const int pad = q == a->pad;
      x->t.base[0][s] = q;
      x->t.base[1][s] = pad ? q : q + half;
      x->t.stride[0][s] = x->t.stride[1][s] = pad ? 0 : xs;
    }
    return;
  }
  const size_t segb = (size_t)a->steps * 4;
  for (int h = 0; h < MR / 16; h++)
    for (int s = 0; s < a->nseg; s++) {
      const int8_t *const *p = a->sp + (size_t)s * MR + 16 * h;
      const uintptr_t b0 = (uintptr_t)p[0], d = (uintptr_t)p[1] - b0;
      int even = 1;
      for (int m = 2; m < 16; m++) even &= (uintptr_t)p[m] - b0 == (uintptr_t)m * d;
      if (even) {
        x->t.base[h][s] = p[0];
        x->t.stride[h][s] = (size_t)d;
        continue;
      }
      int8_t *dst = x->buf + ((size_t)h * a->nseg + s) * 16 * segb;
      for (int m = 0; m < 16; m++)
        for (size_t k = 0; k < segb; k += 64)
          _mm512_store_si512(dst + (size_t)m * segb + k, _mm512_loadu_si512(p[m] + k));
      x->t.base[h][s] = dst;
      x->t.stride[h][s] = segb;
    }
}

/* gcc's tileloadd asm names no memory operand: this keeps the copies above (and any store)
 * before the tile loads. */
#define AMX_MEMORY_BARRIER() __asm__ volatile("" ::: "memory")

/* 16-pixel tiles, per column z its C tile T (a literal: gcc's tile macros paste it into the
 * instruction): tmm0 A, tmm1 B, tmm2..7 C. */
#define C_INIT(z, T) \
  if (NZ > z) _tile_loadd(T, a->bias + 16 * z, 0);
#define C_DP(z, T)                  \
  if (NZ > z) {                     \
    _tile_loadd(1, w + 64 * z, bs); \
    _tile_dpbssd(T, 0, 1);          \
  }
#define C_STORE(z, T) \
  if (NZ > z) _tile_stored(T, acc32 + 16 * z, 64 * NZ);
#define C_ALL(F) F(0, 2) F(1, 3) F(2, 4) F(3, 5) F(4, 6) F(5, 7)

/* 32-pixel tiles, per column z its B tile B and the C tiles T0 (pixels 0-15, A tile tmm0) and
 * T1 (16-31, tmm1): two chains that do not wait for each other. */
#define C2_INIT(z, B, T0, T1)                     \
  if (NZ > z) {                                   \
    _tile_loadd(T0, a->bias + 16 * z, 0);         \
    _tile_loadd(T1, a->bias + 16 * z, 0);         \
  }
#define C2_DP(z, B, T0, T1)         \
  if (NZ > z) {                     \
    _tile_loadd(B, w + 64 * z, bs); \
    _tile_dpbssd(T0, 0, B);         \
    _tile_dpbssd(T1, 1, B);         \
  }
#define C2_STORE(z, B, T0, T1)                                       \
  if (NZ > z) {                                                      \
    _tile_stored(T0, acc32 + 16 * z, 64 * NZ);                       \
    _tile_stored(T1, acc32 + (size_t)16 * 16 * NZ + 16 * z, 64 * NZ); \
  }
#define C2_ALL(F) F(0, 2, 3, 5) F(1, 7, 4, 6)

/* The output stage of a block's MR x NZ int32 (pixel m's at acc32 + m * 16 * NZ), G pixels at
 * a time (its packs of 4 zmm, 16 or 24 accumulators at most). */
static inline __attribute__((always_inline)) void out_kernel(const qconv_block_args *a,
                                                             const int32_t *acc32, const int NZ) {
  const int G = NZ == 1 ? 16 : NZ == 2 ? 8 : 4;
  for (int m0 = 0; m0 < a->mr; m0 += G) {
    qconv_block_args o = *a;
    o.mr = a->mr - m0 < G ? a->mr - m0 : G;
    if (a->yf) o.yf = a->yf + (size_t)m0 * a->ystride;
    else o.y = a->y + (size_t)m0 * a->ystride;
    __m512i acc[16][QO_NZ_MAX];
#pragma GCC unroll 16
    for (int m = 0; m < G; m++)
#pragma GCC unroll 6
      for (int z = 0; z < NZ; z++)
        acc[m][z] = _mm512_load_si512(acc32 + (size_t)(m0 + m) * 16 * NZ + 16 * z);
    qo_output(&o, acc, G, NZ);
  }
}
/* The output stage of a one-column block with at most 8 channels (int8 out; cout 8 of the 160x160
 * 16 -> 8): two pixels a zmm (their C rows' first 8 int32), so half the requantizations and
 * packs of out_kernel's one pixel a zmm, 8 pixels per 64-byte store when the output is dense.
 * The same operations per element as qo_output, hence the same bytes. */
static void out_narrow(const qconv_block_args *a, const int32_t *acc32) {
  const __m512 sc = _mm512_broadcast_f32x8(_mm256_loadu_ps(a->scale)), hi = _mm512_set1_ps(a->hi);
  const __m512i zp = _mm512_set1_epi16((short)a->y_zp);
  const __m512i perm = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  yk_lut4 l = {{_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()}};
  if (a->lut) l = yk_lut4_load(a->lut);
  const int nch = a->nch < 8 ? a->nch : 8;
  const size_t ys = (size_t)a->ystride;
  const __mmask64 pix = ((__mmask64)1 << nch) - 1; /* one pixel's bytes at the start */
  for (int m0 = 0; m0 < a->mr; m0 += 8) {
    __m512i q[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
      const int32_t *p = acc32 + (size_t)(m0 + 2 * j) * 16;
      const __m512i v = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256((const __m256i *)p)),
                                           _mm256_load_si256((const __m256i *)(p + 16)), 1);
      q[j] = yk_avx512_requant16(v, sc, hi);
    }
    __m512i r = _mm512_permutexvar_epi32(perm, yk_avx512_pack64(q[0], q[1], q[2], q[3], zp));
    if (a->lut) r = yk_lut4_lookup(&l, _mm512_xor_si512(r, flip));
    const int n = a->mr - m0 < 8 ? a->mr - m0 : 8; /* pixel k's bytes at 8 k */
    int8_t *y = a->y + (size_t)m0 * ys;
    if (ys == 8 && nch == 8) {
      _mm512_mask_storeu_epi8(y, n == 8 ? ~(__mmask64)0 : ((__mmask64)1 << (8 * n)) - 1, r);
      continue;
    }
    /* masked stores fault only on the bytes they write: pixel k's at y + k ys */
    for (int k = 0; k < n; k++) _mm512_mask_storeu_epi8(y + (size_t)k * ys - 8 * k, pix << (8 * k), r);
  }
}

#define OUTS(X) X(1) X(2) X(3) X(4) X(5) X(6)
#define DEF_OUT(NZ) \
  static void out_##NZ(const qconv_block_args *a, const int32_t *acc32) { out_kernel(a, acc32, NZ); }
OUTS(DEF_OUT)

/* C tiles from the bias, K's tdpbssd, then the C tiles through the output stage; 32-pixel tiles
 * (short K, the chains' latency shows) run the previous block's output stage while their
 * tdpbssd compute, then store their C tiles to the free acc buffer: the pending block. */
static inline __attribute__((always_inline)) void block_kernel(const qconv_block_args *a,
                                                               const int MR, const int NZ,
                                                               const amx_out_fn out) {
  const amx_tile *t = a->tile;
  amx_pending *pd = t->pend;
  AMX_MEMORY_BARRIER();
  if (MR == 32) {
    C2_ALL(C2_INIT)
  } else {
    C_ALL(C_INIT)
  }
  const int8_t *w = a->w;
  const size_t bs = (size_t)64 * NZ; /* B tile row stride: one step of the block's columns */
  const int chunks = a->steps / 16;
  for (int s = 0; s < a->nseg; s++) {
    const int8_t *xa = t->base[0][s], *xb = t->base[1][s];
    const size_t xs = t->stride[0][s], xt = t->stride[1][s];
    for (int j = 0; j < chunks; j++, xa += 64, xb += 64, w += 16 * bs) {
      _tile_loadd(0, xa, xs);
      if (MR == 32) {
        _tile_loadd(1, xb, xt);
        C2_ALL(C2_DP)
      } else {
        C_ALL(C_DP)
      }
    }
  }
  if (MR == 16) { /* deferring measured slower here: 80x80 3x3 64 -> 64 0.173 -> 0.216 ms */
    _Alignas(64) int32_t acc32[16 * 16 * AMX_NZ_MAX];
    if (MR == 32) {
      C2_ALL(C2_STORE)
    } else {
      C_ALL(C_STORE)
    }
    if (NZ == 1 && a->nch <= 8 && !a->yf) out_narrow(a, acc32);
    else out_kernel(a, acc32, NZ);
    return;
  }
  if (pd->out) pd->out(&pd->a, pd->acc[0]);
  int32_t *acc32 = pd->acc[1];
  pd->acc[1] = pd->acc[0];
  pd->acc[0] = acc32;
  AMX_MEMORY_BARRIER(); /* the output stage's loads of the other buffer stay before */
  if (MR == 32) {
    C2_ALL(C2_STORE)
  } else {
    C_ALL(C_STORE)
  }
  pd->a = *a;
  pd->out = NZ == 1 && a->nch <= 8 && !a->yf ? out_narrow : out;
}

#define BLOCKS(X) X(32, 1) X(32, 2) X(16, 1) X(16, 2) X(16, 3) X(16, 4) X(16, 5) X(16, 6)
#define DEF_BLOCK(MR, NZ) \
  static void block_##MR##x##NZ(const qconv_block_args *a) { block_kernel(a, MR, NZ, out_##NZ); }
BLOCKS(DEF_BLOCK)
static const qconv_ukernel ukernels[] = {BLOCKS(QCONV_UKERNEL)};

/* 32-pixel tiles (asked by yk_qconv_blocking__amx) only with NZ <= 2, where their copies fit
 * and the segments stay those of 16 (else c->mr becomes 16): a 3x3 over 64 channels would go
 * from 3 kernel-row segments to 9 taps (the driver's scratch), measured 1.8x slower. */
size_t yk_qconv_packed_bytes__amx(yk_qconv *c) {
  if (c->variant != YK_QCONV_AMX) return 0;
  const int want32 = c->mr == 32 && c->nz <= AMX_NZ32_MAX;
  if (c->mr == 32) c->mr = 16;
  if (!qconv_find_ukernel(ukernels, QCONV_NUKERNELS(ukernels), c->mr, c->nz)) return 0;
  const size_t n = yk_qconv_packed_size(c);
  if (!n || (size_t)c->mr * (size_t)c->nseg * (size_t)c->seg_bytes > AMX_COPY_BYTES) return 0;
  if (want32) {
    yk_qconv d = *c;
    d.mr = 32;
    if (yk_qconv_packed_size(&d) == n && d.nseg == c->nseg && d.seg_bytes == c->seg_bytes &&
        (size_t)32 * (size_t)c->nseg * (size_t)c->seg_bytes <= AMX_COPY_BYTES)
      c->mr = 32;
  }
  return n;
}

/* Kernel-row segments (dw = dh = 1, seg_span = kw > 1) of a dense input, 32-pixel tiles
 * (cout <= 32: the narrow layers, whose K is short so the driver's per-tile work showed):
 * rows of padded input instead of the driver's segment pointers. Each input row a tile reads is
 * copied once per call into a ring of kh rows with pl pixels of x_zp before it and x_zp after
 * it, so every output pixel's kernel row, edges included, is in place at ox * sw * cin: every
 * A tile is read in place (base + stride), no per-pixel pointers, no edge copies. Tiles start
 * at every output row (a row's last tile: 32 pixels when more than 16 remain, else the 16-pixel
 * kernel), so the ring holds (round16(ow) - 1) * sw * cin + seg_bytes bytes a row. 0 when the
 * conv does not qualify or the ring would not fit buf. qconv_bench, 1 thread: 160x160 3x3
 * 16 -> 8 and 8 -> 16 0.132 -> 0.095 ms, 80x80 32 -> 16 0.047 -> 0.031, the stem 0.52 -> 0.43
 * (the driver's pointers and edge tiles' copies cost more than these short K's tdpbssd).
 * 16-pixel tiles (cout > 32, or cout 32 over 64 channels, whose 32-pixel copies would not fit)
 * too at stride 1: 80x80 3x3 64 -> 64 0.18-0.20 -> 0.14-0.16 ms, 40x40 64 -> 32 0.028-0.034 ->
 * 0.020-0.024, 10x10 64 -> 64 (320) 0.005-0.007 -> 0.003-0.004: even rows of 40, 20 or 10 (a
 * short tile every row) beat the driver's tiles across rows, which were copied. Not at stride 2
 * (160 -> 80 64 -> 64: 0.19 -> 0.22, each output row copies two 10 KB input rows). */
static size_t amx_ring_row_bytes(const yk_qconv *c) {
  const int tiles16 = c->mr == 16 && c->sh == 1;
  if ((c->mr != 32 && !tiles16) || c->dw != 1 || c->dh != 1 || c->kw < 2 || c->seg_span != c->kw ||
      c->nseg != c->kh || yk_qconv_xs(c) != (size_t)c->cin)
    return 0;
  const size_t owr = ((size_t)c->ow + 15) / 16 * 16, cin = (size_t)c->cin;
  size_t need = (owr - 1) * (size_t)c->sw * cin + (size_t)c->seg_bytes;
  if (need < ((size_t)c->pad_l + (size_t)c->w) * cin) need = ((size_t)c->pad_l + (size_t)c->w) * cin;
  need = align64(need);
  return need * (size_t)c->kh <= AMX_COPY_BYTES ? need : 0;
}

static void amx_rows_ring(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1,
                          amx_ctx *ctx, size_t rowb) {
  const yk_qconv_layout *L = yk_qconv_layout_of(c->variant);
  const uint8_t *base = c->packed;
  const int lanes = L->lanes, cpad = qconv_cpad(c, L), cols = cpad / lanes, NZ = c->nz;
  const int nlast = cols % NZ ? cols % NZ : NZ;
  const qconv_block_fn f32 = qconv_find_ukernel(ukernels, QCONV_NUKERNELS(ukernels), 32, NZ);
  const qconv_block_fn l32 = qconv_find_ukernel(ukernels, QCONV_NUKERNELS(ukernels), 32, nlast);
  const qconv_block_fn f16 = qconv_find_ukernel(ukernels, QCONV_NUKERNELS(ukernels), 16, NZ);
  const qconv_block_fn l16 = qconv_find_ukernel(ukernels, QCONV_NUKERNELS(ukernels), 16, nlast);
  const int32_t *bias = (const int32_t *)base;
  const float *scale = (const float *)(base + align64((size_t)cpad * 4));
  const int8_t *pad = (const int8_t *)(base + 2 * align64((size_t)cpad * 4));
  const int8_t *wbase = (const int8_t *)(base + qconv_weights_offset(c, L));
  const size_t bstride = qconv_block_stride(c, L), ys = yk_qconv_ys(c), cin = (size_t)c->cin;
  const size_t xstep = (size_t)c->sw * cin, lead = (size_t)c->pad_l * cin, rowin = (size_t)c->w * cin;
  long tag[NSEG_MAX]; /* the flat input row (n * h + iy) each ring slot holds, -1: none */
  for (int k = 0; k < c->kh; k++) tag[k] = -1;
  amx_tile *t = &ctx->t;
  qconv_block_args a = {.nseg = c->nseg, .steps = c->seg_bytes / 4, .ystride = (int)ys,
                        .lo = (float)(-128 - c->y_zp), .hi = (float)(127 - c->y_zp),
                        .y_zp = c->y_zp, .lut = c->lut, .pad = pad, .tile = t, .xstep = xstep};
  for (int r = row0; r < row1; r++) {
    const int n = r / c->oh, oy = r % c->oh;
    const int8_t *rows[NSEG_MAX];
    AMX_MEMORY_BARRIER(); /* the previous tiles' loads of the ring stay before its refill */
    for (int ky = 0; ky < c->kh; ky++) {
      const int iy = oy * c->sh - c->pad_t + ky;
      if (iy < 0 || iy >= c->h) {
        rows[ky] = NULL;
        continue;
      }
      const long fl = (long)n * c->h + iy;
      const int slot = iy % c->kh; /* kh consecutive rows: distinct slots */
      int8_t *dst = ctx->buf + (size_t)slot * rowb;
      if (tag[slot] != fl) {
        memset(dst, (int8_t)c->x_zp, lead);
        memcpy(dst + lead, x + (size_t)fl * rowin, rowin);
        memset(dst + lead + rowin, (int8_t)c->x_zp, rowb - lead - rowin);
        tag[slot] = fl;
      }
      rows[ky] = dst;
    }
    AMX_MEMORY_BARRIER();
    for (int ox0 = 0; ox0 < c->ow; ox0 += c->mr) {
      const int mr = c->ow - ox0 < c->mr ? c->ow - ox0 : c->mr, big = mr > 16;
      for (int s = 0; s < c->nseg; s++) {
        const int8_t *q = rows[s] ? rows[s] + (size_t)ox0 * xstep : pad;
        t->base[0][s] = q;
        t->base[1][s] = rows[s] ? q + 16 * xstep : pad;
        t->stride[0][s] = t->stride[1][s] = rows[s] ? xstep : 0;
      }
      a.mr = mr;
      const size_t p0 = (size_t)r * c->ow + ox0;
      for (int col0 = 0, b = 0; col0 < cols; col0 += NZ, b++) {
        a.w = wbase + (size_t)b * bstride;
        a.bias = bias + lanes * col0;
        a.scale = scale + lanes * col0;
        if (c->out_f32) a.yf = (float *)y + p0 * ys + lanes * col0;
        else a.y = (int8_t *)y + p0 * ys + lanes * col0;
        a.nch = c->cout - lanes * col0;
        const int full = col0 + NZ <= cols;
        (big ? (full ? f32 : l32) : (full ? f16 : l16))(&a);
      }
    }
  }
}

void yk_qconv_rows__amx(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  /* every tile 16 rows x 64 bytes: A (16 pixels x 64 K bytes), B (16 steps x 16 channels x 4),
   * C (16 pixels x 16 int32) */
  _Alignas(64) amx_tilecfg cfg = {.palette = 1};
  for (int i = 0; i < 8; i++) cfg.colsb[i] = 64, cfg.rows[i] = 16;
  _tile_loadconfig(&cfg);
  _Alignas(64) int8_t buf[AMX_COPY_BYTES];
  _Alignas(64) int32_t acc[2][16 * 16 * AMX_NZ_MAX];
  amx_pending pend = {.acc = {acc[0], acc[1]}};
  amx_ctx ctx = {.t = {.pend = &pend}, .buf = buf};
  const size_t ring = amx_ring_row_bytes(c);
  if (ring) {
    amx_rows_ring(c, x, y, row0, row1, &ctx, ring);
    if (pend.out) pend.out(&pend.a, pend.acc[0]);
    _tile_release();
    return;
  }
  qconv_rows_prep(c, x, y, row0, row1, ukernels, QCONV_NUKERNELS(ukernels), NULL, amx_tile_prep,
                  &ctx, 1);
  if (pend.out) pend.out(&pend.a, pend.acc[0]);
  _tile_release(); /* back to the init state: no tile data for the OS to save */
}
