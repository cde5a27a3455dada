/*
 * qconv_segments.h — the ISA-independent half of our int8 convolution variants (AVX-512 VNNI,
 * AVX-VNNI / AVX2, NEON / SDOT): how a pixel's K is cut into segments, and the per-pixel table
 * of segment pointers the micro-kernels read (direct into the NHWC input, the shared row of x_zp
 * bytes for padding, or a stack copy for a clipped / over-reading segment). Internal: included by
 * the variant files, compiled with each one's flags.
 */
#ifndef YOLORT_QCONV_SEGMENTS_H
#define YOLORT_QCONV_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "yk_qconv.h"

#define NSEG_MAX 64
#define SCRATCH_BYTES 16384 /* stack copies of clipped segments, per tile */

static inline size_t align64(size_t v) { return (v + 63) & ~(size_t)63; }

/* The packed block's head, shared by every variant: int32 bias [cpad] (cout rounded up to the
 * variant's column; extra channels 0), with xoff * sum(w) folded in (xoff = x_zp, or 128 + x_zp
 * when the kernel reads activations shifted to u8), float scale [cpad] at align64(cpad * 4), and
 * the row of x_zp bytes that padded segments point to at 2 * align64(cpad * 4). */
static inline void pack_head(const yk_qconv *c, int cpad, int32_t xoff, uint8_t *base) {
  const int taps = c->kh * c->kw;
  int32_t *bias = (int32_t *)base;
  float *scale = (float *)(base + align64((size_t)cpad * 4));
  int8_t *pad = (int8_t *)(base + 2 * align64((size_t)cpad * 4));
  for (int oc = 0; oc < cpad; oc++) {
    int32_t sum = 0;
    if (oc < c->cout) {
      const int8_t *wo = c->weights + (size_t)oc * taps * c->cin;
      for (int k = 0; k < taps * c->cin; k++) sum += wo[k];
    }
    bias[oc] = oc < c->cout ? (c->bias ? c->bias[oc] : 0) - xoff * sum : 0;
    scale[oc] = oc < c->cout ? c->scale[oc] : 0.0f;
  }
  memset(pad, (int8_t)c->x_zp, (size_t)c->seg_bytes);
}

/* Segments of `span` taps (kw: a kernel row of contiguous NHWC bytes, or 1), each padded to a
 * multiple of `align` bytes (the variant's K step); 0 when the tile's copies would not fit. */
static inline int seg_plan(yk_qconv *c, int span, int align) {
  const int seglen = span * c->cin;
  if (span > 1 && yk_qconv_xs(c) != (size_t)c->cin) return 0; /* a strided row is not contiguous */
  c->seg_span = span;
  c->nseg = c->kh * (c->kw / span);
  c->seg_bytes = (seglen + align - 1) / align * align;
  if (c->nseg > NSEG_MAX) return 0;
  /* Stack copies are needed when a segment can be clipped or over-read. */
  const int copies = span > 1 || c->seg_bytes != seglen;
  return !copies || (size_t)c->mr * c->nseg * c->seg_bytes <= SCRATCH_BYTES;
}

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
 * stays), unless that would read past the input's end. A short tile repeats its last pixel
 * (computed, never stored). */
static inline void tile_segments(const seg_geom *g, const int8_t **sp, int MR, int p0, int mr,
                                 int8_t *scratch) {
  const yk_qconv *c = g->c;
  const int ow = c->ow, oh = c->oh, nseg = c->nseg;
  const size_t xstep = (size_t)g->sw * g->xs;
  int8_t *scr = scratch;
  int r = p0 / ow, ox = p0 % ow, n = r / oh, oy = r % oh;
  int m = 0;
  if (ox + mr <= ow && ox * g->sw - g->pl >= 0 && (ox + mr - 1) * g->sw - g->pl + g->reach < g->w) {
    build_pixel_segments(g, sp, MR, 0, n, oy, ox, &scr);
    int ok = scr == scratch;
    for (int s = 0; ok && s < nseg; s++) {
      const int8_t *q = sp[s * MR];
      if (q != g->pad && q + (size_t)(mr - 1) * xstep + g->segb > g->xend) ok = 0;
    }
    if (ok) {
      for (int s = 0; s < nseg; s++) {
        const int8_t *q = sp[s * MR];
        const size_t step = q == g->pad ? 0 : xstep;
        for (int k = 1; k < mr; k++) sp[s * MR + k] = q + (size_t)k * step;
      }
      m = mr;
    } else {
      scr = scratch;
    }
  }
  for (; m < mr; m++) {
    build_pixel_segments(g, sp, MR, m, n, oy, ox, &scr);
    if (++ox == ow) {
      ox = 0;
      if (++oy == oh) oy = 0, n++;
    }
  }
  for (int k = mr; k < MR; k++)
    for (int s = 0; s < nseg; s++) sp[s * MR + k] = sp[s * MR + mr - 1];
}

#endif
