/* qconv_pack.c — the one weight packer of the int8 convolution's SIMD variants, parameterised by
 * their column tile (yk_qconv_layout: 16, 8 or 4 lanes, K bytes adjacent per lane, int8 or
 * pre-widened int16). Portable (built without ISA flags): packing runs once per conv at session
 * creation, on any CPU. In the spirit of XNNPACK's packing.c (nr / kr / sr packers): the layout
 * says where each weight goes, the micro-kernels only read it.
 *
 * Packed memory, 64-byte aligned pieces (every variant):
 *   int32 bias_adj[cpad]   bias - xoff * sum(w), cpad = cout rounded up to the lanes; xoff =
 *                          128 + x_zp when the kernel reads activations as u8 (sign bit flipped),
 *                          else x_zp (padded taps read x_zp bytes: they contribute exactly zero)
 *   float scale[cpad]
 *   int8  pad_seg[seg_bytes] x_zp
 *   weights: per block of NZ columns (the last block may be narrower), per segment, per K group
 *            of 4 bytes (one "step"), per column, lanes * 4 weights: for each sub-step h of
 *            4 / kr, for each lane l, kr weights of K bytes h, h + 4/kr, ... of channel l:
 *              kr 4 (dot products): lane l's 4 consecutive K bytes (vpdpbusd, SDOT);
 *              kr 2 (AVX2 vpmaddwd): (k0, k2) of the 8 lanes, then (k1, k3), as int16.
 * Segments (planned here, walked by qconv_segments.h's driver) are padded to seg_align bytes with zero weights.
 */
#include <string.h>

#include "qconv_pack.h"

/* Indexed by yk_qconv_variant, every architecture's (include/variants/qconv.inc); lanes 0: no
 * packed layout (the scalar reference). */
#define YK_UNPAREN(...) __VA_ARGS__
static const yk_qconv_layout layouts[] = {
    [YK_QCONV_SCALAR] = {0, 0, 0, 0, 0, 0},
#define YK_QCONV_VARIANT(E, v, s, on, layout) [YK_QCONV_##E] = {YK_UNPAREN layout},
#include "variants/qconv.inc"
#undef YK_QCONV_VARIANT
};

const yk_qconv_layout *yk_qconv_layout_of(int variant) {
  if (variant < 0 || variant >= (int)(sizeof layouts / sizeof layouts[0]) || !layouts[variant].lanes)
    return NULL;
  return &layouts[variant];
}

/* Segments of `span` taps (kw: a kernel row of contiguous NHWC bytes, or 1), each padded to a
 * multiple of `align` bytes (the variant's K step); 0 when the tile's copies would not fit. */
static int seg_plan(yk_qconv *c, int span, int align) {
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

size_t yk_qconv_packed_size(yk_qconv *c) {
  const yk_qconv_layout *L = yk_qconv_layout_of(c->variant);
  if (!L || c->mr < 1 || c->mr > QCONV_MR_MAX || c->nz < 1) return 0;
  if (!((c->dw == 1 && !L->taps && seg_plan(c, c->kw, L->seg_align)) || seg_plan(c, 1, L->seg_align))) {
    c->nseg = 0;
    return 0;
  }
  const int cols = qconv_cpad(c, L) / L->lanes, nblocks = (cols + c->nz - 1) / c->nz;
  return align64(qconv_weights_offset(c, L) + (size_t)nblocks * qconv_block_stride(c, L));
}

/* Sum of each output channel's weights. */
void yk_qconv_weight_sums(const yk_qconv *c, int32_t *wsum) {
  const size_t k = (size_t)c->kh * c->kw * c->cin;
  for (int oc = 0; oc < c->cout; oc++) {
    int32_t sum = 0;
    for (size_t i = 0; i < k; i++) sum += c->weights[(size_t)oc * k + i];
    wsum[oc] = sum;
  }
}

/* The head: bias with xoff * sum(w) folded in, scales, the row of x_zp bytes. wsum: the weight
 * sums, or NULL to add them up here. */
static void pack_head(const yk_qconv *c, int cpad, int32_t xoff, uint8_t *base, const int32_t *wsum) {
  const size_t k = (size_t)c->kh * c->kw * c->cin;
  int32_t *bias = (int32_t *)base;
  float *scale = (float *)(base + align64((size_t)cpad * 4));
  int8_t *pad = (int8_t *)(base + 2 * align64((size_t)cpad * 4));
  for (int oc = 0; oc < cpad; oc++) {
    int32_t sum = 0;
    if (oc < c->cout && wsum) sum = wsum[oc];
    else if (oc < c->cout)
      for (size_t i = 0; i < k; i++) sum += c->weights[(size_t)oc * k + i];
    bias[oc] = oc < c->cout ? (c->bias ? c->bias[oc] : 0) - xoff * sum : 0;
    scale[oc] = oc < c->cout ? c->scale[oc] : 0.0f;
  }
  memset(pad, (int8_t)c->x_zp, (size_t)c->seg_bytes);
}

void yk_qconv_set_input(yk_qconv *c, int32_t x_zp, const int32_t *wsum) {
  c->x_zp = x_zp; /* the scalar variant and the clipped-segment copies read it from here */
  const yk_qconv_layout *L = yk_qconv_layout_of(c->variant);
  if (!L || !c->packed) return;
  pack_head(c, qconv_cpad(c, L), L->u8 ? 128 + x_zp : x_zp, c->packed, wsum);
}

void yk_qconv_pack(yk_qconv *c, void *mem) {
  const yk_qconv_layout *L = yk_qconv_layout_of(c->variant);
  if (!L) return; /* the scalar reference reads c->weights */
  uint8_t *base = mem;
  const int lanes = L->lanes, kr = L->kr, nsub = 4 / kr;
  const int cpad = qconv_cpad(c, L), taps = c->kh * c->kw, cols = cpad / lanes;
  const int span = c->seg_span, spk = c->kw / span, steps = c->seg_bytes / 4;
  int8_t *w8 = (int8_t *)(base + qconv_weights_offset(c, L));
  int16_t *w16 = (int16_t *)(base + qconv_weights_offset(c, L));
  pack_head(c, cpad, L->u8 ? 128 + c->x_zp : c->x_zp, base, NULL);
  /* NEON sums two steps' int16 products when no weight is -128 */
  c->w_sym = 1;
  for (size_t k = 0; k < (size_t)c->cout * taps * c->cin; k++)
    if (c->weights[k] == INT8_MIN) c->w_sym = 0;
  for (int col0 = 0; col0 < cols; col0 += c->nz) {
    const int nz = cols - col0 < c->nz ? cols - col0 : c->nz;
    for (int s = 0; s < c->nseg; s++) {
      const int ky = s / spk, kx0 = (s % spk) * span;
      for (int g = 0; g < steps; g++)
        for (int z = 0; z < nz; z++)
          for (int h = 0; h < nsub; h++)
            for (int l = 0; l < lanes; l++)
              for (int p = 0; p < kr; p++) {
                const int oc = lanes * (col0 + z) + l;
                const int k = 4 * g + h + p * nsub, kx = kx0 + k / c->cin, ci = k % c->cin;
                const int8_t v = oc < c->cout && k < span * c->cin
                                     ? c->weights[((size_t)oc * taps + ky * c->kw + kx) * c->cin + ci]
                                     : 0;
                if (L->wide) *w16++ = v;
                else *w8++ = v;
              }
    }
  }
  c->packed = mem;
}
