/*
 * yk_qconv.h — our own int8 NHWC convolution (groups = 1), per-channel requantization and an
 * optional fused 256-entry LUT (SiLU) in the output pass.
 *
 * Why our own: the Debian XNNPACK (2022-02) has no VNNI kernels. On AVX-512 VNNI one vpdpbusd
 * does 64 u8*s8 MACs; we feed it signed activations by flipping their sign bit (x + 128) and fold
 * the correction -(128 + x_zp) * sum(w) into the bias at pack time. Padding reads a row of x_zp
 * bytes, so padded taps contribute exactly zero, as in the reference.
 *
 * Arithmetic (identical in every variant, so they are bit-exact):
 *   acc[c]  = bias[c] + sum_{taps,ci} (x - x_zp) * w
 *   v       = clamp((float)acc[c] * scale[c], -128 - y_zp, 127 - y_zp)
 *   y       = round_half_even(v) + y_zp;  y = lut ? lut[y + 128] : y
 *   (out_f32: y = (float)acc[c] * scale[c], stored as float)
 *
 * Blocking (AVX-512 VNNI): a tile of MR output pixels x NZ*16 output channels; K is walked as
 * "segments" — with dw == 1 one segment per kernel row (kw*cin contiguous NHWC bytes, so cin need
 * not be a multiple of 4: the tail up to a dword has zero weights), else one per tap. init picks
 * MR x NZ from cout; tests and benchmarks may override mr/nz after init (then call
 * yk_qconv_packed_bytes again before packing).
 *
 * AArch64 (qconv_nhwc_neon*.c): the same segments, MR pixels x NZ columns of 4 channels; SDOT
 * where the CPU has it, else SMULL + SADALP. Activations stay signed: x_zp * sum(w) is folded
 * into the bias at pack time. init picks MR x NZ; tests may set variant (NEON or NEONDOT when
 * isa->neon_dot) and mr/nz after init, then call yk_qconv_packed_bytes again.
 *
 * x86-64 without AVX-512 VNNI (qconv_nhwc_avx2.c, qconv_nhwc_avxvnni.c): the same segments, MR
 * pixels x NZ ymm columns of 8 channels; 256-bit vpdpbusd on AVX-VNNI (u8 flip as above), else
 * vpmaddwd on sign-extended int16 (vpmaddubsw would saturate). init prefers AVX-512 VNNI+VBMI,
 * then AVX-VNNI, then AVX2 (else scalar); tests may set variant (AVXVNNI or AVX2, when the
 * yk_isa has it) and mr/nz after init, then call yk_qconv_packed_bytes again. Whether one
 * of these beats XNNPACK on a given CPU is not decided here: the runtime's conv setup does it.
 *
 * x86-64 with AMX-INT8 (qconv_nhwc_amx.c, isa->amx: the OS granted the tile state): tiles of 16
 * pixels x 64 K bytes (segments padded to 64 bytes with zero weights) times 16-channel columns,
 * tdpbssd on signed activations (x_zp * sum(w) folded into the bias), the AVX-512 VNNI
 * variant's output stage. init prefers it where the K padding wastes little (else AVX-512
 * VNNI); tests may set variant AMX when isa->amx (then yk_qconv_blocking__amx and
 * yk_qconv_packed_bytes; 0 when its tile copies would not fit).
 *
 * Use: fill the shape fields, yk_qconv_init() picks a variant for the yk_isa and tells how many
 * bytes of packed memory it needs, yk_qconv_pack() fills them (once, at session creation), then
 * yk_qconv_rows() computes any range of output rows (call it from several threads on disjoint
 * ranges). No allocation inside.
 */
#ifndef YOLORT_YK_QCONV_H
#define YOLORT_YK_QCONV_H

#include <stddef.h>
#include <stdint.h>

#include "yk.h"

/* The variants: include/variants/qconv.inc (every architecture's, so the values are the same
 * everywhere). */
enum yk_qconv_variant {
  YK_QCONV_SCALAR = 0,
#define YK_QCONV_VARIANT(E, v, s, on, layout) YK_QCONV_##E = v,
#include "variants/qconv.inc"
#undef YK_QCONV_VARIANT
};

typedef struct yk_qconv {
  /* shape (NHWC, batch handled by the caller as extra rows: n * oh rows) */
  int n, h, w, cin, oh, ow, cout;
  int kh, kw, sh, sw, pad_t, pad_l, dh, dw;
  int32_t x_zp, y_zp;
  const int8_t *weights; /* [cout][kh][kw][cin], used by the scalar variant */
  const int32_t *bias;   /* [cout] or NULL */
  const float *scale;    /* [cout]: s_x * s_w[c] / s_y */
  const int8_t *lut;     /* NULL or 256 entries indexed by y + 128 */
  /* Elements from one pixel to the next in x / y; 0 means dense (cin / cout). Larger strides
   * read a channel range of a wider tensor and write into one (a Concat's buffer, zero-copy);
   * with x_stride != cin, K is cut per tap (a kernel row is no longer contiguous). */
  int x_stride, y_stride;
  /* 1: y is float, (float)acc[c] * scale[c] with scale = s_x * s_w[c] (no clamp, zero point or
   * LUT): an int8 conv whose output feeds float code (the detection head's last convs), so the
   * output is not rounded to 256 levels and no dequantize pass is needed. y_stride counts floats. */
  int out_f32;
  /* filled by yk_qconv_init / yk_qconv_pack */
  int variant;
  int mr, nz; /* pixels x 16- (AVX-512 VNNI), 8- (AVX-VNNI, AVX2) or 4-channel (NEON) columns */
  int seg_span;        /* taps per segment: kw (kernel row) or 1 (one tap) */
  int nseg, seg_bytes; /* segments per output pixel, bytes per segment (multiple of 4; NEON 8) */
  int w_sym;           /* set by pack: no weight is -128 (NEON sums two steps' int16 products) */
  size_t packed_bytes;
  void *packed;
} yk_qconv;

/* Validate the shape (zero points must be int8 values) and choose our fastest variant the yk_isa
 * can run (YK_QCONV_SCALAR when none); returns 0 on success, -1 on a shape it cannot run. */
int yk_qconv_init(yk_qconv *c, const yk_isa *isa);
/* Pack weights/bias into mem (c->packed_bytes bytes, 64-byte aligned). */
void yk_qconv_pack(yk_qconv *c, void *mem);
/* Output rows [row0, row1) of the flattened n*oh rows; y is int8_t*, or float* with out_f32. */
void yk_qconv_rows(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1);

/* For c->variant (set by init, or by a test to another variant the yk_isa has) and c->mr / c->nz
 * (set by init, or by a test or benchmark to another blocking): plans the segments (c->seg_span,
 * nseg, seg_bytes) and returns the packed size, 0 when the variant has no micro-kernel for
 * mr x nz or cannot run the shape. init calls it; set c->packed_bytes to it before packing. */
size_t yk_qconv_packed_bytes(yk_qconv *c);

/* Dynamic input quantization (activation range measured on every run, onnxruntime
 * quantize_dynamic models): after pack, a new x_zp and new c->bias / c->scale contents take
 * effect by rewriting only the packed head (bias with x_zp * sum(w) folded, scales, padding
 * row): O(cout), never the weights. wsum[cout] comes from yk_qconv_weight_sums (once). */
void yk_qconv_weight_sums(const yk_qconv *c, int32_t *wsum);
void yk_qconv_set_input(yk_qconv *c, int32_t x_zp, const int32_t *wsum);
/* s[r * ow + ox] for output rows [row0, row1) (s: the whole output's base) = the sum of
 * (x - x_zp) over the pixel's window, padded taps contributing 0 (qconv_window_sums.c, portable):
 * with weights stored as w - k[c], the accumulator of sum((x - x_zp) * w) is acc + k[c] * s. */
void yk_qconv_window_sums(const yk_qconv *c, const int8_t *x, int32_t *s, int row0, int row1);

/* Variants, exposed for tests. yk_qconv_packed_bytes__<v> is yk_qconv_packed_bytes for c->variant
 * <v> (0 for any other variant); yk_qconv_blocking__<v> is the MR x NZ init chooses for cout. */
void yk_qconv_rows__scalar(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1);
#define YK_QCONV_VARIANT(E, v, s, on, layout)                                                \
  on(void yk_qconv_rows__##s(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1); \
     size_t yk_qconv_packed_bytes__##s(yk_qconv *c);)
#include "variants/qconv.inc"
#undef YK_QCONV_VARIANT
#if YK_ARCH_X86_64
void yk_qconv_blocking__avx512vnni(int cout, int *mr, int *nz);
void yk_qconv_blocking__avx2(int cout, int vnni, int *mr, int *nz); /* AVX-VNNI (vnni 1), AVX2 */
/* Output pixels in the lanes over a ring of planar input rows (qconv_nhwc_planar_avx512vnni.c):
 * stride 1, cin a multiple of 4 up to 64, cout <= 32, int8 output; yk_qconv_planar_fits says
 * whether a shape qualifies, init takes it for the narrow layers (cout <= 16, short K). */
void yk_qconv_blocking__avx512vnni_planar(int cout, int *mr, int *nz);
int yk_qconv_planar_fits(const yk_qconv *c);
void yk_qconv_blocking__amx(int cout, int *mr, int *nz);
#endif
#if YK_ARCH_AARCH64
void yk_qconv_blocking__neon(int cout, int dot, int *mr, int *nz); /* NEONDOT (dot 1), NEON */
#endif

/* Pixel strides in elements, the dense defaults applied. */
static inline size_t yk_qconv_xs(const yk_qconv *c) { return (size_t)(c->x_stride ? c->x_stride : c->cin); }
static inline size_t yk_qconv_ys(const yk_qconv *c) { return (size_t)(c->y_stride ? c->y_stride : c->cout); }

/* The requantization step shared by all variants. */
static inline int8_t yk_qconv_requant(int32_t acc, float scale, int32_t y_zp) {
  float v = (float)acc * scale;
  const float lo = (float)(-128 - y_zp), hi = (float)(127 - y_zp);
  v = v < lo ? lo : (v > hi ? hi : v);
  return (int8_t)(yk_round_half_even(v) + y_zp);
}

#endif /* YOLORT_YK_QCONV_H */
