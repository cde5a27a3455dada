/*
 * yk_variants.h — internal: every microkernel variant behind the yk.h entry points, so tests
 * (and benchmarks) can call each one directly. Not part of the runtime's API.
 *
 * Naming: <entry>__scalar is the portable reference; <entry>__avx2 etc. must be bit-exact with
 * it. A variant exists only on the architecture whose macro guards it (YK_ARCH_X86_64,
 * YK_ARCH_AARCH64, YK_ARCH_ARMV7); callers must check the yk_isa bit before calling it.
 *
 * Rounding convention shared by all int8 variants (see yk_inline.h):
 *   quantize   : v = x / scale (IEEE division, never a reciprocal), clamp v to +-2^22
 *                (NaN -> -2^22), round half to even, + zp, saturate to int8.
 *   requantize : v = (float)(x - zx) * (sx / sy), the ratio computed once in float, then as above.
 *   dwconv     : v = (float)acc * requant_scale[c], then as above.
 *   conv, qmatmul: yk_qconv_requant (v = (float)acc * scale clamped to [-128 - zp, 127 - zp]).
 *   SIMD uses vcvtps2dq (round-half-even in the default MXCSR mode) on the same clamped float.
 */
#ifndef YOLORT_YK_VARIANTS_H
#define YOLORT_YK_VARIANTS_H

#include "yk.h"

/* Every variant of every dispatched entry, declared from its family's list (variants/<family>.inc, read the
 * same way by isa/isa_select.c, the tests and the benchmarks): yk_<entry>__<isa>, with the
 * signature YK_FN_<entry> of yk.h, on the list's architectures only.
 *
 * The ARM NEON variants, and why some exist on AArch64 only: the integer ones (lut_i8,
 * maxpool_nhwc_i8, detect_over_i8, frame_rows) run on ARMv7 too; those computing in float
 * (detect_over_f32, quantize_f32_i8, dequantize_i8_f32, requant_i8, concat_i8, the depthwise and
 * int8 convolutions) are AArch64 only: ARMv7 NEON float arithmetic flushes denormals to zero and has
 * no vector divide nor round-to-nearest-even conversion, so it cannot match the scalar (VFP, IEEE)
 * reference bit for bit. AArch64 rounding matches yk_inline.h: clamp with FMAXNM/FMINNM (NaN ->
 * -2^22, like yk_qclamp), then FCVTNS (round half to even), + zp, saturating narrow to int8. */
#define YK_VARIANT(e, s, on, cond) on(YK_FN_##e(yk_##e##__##s);)
#include YK_VARIANT_LISTS
#undef YK_VARIANT

/* Helpers of several variants (not dispatched). */
/* Anchors with a class value over t: the reference's scan from flat value i of total = n * nc, the
 * step every yk_detect_over_* variant ends with. */
size_t yk_detect_over_i8_from(const int8_t *q, size_t i, size_t total, size_t nc, int8_t t, int32_t base,
                              int32_t *list);
size_t yk_detect_over_f32_from(const float *x, size_t i, size_t total, size_t nc, float t, int32_t base,
                               int32_t *list);
/* A hit at flat value i: list its anchor, return where the scan resumes (the next anchor). */
static inline size_t yk_detect_over_hit(size_t i, size_t nc, int32_t base, int32_t *slot) {
  const size_t a = i / nc;
  *slot = base + (int32_t)a;
  return (a + 1) * nc;
}
/* The reference's tail (x[i..n) into lane 0) and lane fold, shared by every yk_minmax_f32 variant. */
void yk_minmax_f32_fold(const float *x, size_t i, size_t n, float l[8], float h[8], float *lo, float *hi);
/* Same-shape contiguous binary op on n elements (the hot case of yk_binary_i8; the AVX2 broadcasting
 * form sends contiguous rows through the AVX2 one). */
void yk_binary_i8_flat__scalar(int kind, const int8_t *a, yk_qparams qa, const int8_t *b,
                               yk_qparams qb, int8_t *y, yk_qparams qy, size_t n);
#if YK_ARCH_X86_64
void yk_binary_i8_flat__avx2(int kind, const int8_t *a, yk_qparams qa, const int8_t *b,
                             yk_qparams qb, int8_t *y, yk_qparams qy, size_t n);
#endif
/* The int8 softmax as its float chain through isa's dequantize / softmax / quantize kernels (all
 * bit-exact with their scalar references), as many whole rows at a time as a stack buffer holds.
 * The reference (yk_softmax_i8__scalar) is this chain on scalar kernels; CPUs without the AVX-512
 * variant run it on their own (softmax/softmax_i8_chain.c). */
void yk_softmax_i8_chain(const yk_isa *isa, const int8_t *x, int8_t *y, size_t rows, size_t len,
                         const yk_softmax_i8_params *p);

/* Exp/sigmoid/SiLU/softmax use the exp of kernels/unary/exp_f32_inline.h (not libm) so their SIMD
 * variants are bit-exact; each file documents its summation order. Scalar float functions shared by
 * yk_unary_f32 and the LUT builders (so a LUT reproduces the float op exactly). kind: yk_unary_kind;
 * an unknown kind asserts (NaN without assertions). */
float yk_unary_f32_1(int kind, float alpha, float x);

/* A table of the variants of the lists included after it, for tests and benchmarks: with a
 * `const yk_isa *isa` in scope,
 *   const yk_variant v[] = {
 *   #define YK_VARIANT YK_VARIANT_ROW
 *   #include "variants/unary.inc"
 *   #undef YK_VARIANT
 *   };
 * lists every variant built for this architecture, `runs` saying whether isa can run it. */
typedef struct yk_variant {
  const char *entry, *name;
  void (*fn)(void); /* cast back to the entry's YK_FN_ pointer type */
  int runs;
} yk_variant;
#define YK_VARIANT_ROW(e, s, on, cond) on({#e, #s, (void (*)(void))yk_##e##__##s, (cond)},)

#endif /* YOLORT_YK_VARIANTS_H */
