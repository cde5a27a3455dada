/*
 * qconv_segments.h — the ISA-independent half of our int8 convolution variants (AVX-512 VNNI,
 * AVX-VNNI / AVX2, NEON / SDOT) past the packed weights' layout (qconv_pack.h): how a pixel's K
 * is cut into segments, the per-pixel table of segment pointers the micro-kernels read (direct
 * into the NHWC input, the shared row of x_zp bytes for padding, or a stack copy for a clipped /
 * over-reading segment), and the one tile driver (qconv_drive) that calls a variant's
 * micro-kernels. Internal: included by the variant files, compiled with each one's flags; a
 * variant file keeps only its micro-kernels, their output stage and which MR x NZ it
 * instantiates.
 */
#ifndef YOLORT_QCONV_SEGMENTS_H
#define YOLORT_QCONV_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qconv_pack.h"
#include "yk_qconv.h"

/* A clipped or over-reading segment: copy the valid taps, x_zp for padded ones; the tail past
 * the taps has zero weights, its bytes are zeroed only to be defined. */
static inline void build_segment(const yk_qconv *c, const int8_t *row, int ix0, int8_t *dst) {
  for (int t = 0; t < c->seg_span; t++) {
    const int ix = ix0 + t * c->dw;
    int8_t *d = dst + (size_t)t * c->cin;
    if (ix >= 0 && ix < c->w) memcpy(d, row + (size_t)ix * yk_qconv_xs(c), (size_t)c->cin);
    else memset(d, (int8_t)c->x_zp, (size_t)c->cin);
  }
  memset(dst + (size_t)c->seg_span * c->cin, 0, (size_t)c->seg_bytes - (size_t)c->seg_span * c->cin);
}

/* What building a pixel's segment pointers needs, hoisted out of the tile loop. xs is the
 * input's pixel stride (cin when dense); xend the end of the last pixel's channels. */
typedef struct seg_geom {
  const yk_qconv *c;
  const int8_t *x, *xend, *pad;
  size_t img, rowb, xs;
  int kh, h, w, sh, sw, dh, dw, pt, pl, span, spk, segb, reach;
  int tail_ok; /* a direct segment may read its padding bytes past cin (dense input) */
} seg_geom;

/* The geometry for input x and the packed x_zp row. A strided input (a channel range of a
 * wider tensor) never reads past its own channels: those bytes may be another node's. */
static inline seg_geom seg_geom_of(const yk_qconv *c, const int8_t *x, const int8_t *pad) {
  const size_t xs = yk_qconv_xs(c), npix = (size_t)c->n * c->h * c->w;
  const seg_geom g = {.c = c, .x = x, .xend = x + (npix - 1) * xs + (size_t)c->cin, .pad = pad,
                      .img = (size_t)c->h * c->w * xs, .rowb = (size_t)c->w * xs, .xs = xs,
                      .kh = c->kh, .h = c->h, .w = c->w, .sh = c->sh, .sw = c->sw, .dh = c->dh,
                      .dw = c->dw, .pt = c->pad_t, .pl = c->pad_l, .span = c->seg_span,
                      .spk = c->kw / c->seg_span, .segb = c->seg_bytes,
                      .reach = (c->kw - 1) * c->dw,
                      .tail_ok = xs == (size_t)c->cin || c->seg_bytes == c->cin};
  return g;
}

/* Segment pointers of one pixel into sp[s * MR + m]; returns 1 when all are direct or vertical
 * padding (so the next pixel in the row is the same moved by sw pixels). */
static inline int build_pixel_segments(const seg_geom *g, const int8_t **sp, int MR, int m, int n,
                                       int oy, int ox, int8_t **scr) {
  const int8_t *im = g->x + (size_t)n * g->img;
  const int iy0 = oy * g->sh - g->pt, ix00 = ox * g->sw - g->pl;
  const int8_t **dst = &sp[m];
  int direct = ix00 >= 0 && ix00 + g->reach < g->w;
  for (int ky = 0; ky < g->kh; ky++) {
    const int iy = iy0 + ky * g->dh;
    if (iy < 0 || iy >= g->h) {
      for (int k = 0; k < g->spk; k++, dst += MR) *dst = g->pad;
      continue;
    }
    const int8_t *row = im + (size_t)iy * g->rowb;
    for (int k = 0; k < g->spk; k++, dst += MR) {
      const int ix0 = ix00 + k * g->dw, ixl = ix0 + (g->span - 1) * g->dw;
      if (ix0 >= 0 && ixl < g->w && g->tail_ok && row + (size_t)ix0 * g->xs + g->segb <= g->xend) {
        *dst = row + (size_t)ix0 * g->xs;
      } else if (g->span == 1 && (ix0 < 0 || ix0 >= g->w)) {
        *dst = g->pad;
      } else {
        build_segment(g->c, row, ix0, *scr);
        *dst = *scr;
        *scr += g->segb;
        direct = 0;
      }
    }
  }
  return direct;
}

/* Segment pointers of the tile of mr output pixels starting at flat pixel p0, into
 * sp[s * MR + m]; stack copies go to scratch (SCRATCH_BYTES). A tile inside one output row with
 * no clipped pixel is the first pixel's segments moved by m * sw pixels (vertical padding
 * stays), unless that would read past the input's end; else pixel by pixel, where a pixel in the
 * same output row as a previous one whose segments were all direct (*prev_direct, carried from
 * tile to tile) is that one's moved by sw pixels. A short tile repeats its last pixel (computed,
 * never stored). first_only: a full tile (mr == MR) taking the first way fills only each
 * segment's first pixel (sp[s * MR]) and last (sp[s * MR + MR - 1], which the next tile's
 * pixel-by-pixel way may move on from) and returns 1: pixel m's is the first's + m * sw pixels,
 * or the pad row for all (a variant that reads them as base + stride, AMX). Else returns 0. */
static inline int tile_segments(const seg_geom *g, const int8_t **sp, int MR, int p0, int mr,
                                int8_t *scratch, int *prev_direct, const int first_only) {
  const yk_qconv *c = g->c;
  const int ow = c->ow, oh = c->oh, nseg = c->nseg, w = g->w, sw = g->sw, pl = g->pl;
  const int segb = g->segb, reach = g->reach; /* reach: from a pixel's first tap to its last */
  const int8_t *const pad = g->pad, *const xend = g->xend;
  const size_t xstep = (size_t)sw * g->xs;
  const int ox_last = (w - 1 - reach + pl) / sw; /* the last interior output column (if any) */
  int8_t *scr = scratch;
  int r = p0 / ow, ox = p0 % ow, n = r / oh, oy = r % oh;
  int m = 0;
  if (ox + mr <= ow && ox * sw - pl >= 0 && (ox + mr - 1) * sw - pl + reach < w) {
    *prev_direct = 0;
    int ok = build_pixel_segments(g, sp, MR, 0, n, oy, ox, &scr);
    for (int s = 0; ok && s < nseg; s++) {
      const int8_t *q = sp[s * MR];
      if (q != pad && q + (size_t)(mr - 1) * xstep + segb > xend) ok = 0;
    }
    if (ok && first_only && mr == MR) {
      for (int s = 0; s < nseg; s++) {
        const int8_t *q = sp[s * MR];
        sp[s * MR + MR - 1] = q == pad ? q : q + (size_t)(MR - 1) * xstep;
      }
      *prev_direct = 1;
      return 1; /* the next tile starts a new output row or moves on from this one's last */
    }
    if (ok) {
      for (int s = 0; s < nseg; s++) {
        const int8_t *q = sp[s * MR];
        const size_t step = q == pad ? 0 : xstep;
        for (int k = 1; k < mr; k++) sp[s * MR + k] = q + (size_t)k * step;
      }
      m = mr;
      *prev_direct = 1;
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
    if (interior && *prev_direct && ox > 0) {
      /* Same output row as the previous pixel: every segment moves by sw pixels, and so on for
       * the run of interior pixels of this row in the tile (checked at its last pixel). */
      int run = mr - m < ow - ox ? mr - m : ow - ox;
      if (run > ox_last - ox + 1) run = ox_last - ox + 1;
      done = 1;
      for (int s = 0; s < nseg; s++) {
        const int8_t *q = sp[s * MR + mp];
        if (q != pad && q + (size_t)run * xstep + segb > xend) done = 0;
      }
      if (!done && run > 1) { /* near the input's end: this pixel alone */
        run = 1;
        done = 1;
        for (int s = 0; s < nseg; s++) {
          const int8_t *q = sp[s * MR + mp];
          if (q != pad && q + xstep + segb > xend) done = 0;
        }
      }
      if (done) {
        for (int s = 0; s < nseg; s++) {
          const int8_t *q = sp[s * MR + mp];
          const size_t step = q == pad ? 0 : xstep;
          for (int k = 0; k < run; k++) sp[s * MR + m + k] = q + (size_t)(k + 1) * step;
        }
        m += run - 1;
        ox += run - 1;
      }
    }
    if (!done) *prev_direct = build_pixel_segments(g, sp, MR, m, n, oy, ox, &scr);
    if (++ox == ow) {
      ox = 0;
      if (++oy == oh) oy = 0, n++;
    }
  }
  for (int k = mr; k < MR; k++)
    for (int s = 0; s < nseg; s++) sp[s * MR + k] = sp[s * MR + mr - 1];
  return 0;
}

/* What a micro-kernel gets for one block: MR pixels (sp) x the block's columns. One struct for
 * every variant; each reads the fields its output stage needs. */
typedef struct qconv_block_args {
  const int8_t *const *sp; /* [nseg][MR] segment pointers */
  int nseg, steps;         /* segments per pixel, 4-byte K steps per segment */
  const int8_t *w;         /* the block's packed weights */
  const int32_t *bias;     /* at the block's first channel */
  const float *scale;
  int8_t *y; /* first pixel, block's first channel */
  float *yf; /* instead of y for out_f32 (ystride then counts floats) */
  int ystride, nch, mr; /* nch: channels from the block's first to cout; mr: pixels to store */
  int pair;             /* yk_qconv.w_sym (NEON pairs two steps' int16 products) */
  float lo, hi;         /* requantization clamp: -128 - y_zp, 127 - y_zp */
  int32_t y_zp;
  const int8_t *lut;    /* NULL or 256 entries */
  const void *lut_prep; /* the LUT as the variant's output stage reads it (AVX2: 16 ymm) */
  /* Set by a variant's tile_prep (else NULL): the tile's activations rewritten once per tile
   * for all its column blocks (AVX2: widened to int16), pixel m's K at xw + m * xws. */
  const int16_t *xw;
  int xws;
  const void *tile; /* set by a variant's tile_prep: its own per-tile data (AMX: A tile sources) */
  /* With qconv_rows_prep's first_only: 1 when this tile's sp holds only each segment's first
   * (and last) pixel, pixel m's segment then being sp[s * MR] + m * xstep, or pad for every
   * pixel when sp[s * MR] == pad (tile_segments). */
  int first_only;
  size_t xstep;
  const int8_t *pad;
} qconv_block_args;

typedef void (*qconv_block_fn)(const qconv_block_args *);
/* Called once per tile, after its segment pointers (a->sp, a->mr) and before its blocks. */
typedef void (*qconv_tile_fn)(qconv_block_args *a, int MR, void *ctx);

/* One MR x NZ micro-kernel a variant instantiates. Each variant file lists its blockings once,
 * as an X-macro (BLOCKS(X) X(mr, nz) ...): it defines the functions block_<mr>x<nz> and the
 * table of QCONV_UKERNEL entries that both says which blockings the variant can run (its
 * yk_qconv_packed_bytes__*) and picks them (qconv_rows_with). */
typedef struct qconv_ukernel {
  int mr, nz;
  qconv_block_fn fn;
} qconv_ukernel;
#define QCONV_UKERNEL(MR, NZ) {MR, NZ, block_##MR##x##NZ},
#define QCONV_NUKERNELS(t) ((int)(sizeof(t) / sizeof((t)[0])))

/* The micro-kernel for mr x nz in table t of n entries, NULL when the variant has none. */
static inline qconv_block_fn qconv_find_ukernel(const qconv_ukernel *t, int n, int mr, int nz) {
  for (int i = 0; i < n; i++)
    if (t[i].mr == mr && t[i].nz == nz) return t[i].fn;
  return NULL;
}

/* A variant's yk_qconv_packed_bytes__*: the packed size when c is that variant and its table t
 * (n entries) has a c->mr x c->nz micro-kernel, else 0. */
static inline size_t qconv_packed_bytes_with(yk_qconv *c, int variant, const qconv_ukernel *t, int n) {
  if (c->variant != variant || !qconv_find_ukernel(t, n, c->mr, c->nz)) return 0;
  return yk_qconv_packed_size(c);
}

/* The tile driver of every variant: output rows [row0, row1) as tiles of c->mr pixels; per tile
 * the segment pointers are built once (then tile_prep, when not NULL, with tile_ctx), then full
 * (c->nz columns) or last (the remaining columns) runs on each block of output channels.
 * lut_prep: see qconv_block_args; first_only: see tile_segments (a->first_only per tile). */
static inline void qconv_drive(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1,
                               qconv_block_fn full, qconv_block_fn last, const void *lut_prep,
                               qconv_tile_fn tile_prep, void *tile_ctx, const int first_only) {
  const yk_qconv_layout *L = yk_qconv_layout_of(c->variant);
  const uint8_t *base = c->packed;
  const int lanes = L->lanes, cpad = qconv_cpad(c, L), cols = cpad / lanes, MR = c->mr, NZ = c->nz;
  const int32_t *bias = (const int32_t *)base;
  const float *scale = (const float *)(base + align64((size_t)cpad * 4));
  const int8_t *pad = (const int8_t *)(base + 2 * align64((size_t)cpad * 4));
  const int8_t *wbase = (const int8_t *)(base + qconv_weights_offset(c, L));
  const size_t bstride = qconv_block_stride(c, L), ys = yk_qconv_ys(c);
  const int8_t *sp[NSEG_MAX * QCONV_MR_MAX];
  _Alignas(64) int8_t scratch[SCRATCH_BYTES];

  qconv_block_args a = {.sp = sp, .nseg = c->nseg, .steps = c->seg_bytes / 4, .ystride = (int)ys,
                        .pair = c->w_sym, .lo = (float)(-128 - c->y_zp),
                        .hi = (float)(127 - c->y_zp), .y_zp = c->y_zp, .lut = c->lut,
                        .lut_prep = c->lut ? lut_prep : NULL, .pad = pad,
                        .xstep = (size_t)c->sw * yk_qconv_xs(c)};
  const seg_geom g = seg_geom_of(c, x, pad);
  const int pend = row1 * c->ow;
  int prev_direct = 0;
  for (int p0 = row0 * c->ow; p0 < pend; p0 += MR) {
    const int mr = pend - p0 < MR ? pend - p0 : MR;
    a.first_only = tile_segments(&g, sp, MR, p0, mr, scratch, &prev_direct, first_only);
    a.mr = mr;
    if (tile_prep) tile_prep(&a, MR, tile_ctx);
    for (int col0 = 0, b = 0; col0 < cols; col0 += NZ, b++) {
      a.w = wbase + (size_t)b * bstride;
      a.bias = bias + lanes * col0;
      a.scale = scale + lanes * col0;
      if (c->out_f32) a.yf = (float *)y + (size_t)p0 * ys + lanes * col0;
      else a.y = (int8_t *)y + (size_t)p0 * ys + lanes * col0;
      a.nch = c->cout - lanes * col0;
      (col0 + NZ <= cols ? full : last)(&a);
    }
  }
}

/* Rows [row0, row1) with the micro-kernels of a variant's table t (n entries): c->nz columns per
 * block, the last block the remaining ones (c->mr x c->nz checked at packing time); tile_prep,
 * tile_ctx and first_only (only for a tile_prep that reads a->first_only) as qconv_drive's. */
static inline void qconv_rows_prep(const yk_qconv *c, const int8_t *x, void *y, int row0,
                                   int row1, const qconv_ukernel *t, int n, const void *lut_prep,
                                   qconv_tile_fn tile_prep, void *tile_ctx, const int first_only) {
  const yk_qconv_layout *L = yk_qconv_layout_of(c->variant);
  const int cols = qconv_cpad(c, L) / L->lanes, nlast = cols % c->nz ? cols % c->nz : c->nz;
  qconv_drive(c, x, y, row0, row1, qconv_find_ukernel(t, n, c->mr, c->nz),
              qconv_find_ukernel(t, n, c->mr, nlast), lut_prep, tile_prep, tile_ctx, first_only);
}
static inline void qconv_rows_with(const yk_qconv *c, const int8_t *x, void *y, int row0,
                                   int row1, const qconv_ukernel *t, int n, const void *lut_prep) {
  qconv_rows_prep(c, x, y, row0, row1, t, n, lut_prep, NULL, NULL, 0);
}

#endif
