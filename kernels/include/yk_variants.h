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

/* ---- int8 elementwise */
void yk_lut_i8__scalar(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]);
/* Pixels of c values xs / ys apart (yk_lut_i8_pixels); the flat forms are one pixel of n. */
void yk_lut_i8_pixels__scalar(const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                              const int8_t lut[256]);
/* The Detect decode's int8 class scores: y[c * ys + i] = t[q[i * nc + c] + 128], i < n, c < nc. */
void yk_detect_cls_i8__scalar(const int8_t *q, size_t n, int nc, const float t[256], float *y, size_t ys);
/* Its int8 DFL without the max pass: d[4i + k] for anchors i < n (q: [n][4][r], t the exp table). */
void yk_detect_dfl_i8__scalar(const int8_t *q, size_t n, int r, const float t[256], const float *proj, float *d);
/* Anchors with a class value over t (yk_detect_over_i8 / _f32); the _from forms are the reference's
 * scan from flat value i of total = n * nc, the step every variant ends with. */
size_t yk_detect_over_i8__scalar(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list);
size_t yk_detect_over_f32__scalar(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list);
size_t yk_detect_over_i8_from(const int8_t *q, size_t i, size_t total, size_t nc, int8_t t, int32_t base,
                              int32_t *list);
/* A hit at flat value i: list its anchor, return where the scan resumes (the next anchor). */
static inline size_t yk_detect_over_hit(size_t i, size_t nc, int32_t base, int32_t *slot) {
  const size_t a = i / nc;
  *slot = base + (int32_t)a;
  return (a + 1) * nc;
}
size_t yk_detect_over_f32_from(const float *x, size_t i, size_t total, size_t nc, float t, int32_t base,
                               int32_t *list);
void yk_lut_i8_f32__scalar(const int8_t *x, float *y, size_t n, const float lut[256]);
void yk_quantize_f32_i8__scalar(const float *x, int8_t *y, size_t n, float scale, int32_t zp);
void yk_minmax_f32__scalar(const float *x, size_t n, float *lo, float *hi);
/* The reference's tail (x[i..n) into lane 0) and lane fold, shared by every variant. */
void yk_minmax_f32_fold(const float *x, size_t i, size_t n, float l[8], float h[8], float *lo, float *hi);
void yk_dequantize_i8_f32__scalar(const int8_t *x, float *y, size_t n, float scale, int32_t zp);
void yk_requant_i8__scalar(const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy, size_t n);
void yk_concat_i8__scalar(const int8_t *const *x, const yk_qparams *qx, const size_t *inner,
                          int n, size_t outer, int8_t *y, yk_qparams qy);
/* Same-shape contiguous binary op on n elements (the hot case of yk_binary_i8). */
void yk_binary_i8_flat__scalar(int kind, const int8_t *a, yk_qparams qa, const int8_t *b,
                               yk_qparams qb, int8_t *y, yk_qparams qy, size_t n);
void yk_add_i8_fixed_pixels__scalar(const int8_t *a, size_t as, const int8_t *b, size_t bs, int8_t *y, size_t ys,
                                    size_t pixels, size_t c, const yk_add_fixed *p);
/* Same shape, pixels of c channels at pixel strides (yk_binary_i8_pixels). */
void yk_binary_i8_pixels__scalar(int kind, const int8_t *a, size_t as, yk_qparams qa, const int8_t *b, size_t bs,
                                 yk_qparams qb, int8_t *y, size_t ys, yk_qparams qy, size_t pixels, size_t c);
/* Full broadcasting form (same contract as yk_binary_i8). */
void yk_binary_i8__scalar(int kind, const int8_t *a, const yk_shape *sa, yk_qparams qa,
                          const int8_t *b, const yk_shape *sb, yk_qparams qb, int8_t *y,
                          const yk_shape *sy, yk_qparams qy);
void yk_maxpool_nhwc_i8__scalar(const int8_t *x, int n, int h, int w, int c, int8_t *y, int oh,
                                int ow, const yk_pool_params *p);
/* The int8 softmax as its float chain through isa's dequantize / softmax / quantize kernels (all
 * bit-exact with their scalar references), as many whole rows at a time as a stack buffer holds.
 * The reference (yk_softmax_i8__scalar) is this chain on scalar kernels; CPUs without the AVX-512
 * variant run it on their own. */
void yk_softmax_i8_chain(const yk_isa *isa, const int8_t *x, int8_t *y, size_t rows, size_t len,
                         const yk_softmax_i8_params *p);
void yk_softmax_i8__scalar(const int8_t *x, int8_t *y, size_t rows, size_t len,
                           const yk_softmax_i8_params *p);
/* One tile of a byte transpose: y[i * ys + j] = x[i + j * xs], i < m, j < n (yk_transpose's
 * 2-D inner case): 8 x 8 blocks in 64-bit words, then the edges. */
void yk_transpose_i8_tile__scalar(const uint8_t *x, int64_t xs, uint8_t *y, int64_t ys, int64_t m, int64_t n);
void yk_qmatmul_i8__scalar(const int8_t *a, const int8_t *b, int8_t *y, size_t batch,
                           const yk_qmatmul_strides *st, size_t M, size_t K, size_t N,
                           const yk_qmatmul_params *p);
void yk_dwconv3x3_i8__scalar(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                             const yk_dw_params *p);

/* ---- float. Exp/sigmoid/SiLU/softmax use the exp of kernels/unary/exp_f32_inline.h (not
 * libm) so their SIMD variants are bit-exact; each file documents its summation order. */
void yk_binary_f32__scalar(int kind, const float *a, const yk_shape *sa, const float *b,
                           const yk_shape *sb, float *y, const yk_shape *sy);
void yk_unary_f32__scalar(int kind, float alpha, const float *x, float *y, size_t n);
void yk_softmax_f32__scalar(const float *x, float *y, size_t outer, size_t axis_len,
                            size_t inner);
void yk_matmul_f32__scalar(const float *a, const float *b, float *y, size_t batch,
                           size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K,
                           size_t N);
void yk_maxpool_nhwc_f32__scalar(const float *x, int n, int h, int w, int c, float *y, int oh,
                                 int ow, const yk_pool_params *p);

/* Scalar float functions shared by yk_unary_f32 and the LUT builders (so a LUT reproduces the
 * float op exactly). kind: yk_unary_kind; an unknown kind asserts (NaN without assertions). */
float yk_unary_f32_1(int kind, float alpha, float x);

#if YK_ARCH_X86_64
void yk_lut_i8__avx2(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]);
void yk_lut_i8_pixels__avx2(const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                            const int8_t lut[256]);
void yk_lut_i8_f32__avx2(const int8_t *x, float *y, size_t n, const float lut[256]);
void yk_quantize_f32_i8__avx2(const float *x, int8_t *y, size_t n, float scale, int32_t zp);
void yk_minmax_f32__avx2(const float *x, size_t n, float *lo, float *hi);
void yk_dequantize_i8_f32__avx2(const int8_t *x, float *y, size_t n, float scale, int32_t zp);
void yk_requant_i8__avx2(const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy, size_t n);
void yk_concat_i8__avx2(const int8_t *const *x, const yk_qparams *qx, const size_t *inner,
                        int n, size_t outer, int8_t *y, yk_qparams qy);
/* AVX-512 BW + VBMI (and AVX2): 256-byte tables with vpermi2b (lut/lut_vbmi.h). */
void yk_lut_i8__avx512vbmi(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]);
void yk_lut_i8_pixels__avx512vbmi(const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                                  const int8_t lut[256]);
/* The concat's requantization as such a table. */
void yk_concat_i8__avx512vbmi(const int8_t *const *x, const yk_qparams *qx, const size_t *inner,
                              int n, size_t outer, int8_t *y, yk_qparams qy);
/* The Detect decode's int8 class scores (yk_detect_cls_i8__scalar) through four byte planes. */
void yk_detect_cls_i8__avx512vbmi(const int8_t *q, size_t n, int nc, const float t[256], float *y, size_t ys);
void yk_detect_dfl_i8__avx512vbmi(const int8_t *q, size_t n, int r, const float t[256], const float *proj, float *d);
size_t yk_detect_over_i8__avx2(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list);
size_t yk_detect_over_f32__avx2(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list);
size_t yk_detect_over_i8__avx512(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list);
size_t yk_detect_over_f32__avx512(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list);
void yk_binary_i8_flat__avx2(int kind, const int8_t *a, yk_qparams qa, const int8_t *b,
                             yk_qparams qb, int8_t *y, yk_qparams qy, size_t n);
void yk_add_i8_fixed_pixels__avx2(const int8_t *a, size_t as, const int8_t *b, size_t bs, int8_t *y, size_t ys,
                                  size_t pixels, size_t c, const yk_add_fixed *p);
void yk_add_i8_fixed_pixels__avx512(const int8_t *a, size_t as, const int8_t *b, size_t bs, int8_t *y, size_t ys,
                                    size_t pixels, size_t c, const yk_add_fixed *p);
void yk_binary_i8_pixels__avx2(int kind, const int8_t *a, size_t as, yk_qparams qa, const int8_t *b, size_t bs,
                               yk_qparams qb, int8_t *y, size_t ys, yk_qparams qy, size_t pixels, size_t c);
/* Broadcasting form: contiguous rows go through the AVX2 flat kernel, the rest stay scalar. */
void yk_binary_i8__avx2(int kind, const int8_t *a, const yk_shape *sa, yk_qparams qa,
                        const int8_t *b, const yk_shape *sb, yk_qparams qb, int8_t *y,
                        const yk_shape *sy, yk_qparams qy);
void yk_maxpool_nhwc_i8__avx2(const int8_t *x, int n, int h, int w, int c, int8_t *y, int oh,
                              int ow, const yk_pool_params *p);
void yk_dwconv3x3_i8__avx2(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                           const yk_dw_params *p);
/* 16 x 16 blocks through four rounds of 128-bit unpacks, then the edges */
void yk_transpose_i8_tile__avx2(const uint8_t *x, int64_t xs, uint8_t *y, int64_t ys, int64_t m, int64_t n);
void yk_qmatmul_i8__avx2(const int8_t *a, const int8_t *b, int8_t *y, size_t batch,
                         const yk_qmatmul_strides *st, size_t M, size_t K, size_t N,
                         const yk_qmatmul_params *p);
/* AVX-512 F/BW */
void yk_softmax_i8__avx512(const int8_t *x, int8_t *y, size_t rows, size_t len,
                           const yk_softmax_i8_params *p);
/* AVX-512 BW + VBMI: tables of a row's codes (rows spanning over 128 codes: the AVX-512 one) */
void yk_softmax_i8__avx512vbmi(const int8_t *x, int8_t *y, size_t rows, size_t len,
                               const yk_softmax_i8_params *p);
/* AVX-512 F/BW + VNNI */
void yk_qmatmul_i8__avx512vnni(const int8_t *a, const int8_t *b, int8_t *y, size_t batch,
                               const yk_qmatmul_strides *st, size_t M, size_t K, size_t N,
                               const yk_qmatmul_params *p);
/* float: AVX2 needs FMA too (yk_isa.avx2 means AVX2 + FMA); AVX-512 needs F. */
void yk_unary_f32__avx2(int kind, float alpha, const float *x, float *y, size_t n);
void yk_unary_f32__avx512(int kind, float alpha, const float *x, float *y, size_t n);
void yk_softmax_f32__avx2(const float *x, float *y, size_t outer, size_t axis_len, size_t inner);
void yk_softmax_f32__avx512(const float *x, float *y, size_t outer, size_t axis_len,
                            size_t inner);
void yk_matmul_f32__avx2(const float *a, const float *b, float *y, size_t batch,
                         size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K,
                         size_t N);
void yk_matmul_f32__avx512(const float *a, const float *b, float *y, size_t batch,
                           size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K,
                           size_t N);
#endif

#endif /* YOLORT_YK_VARIANTS_H */
