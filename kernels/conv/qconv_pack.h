/* qconv_pack.h — the packed weights of our int8 convolution's SIMD variants, shared by the one
 * packer (qconv_pack.c) and the tile driver that reads them (qconv_segments.h): each variant's
 * column tile (yk_qconv_layout, its row of include/variants/qconv.inc), the segment plan's limits,
 * and where the pieces of the packed memory start. Internal to kernels/conv. */
#ifndef YOLORT_QCONV_PACK_H
#define YOLORT_QCONV_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "yk_qconv.h"

#define NSEG_MAX 64
#define SCRATCH_BYTES 16384 /* stack copies of clipped segments, per tile */

#define QCONV_MR_MAX 32 /* the most pixels of any variant's tile (AMX's two A tiles) */

static inline size_t align64(size_t v) { return (v + 63) & ~(size_t)63; }

/* A variant's column tile, which is all the packer (qconv_pack.c) and the tile driver
 * (qconv_segments.h) need to know about it. K is always walked 4 bytes (one "step") at a time. */
typedef struct yk_qconv_layout {
  int lanes;     /* output channels per column: 16 (AVX-512, AMX), 8 (AVX-VNNI, AVX2), 4 (NEON) */
  int kr;        /* K bytes of a channel kept adjacent within a step: 4 (dot products), 2 (AVX2) */
  int wide;      /* 1: weights pre-widened to int16 (AVX2's vpmaddwd), else int8 */
  int seg_align; /* segments padded to a multiple of this many bytes (NEON: 8, AMX: 64, a tile row) */
  int u8;        /* 1: the kernel reads activations as u8 (x + 128, vpdpbusd) */
  int taps;      /* 1: one segment per tap, never a kernel row (the planar kernel walks taps) */
} yk_qconv_layout;

/* The layout of a yk_qconv_variant, NULL for the scalar reference (qconv_pack.c). */
const yk_qconv_layout *yk_qconv_layout_of(int variant);
/* For c->variant and c->mr / c->nz: plans the segments (c->seg_span, nseg, seg_bytes) and
 * returns the packed size, 0 when the shape cannot run that way. The variants' own
 * yk_qconv_packed_bytes__* also check their micro-kernels exist for mr x nz. */
size_t yk_qconv_packed_size(yk_qconv *c);

/* cout rounded up to the lanes; where the weights start; bytes of one full block of NZ columns. */
static inline int qconv_cpad(const yk_qconv *c, const yk_qconv_layout *L) {
  return (c->cout + L->lanes - 1) / L->lanes * L->lanes;
}
static inline size_t qconv_weights_offset(const yk_qconv *c, const yk_qconv_layout *L) {
  return align64((size_t)qconv_cpad(c, L) * 4) * 2 + align64((size_t)c->seg_bytes);
}
static inline size_t qconv_block_stride(const yk_qconv *c, const yk_qconv_layout *L) {
  return (size_t)c->nseg * (size_t)(c->seg_bytes / 4) * (size_t)c->nz * (size_t)L->lanes * 4 *
         (L->wide ? 2 : 1);
}

#endif /* YOLORT_QCONV_PACK_H */
