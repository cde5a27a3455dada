/* qconv_nhwc_amx.c — int8 NHWC convolution on AMX-INT8 (Sapphire Rapids and later), output
 * stage on AVX-512 (+VBMI for the LUT).
 *
 * One tdpbssd multiplies an A tile of 16 output pixels x 64 K bytes (signed activations) by a
 * B tile of 64 K bytes x 16 output channels (signed weights) into a C tile of 16 x 16 int32:
 * 16384 MAC, 8x what vpdpbusd zmm does per instruction. Tile registers: tmm0 A, tmm1 B, tmm2..
 * C for the block's NZ columns (NZ <= 6). The C tiles start as the bias (a stride-0 load: every
 * pixel's row is the same 16 channels), K is walked as the driver's segments (qconv_segments.h)
 * padded to whole 64-byte chunks with zero weights (layout seg_align 64), so a padded tail's
 * bytes, whatever they are, add nothing.
 *
 * A tiles come straight from the NHWC input when the tile's 16 pointers of a segment are evenly
 * spaced (tileloadd's row stride: the driver's interior tiles move by sw pixels per pixel, the
 * padding row by 0): no copy. Otherwise (image edges, tiles across output rows, short tiles,
 * clipped segments) tile_prep copies that segment's 16 rows into a compact stack buffer once per
 * tile, for all its column blocks. Every pointer the driver gives is valid for the segment's
 * seg_bytes (it checked direct ones against the input's end), so both ways read only bytes it
 * vouched for.
 *
 * Activations stay signed (layout .u8 0): x_zp * sum(w) is folded into the bias at pack time and
 * padded taps read x_zp bytes, so they add exactly zero, as in the reference. Packed weights
 * (qconv_pack.c, 16 lanes, kr 4): per block, segment and 4-byte step, per column 16 x 4 bytes,
 * so the B tile of column z and chunk j is 16 rows (steps) 64 * NZ bytes apart.
 *
 * After K the C tiles go to a stack int32 buffer and through the AVX-512 VNNI variant's output
 * stage (qconv_out_avx512.h), 4 pixels at a time.
 */
#include <immintrin.h>
#include <stdint.h>

#include "qconv_out_avx512.h"
#include "qconv_segments.h"
#include "yk_qconv.h"

#define AMX_MR 16         /* A tile rows: pixels per tile */
#define AMX_NZ_MAX 6      /* C tiles: 8 tile registers - A - B */
#define AMX_COPY_BYTES 36864 /* per-tile copies: 16 pixels x K (3x3 taps of 256 channels) */

typedef struct amx_tilecfg { /* ldtilecfg's 64-byte operand, palette 1 */
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} amx_tilecfg;

/* Where each segment's A tiles come from for the current tile: base + chunk * 64, rows
 * stride bytes apart. */
typedef struct amx_tile {
  const int8_t *base[NSEG_MAX];
  size_t stride[NSEG_MAX];
} amx_tile;

typedef struct amx_ctx {
  amx_tile t;
  int8_t *buf; /* AMX_COPY_BYTES, 64-byte aligned */
} amx_ctx;

void yk_qconv_blocking__amx(int cout, int *mr, int *nz) {
  const int cols = (cout + 15) / 16;
  *mr = AMX_MR;
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

/* Per segment: the 16 pointers evenly spaced (one tileloadd reads them in place), else copied
 * to buf, 64 bytes at a time (seg_bytes is a multiple of 64). */
static void amx_tile_prep(qconv_block_args *a, int MR, void *ctx) {
  amx_ctx *x = ctx;
  const size_t segb = (size_t)a->steps * 4;
  for (int s = 0; s < a->nseg; s++) {
    const int8_t *const *p = a->sp + (size_t)s * MR;
    const uintptr_t b0 = (uintptr_t)p[0], d = (uintptr_t)p[1] - b0;
    int even = 1;
    for (int m = 2; m < MR; m++) even &= (uintptr_t)p[m] - b0 == (uintptr_t)m * d;
    if (even) {
      x->t.base[s] = p[0];
      x->t.stride[s] = (size_t)d;
      continue;
    }
    int8_t *dst = x->buf + (size_t)s * MR * segb;
    for (int m = 0; m < MR; m++)
      for (size_t k = 0; k < segb; k += 64)
        _mm512_store_si512(dst + (size_t)m * segb + k, _mm512_loadu_si512(p[m] + k));
    x->t.base[s] = dst;
    x->t.stride[s] = segb;
  }
  a->tile = &x->t;
}

/* gcc's tileloadd asm names no memory operand: this keeps the copies above (and any store)
 * before the tile loads. */
#define AMX_MEMORY_BARRIER() __asm__ volatile("" ::: "memory")

/* Per column z, its C tile T (a literal: gcc's tile macros paste it into the instruction). */
#define C_INIT(z, T) \
  if (NZ > z) _tile_loadd(T, a->bias + 16 * z, 0);
#define C_DP(z, T)                  \
  if (NZ > z) {                     \
    _tile_loadd(1, w + 64 * z, bs); \
    _tile_dpbssd(T, 0, 1);          \
  }
#define C_STORE(z, T) \
  if (NZ > z) _tile_stored(T, &acc32[0][16 * z], 64 * AMX_NZ_MAX);
#define C_ALL(F) F(0, 2) F(1, 3) F(2, 4) F(3, 5) F(4, 6) F(5, 7)

static inline __attribute__((always_inline)) void block_kernel(const qconv_block_args *a,
                                                               const int NZ) {
  const amx_tile *t = a->tile;
  AMX_MEMORY_BARRIER();
  C_ALL(C_INIT)
  const int8_t *w = a->w;
  const size_t bs = (size_t)64 * NZ; /* B tile row stride: one step of the block's columns */
  const int chunks = a->steps / 16;
  for (int s = 0; s < a->nseg; s++) {
    const int8_t *xa = t->base[s];
    const size_t xs = t->stride[s];
    for (int j = 0; j < chunks; j++, xa += 64, w += 16 * bs) {
      _tile_loadd(0, xa, xs);
      C_ALL(C_DP)
    }
  }
  _Alignas(64) int32_t acc32[AMX_MR][16 * AMX_NZ_MAX];
  C_ALL(C_STORE)
  /* the output stage 4 pixels at a time (its packs of 4 zmm, 24 accumulators at most) */
  for (int m0 = 0; m0 < a->mr; m0 += 4) {
    qconv_block_args o = *a;
    o.mr = a->mr - m0 < 4 ? a->mr - m0 : 4;
    if (a->yf) o.yf = a->yf + (size_t)m0 * a->ystride;
    else o.y = a->y + (size_t)m0 * a->ystride;
    __m512i acc[4][QO_NZ_MAX];
#pragma GCC unroll 4
    for (int m = 0; m < 4; m++)
#pragma GCC unroll 6
      for (int z = 0; z < NZ; z++) acc[m][z] = _mm512_load_si512(&acc32[m0 + m][16 * z]);
    qo_output(&o, acc, 4, NZ);
  }
}

#define BLOCKS(X) X(16, 1) X(16, 2) X(16, 3) X(16, 4) X(16, 5) X(16, 6)
#define DEF_BLOCK(MR, NZ) \
  static void block_##MR##x##NZ(const qconv_block_args *a) { block_kernel(a, NZ); }
BLOCKS(DEF_BLOCK)
static const qconv_ukernel ukernels[] = {BLOCKS(QCONV_UKERNEL)};

size_t yk_qconv_packed_bytes__amx(yk_qconv *c) {
  if (c->variant != YK_QCONV_AMX ||
      !qconv_find_ukernel(ukernels, QCONV_NUKERNELS(ukernels), c->mr, c->nz))
    return 0;
  const size_t n = yk_qconv_packed_size(c);
  if (n && (size_t)AMX_MR * (size_t)c->nseg * (size_t)c->seg_bytes > AMX_COPY_BYTES) return 0;
  return n;
}

void yk_qconv_rows__amx(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  /* every tile 16 rows x 64 bytes: A (16 pixels x 64 K bytes), B (16 steps x 16 channels x 4),
   * C (16 pixels x 16 int32) */
  _Alignas(64) amx_tilecfg cfg = {.palette = 1};
  for (int i = 0; i < 8; i++) cfg.colsb[i] = 64, cfg.rows[i] = 16;
  _tile_loadconfig(&cfg);
  _Alignas(64) int8_t buf[AMX_COPY_BYTES];
  amx_ctx ctx = {.buf = buf};
  qconv_rows_prep(c, x, y, row0, row1, ukernels, QCONV_NUKERNELS(ukernels), NULL, amx_tile_prep,
                  &ctx);
  _tile_release(); /* back to the init state: no tile data for the OS to save */
}
