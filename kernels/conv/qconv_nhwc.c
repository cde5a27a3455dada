/* qconv_nhwc.c — variant choice and dispatch for the int8 NHWC convolution: the best variant
 * of ours the yk_isa can run (no policy about other backends, see yk_qconv_init). */
#include "yk_qconv.h"

size_t yk_qconv_packed_bytes(yk_qconv *c) {
  switch (c->variant) {
#define YK_QCONV_VARIANT(E, v, s, on, layout) on(case v : return yk_qconv_packed_bytes__##s(c);)
#include "variants/qconv.inc"
#undef YK_QCONV_VARIANT
    default: return 0;
  }
}

#if defined(YK_ARCH_X86_64)
/* AMX pads every segment to whole 64-byte chunks: with 16-pixel tiles worth it while the padded
 * K stays within 7/4 of the real one. qconv_bench, YOLO11n-640 layers, 1 thread, AMX vs AVX-512
 * VNNI: 1x1 over 80 channels (80 -> 128) 0.086 vs 0.157 ms, 3x3 over 16 (48 -> 64) 0.23 vs
 * 0.40; even at 2x (1x1 over 32) 0.166 vs 0.171; lost (16-pixel tiles, before the 32-pixel
 * ones): the stem's 3 channels (9 -> 64 per kernel row) 0.97 vs 0.66, the DFL's 1x1 16 -> 1
 * (4x) 0.18 vs 0.14. */
static int amx_pays(const yk_qconv *c) {
  const size_t k = (size_t)c->kh * c->kw * c->cin, kp = (size_t)c->nseg * c->seg_bytes;
  /* A channel range of a wider tensor whose segments are padded cannot be read in place (the
   * padding bytes are another node's): every segment would be copied twice (the driver's copy,
   * then the tile's). YOLOv8n's 3x3 over a 32-channel half of 64 (padded 32 -> 64, within
   * 2x): 0.71 ms on AMX against 0.28 on AVX-512 VNNI. */
  if (yk_qconv_xs(c) != (size_t)c->cin && c->seg_bytes != c->cin) return 0;
  /* 32-pixel tiles (cout <= 32, two independent chains) win even at 7x: YOLO11n-640's stem
   * (3x3 over 3 channels, 27 -> 192) 0.57 vs 0.70 ms, 1x1 32 -> 32 0.13 vs 0.20, 3x3 8 -> 16
   * (72 -> 192) 0.16 vs 0.25, the DFL's 1x1 16 -> 1 0.095 vs 0.139. */
  if (c->mr == 32) return kp <= k * 8;
  return kp * 4 <= k * 7;
}

/* The planar kernel (output pixels in the lanes) where the channels-in-lanes one wastes lanes or
 * its per-pixel setup outweighs a short K: a spatial kernel with cout or cin <= 16.
 * qconv_bench --lut, 1 thread, AMD Zen 5 (AVX-512 VNNI), YOLO11n-640 layers, channels-in-lanes
 * vs planar: 160x160 3x3 16 -> 8 0.355 vs 0.092 ms, 8 -> 16 0.232 vs 0.100; 80x80 3x3 32 -> 16
 * 0.137 vs 0.099, 16 -> 32 0.115 vs 0.090; lost: 40x40 3x3 32 -> 32 0.047 vs 0.054, 64 -> 32
 * 0.080 vs 0.103, every 1x1 (160x160 32 -> 32 0.170 vs 0.197, 40x40 64 -> 32 0.017 vs 0.024). */
static int planar_pays(const yk_qconv *c) {
  return yk_qconv_planar_fits(c) && c->kh * c->kw > 1 && (c->cout <= 16 || c->cin <= 16);
}
#endif

/* With c->variant and its blocking set: keep them if the variant can run the shape (packed size
 * > 0), else back to the scalar reference. */
static inline void keep_if_packed(yk_qconv *c) {
  c->packed_bytes = yk_qconv_packed_bytes(c);
  if (!c->packed_bytes) {
    c->variant = YK_QCONV_SCALAR;
    c->mr = c->nz = 0;
  }
}

int yk_qconv_init(yk_qconv *c, const yk_isa *isa) {
  if (c->n < 1 || c->h < 1 || c->w < 1 || c->cin < 1 || c->oh < 1 || c->ow < 1 || c->cout < 1 ||
      c->kh < 1 || c->kw < 1 || c->sh < 1 || c->sw < 1 || c->dh < 1 || c->dw < 1 ||
      c->pad_t < 0 || c->pad_l < 0 || !c->weights || !c->scale || c->x_zp < -128 ||
      c->x_zp > 127 || c->y_zp < -128 || c->y_zp > 127 || (c->x_stride && c->x_stride < c->cin) ||
      (c->y_stride && c->y_stride < c->cout) || c->x_stride < 0 || c->y_stride < 0 ||
      (c->out_f32 && c->lut))
    return -1;
  c->variant = YK_QCONV_SCALAR;
  c->mr = c->nz = 0;
  c->seg_span = c->nseg = c->seg_bytes = 0;
  c->w_sym = 0;
  c->packed_bytes = 0;
  c->packed = NULL;
#if defined(YK_ARCH_X86_64)
  /* AMX where the segments' padding to 64 K bytes wastes little (see amx_pays); its output
   * stage is the AVX-512 VNNI one. */
  if (isa && isa->amx && isa->avx512vnni && isa->avx512vbmi) {
    c->variant = YK_QCONV_AMX;
    yk_qconv_blocking__amx(c->cout, &c->mr, &c->nz);
    c->packed_bytes = yk_qconv_packed_bytes(c);
    if (!c->packed_bytes || !amx_pays(c)) {
      c->variant = YK_QCONV_SCALAR;
      c->mr = c->nz = 0;
      c->packed_bytes = 0;
    }
  }
  /* The narrow layers with output pixels in the lanes (planar_pays); VBMI for its byte permutes. */
  if (c->variant == YK_QCONV_SCALAR && isa && isa->avx512vnni && isa->avx512vbmi && planar_pays(c)) {
    c->variant = YK_QCONV_AVX512VNNI_PLANAR;
    yk_qconv_blocking__avx512vnni_planar(c->cout, &c->mr, &c->nz);
    keep_if_packed(c);
  }
  /* The VNNI kernel applies the LUT with VBMI. */
  if (c->variant == YK_QCONV_SCALAR && isa && isa->avx512vnni && isa->avx512vbmi) {
    c->variant = YK_QCONV_AVX512VNNI;
    yk_qconv_blocking__avx512vnni(c->cout, &c->mr, &c->nz);
    keep_if_packed(c);
  }
  /* 256-bit variants: AVX-VNNI, else plain AVX2. This picks our best variant for the yk_isa;
   * whether it beats another backend (XNNPACK) is the runtime's choice (ops/conv_int8.c). */
  const int v256 = !isa ? 0 : isa->avxvnni ? YK_QCONV_AVXVNNI : isa->avx2 ? YK_QCONV_AVX2 : 0;
  if (c->variant == YK_QCONV_SCALAR && v256) {
    c->variant = v256;
    yk_qconv_blocking__avx2(c->cout, v256 == YK_QCONV_AVXVNNI, &c->mr, &c->nz);
    keep_if_packed(c);
  }
#elif defined(YK_ARCH_AARCH64)
  if (isa && isa->neon) {
    c->variant = isa->neon_dot ? YK_QCONV_NEONDOT : YK_QCONV_NEON;
    yk_qconv_blocking__neon(c->cout, c->variant == YK_QCONV_NEONDOT, &c->mr, &c->nz);
    keep_if_packed(c);
  }
#else
  (void)isa;
#endif
  return 0;
}

/* The variant init chose, once (c->variant); without packed weights the scalar reference. */
void yk_qconv_rows(const yk_qconv *c, const int8_t *x, void *y, int row0, int row1) {
  if (c->packed) switch (c->variant) {
#define YK_QCONV_VARIANT(E, v, s, on, layout) on(case v : yk_qconv_rows__##s(c, x, y, row0, row1); return;)
#include "variants/qconv.inc"
#undef YK_QCONV_VARIANT
      default: break;
    }
  yk_qconv_rows__scalar(c, x, y, row0, row1);
}
