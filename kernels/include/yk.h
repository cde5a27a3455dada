/*
 * yk.h — yolort kernels: the non-convolution operators, plus our own int8 kernels.
 *
 * Operators (what the runtime calls) vs microkernels (one loop, one ISA), as in XNNPACK:
 * every entry below has a portable scalar reference `<name>__scalar`; SIMD variants are named
 * `<name>__avx2`, `<name>__neon`, ... live in their own files, and are tested bit-exact against
 * the scalar one. The unsuffixed entry point picks the best variant for the yk_isa it is given
 * (filled once by yk_isa_detect at session creation; no global state).
 *
 * All shapes are PHYSICAL (after the converter's NHWC layout), row-major, rank <= 6.
 * No kernel allocates. Int8 arithmetic follows ONNX QDQ: q = sat(round_half_even(x/s) + zp).
 */
#ifndef YOLORT_YK_H
#define YOLORT_YK_H

#include <stddef.h>
#include <stdint.h>

#define YK_MAX_RANK 6

/* CPU features and the kernel variants chosen for them; defined at the end of this file (its
 * yk_kernels table needs every entry's signature). */
typedef struct yk_isa yk_isa;

/* ON columns of the variant lists (include/variants/<family>.inc): YK_ON_<arch>(x) is x on that
 * architecture and nothing elsewhere, so one list names every variant of every architecture. */
#define YK_ON_ANY(...) __VA_ARGS__
#if YK_ARCH_X86_64
#define YK_ON_X86_64(...) __VA_ARGS__
#else
#define YK_ON_X86_64(...)
#endif
#if YK_ARCH_AARCH64
#define YK_ON_AARCH64(...) __VA_ARGS__
#else
#define YK_ON_AARCH64(...)
#endif
#if YK_ARCH_AARCH64 || YK_ARCH_ARMV7
#define YK_ON_ARM(...) __VA_ARGS__
#else
#define YK_ON_ARM(...)
#endif

/* Fill caps from the CPU and the OS (CPUID + XGETBV on x86-64, getauxval hwcaps on Linux ARM; no
 * cpuinfo needed). Every CPU feature a kernel depends on is a field here: kernels never query the
 * CPU themselves. Also picks every entry's variant once (yk_isa_select). */
void yk_isa_detect(yk_isa *isa);
/* Choose isa->k, each entry's best variant for the flags (the variant lists' order), once: call
 * it again after changing a flag (tests and benchmarks that hide an ISA). */
void yk_isa_select(yk_isa *isa);
/* Hide the ISAs above name, a level of this architecture: x86-64 "avx2" < "avxvnni" < "avx512"
 * (AVX-512 without VNNI) < "avx512vnni" < "amx"; ARM "neon" < "neondot"; "scalar" anywhere (the
 * references only). Flags are only cleared, never set, and the variants re-selected. 0, or -1
 * for a name that is no level here (isa unchanged). */
int yk_isa_cap(yk_isa *isa, const char *name);

/* The kernels' own operator kinds. The runtime maps its .yrt enums onto these (it keeps the
 * values equal and checks that at compile time, runtime/src/kernel_kinds.h); the kernels never
 * see the file format. */
enum yk_unary_kind {
  YK_UNARY_NONE = 0, /* copy */
  YK_UNARY_RELU = 1,
  YK_UNARY_SIGMOID = 2,
  YK_UNARY_SILU = 3,
  YK_UNARY_LEAKY_RELU = 4, /* alpha: the negative slope */
  YK_UNARY_TANH = 5,
  YK_UNARY_EXP = 6,
  YK_UNARY_IDENTITY = 7, /* copy */
  YK_UNARY_COS = 8,      /* libm, no SIMD variant */
  YK_UNARY_SIN = 9,      /* libm, no SIMD variant */
  YK_UNARY_COUNT
};
enum yk_binary_kind { YK_BIN_ADD = 0, YK_BIN_SUB = 1, YK_BIN_MUL = 2, YK_BIN_DIV = 3, YK_BIN_COUNT };

/* 1 when kind is a yk_unary_kind the kernels implement. */
static inline int yk_unary_kind_valid(int kind) { return kind >= 0 && kind < YK_UNARY_COUNT; }

typedef struct yk_shape {
  int rank;
  int64_t d[YK_MAX_RANK];
} yk_shape;

typedef struct yk_qparams {
  float scale;
  int32_t zero_point;
} yk_qparams;

/* ---------------- float */

/* y = a (op) b with numpy broadcasting; a, b, y have the same rank, dims equal or 1. */
void yk_binary_f32(const yk_isa *isa, int kind /* yk_binary_kind */, const float *a,
                   const yk_shape *sa, const float *b, const yk_shape *sb, float *y,
                   const yk_shape *sy);
/* kind: yk_unary_kind; alpha for leaky relu. In place allowed (x == y). Returns 0, or -1 (y
 * untouched) for a kind that is not a yk_unary_kind. */
int yk_unary_f32(const yk_isa *isa, int kind, float alpha, const float *x, float *y, size_t n);
/* softmax over the middle axis of [outer][axis_len][inner]. */
void yk_softmax_f32(const yk_isa *isa, const float *x, float *y, size_t outer, size_t axis_len,
                    size_t inner);
/* y[b] = a[b] (M x K) * b[b] (K x N); batch strides in elements (0 = broadcast). */
void yk_matmul_f32(const yk_isa *isa, const float *a, const float *b, float *y, size_t batch,
                   size_t a_batch_stride, size_t b_batch_stride, size_t M, size_t K, size_t N);

/* ---------------- layout / data movement, any element size (1, 4 bytes) */

/* Strided slice: out index i maps to in index start + i*step per axis (steps may be < 0). */
void yk_slice(const void *x, const yk_shape *sx, void *y, const yk_shape *sy,
              const int64_t *starts, const int64_t *steps, size_t elem_size);
/* y = transpose(x, perm): y dim k = x dim perm[k]. isa (NULL: portable code) picks the byte
 * and 4-byte tiles' variants; every variant moves the same bytes. */
void yk_transpose(const yk_isa *isa, const void *x, const yk_shape *sx, void *y, const int *perm,
                  size_t elem_size);
/* Gather along axis with int32 indices (negative = from end, already validated). */
void yk_gather(const void *x, const yk_shape *sx, int axis, const int32_t *idx, size_t n_idx,
               void *y, size_t elem_size);
/* Concat n inputs along an axis viewed as [outer][inner_i]: input i contributes inner[i]
 * contiguous elements per outer step. */
void yk_concat(const void *const *x, const size_t *inner, int n, size_t outer, void *y,
               size_t elem_size);

/* NHWC max pooling. */
typedef struct yk_pool_params {
  int kh, kw, sh, sw, pad_t, pad_l, pad_b, pad_r, dh, dw;
} yk_pool_params;
void yk_maxpool_nhwc_f32(const yk_isa *isa, const float *x, int n, int h, int w, int c,
                         float *y, int oh, int ow, const yk_pool_params *p);
void yk_maxpool_nhwc_i8(const yk_isa *isa, const int8_t *x, int n, int h, int w, int c,
                        int8_t *y, int oh, int ow, const yk_pool_params *p);
/* NHWC nearest resize, asymmetric coordinates, floor: in = min(floor(out / scale), in - 1). */
void yk_resize_nearest_nhwc(const void *x, int n, int h, int w, int c, void *y, int oh, int ow,
                            float scale_h, float scale_w, size_t elem_size);
/* The same for one image, output rows [oy0, oy1) only (y: the whole output's base), output pixels
 * ys elements apart (ys >= c; > c: a channel slice of a wider tensor). Int8 with lut non-NULL:
 * every value through the 256-entry table (yk_lut_i8 with isa; a requantization folded in). */
void yk_resize_nearest_nhwc_rows(const yk_isa *isa, const void *x, int h, int w, int c, void *y, size_t ys, int oh,
                                 int ow, float scale_h, float scale_w, size_t elem_size, const int8_t *lut, int oy0,
                                 int oy1);

/* ---------------- int8 */

/* *lo / *hi = min / max of x[0..n) (NaNs skipped; n == 0 -> 0, 0). */
void yk_minmax_f32(const yk_isa *isa, const float *x, size_t n, float *lo, float *hi);
void yk_quantize_f32_i8(const yk_isa *isa, const float *x, int8_t *y, size_t n, float scale,
                        int32_t zp);
void yk_dequantize_i8_f32(const yk_isa *isa, const int8_t *x, float *y, size_t n, float scale,
                          int32_t zp);
/* Softmax of int8 rows, ONNX DQ -> Softmax (last axis) -> Q with onnxruntime's QLinearSoftmax
 * factor: for each of `rows` rows of len (<= YK_SOFTMAX_I8_MAX_LEN) int8 values, exactly the
 * float chain yk_dequantize_i8_f32 (x_scale, x_zp), yk_softmax_f32 over the row, times k when
 * k != 1, yk_quantize_f32_i8 (y_scale, y_zp), without its passes over a float tensor: the SIMD
 * variant takes the row's max from the int8 values (dequantize is monotone), computes exp and the
 * row sum in one pass over a stack row, and quantizes from it. In place allowed (x == y). */
#define YK_SOFTMAX_I8_MAX_LEN 4096
typedef struct yk_softmax_i8_params {
  float x_scale, k, y_scale;
  int32_t x_zp, y_zp;
  /* NULL, or a table the codes go through first: the row is lut[(uint8_t)(q + 128)] (yk_lut_i8),
   * whose codes x_scale / x_zp dequantize (the attention's Mul by 1 / sqrt(d) before it) */
  const int8_t *lut;
} yk_softmax_i8_params;
void yk_softmax_i8(const yk_isa *isa, const int8_t *x, int8_t *y, size_t rows, size_t len,
                   const yk_softmax_i8_params *p);
/* y[i] = lut[(uint8_t)(x[i] + 128)]; in place allowed. */
void yk_lut_i8(const yk_isa *isa, const int8_t *x, int8_t *y, size_t n, const int8_t lut[256]);
/* The same over pixels of c values, xs / ys values apart (a view's channel slice; in place when
 * x == y and xs == ys): the table is set up once for all of them. */
void yk_lut_i8_pixels(const yk_isa *isa, const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c,
                      const int8_t lut[256]);
/* y[i] = lut[(uint8_t)(x[i] + 128)], a float table (not in place). */
void yk_lut_i8_f32(const yk_isa *isa, const int8_t *x, float *y, size_t n, const float lut[256]);
/* Requantize: y = sat(round_half_even((x - zx) * (sx / sy)) + zy). */
void yk_requant_i8(const yk_isa *isa, const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy,
                   size_t n);
/* Concat with per-input requantization to qy (copy where params are equal). A NULL x[i] is a
 * slot already in place in y (its producer wrote it there): skipped. */
void yk_concat_i8(const yk_isa *isa, const int8_t *const *x, const yk_qparams *qx,
                  const size_t *inner, int n, size_t outer, int8_t *y, yk_qparams qy);
/* y = sat(round(((a - za) * sa (op) (b - zb) * sb) / sy) + zy), op a yk_binary_kind,
 * broadcasting as yk_binary_f32. */
void yk_binary_i8(const yk_isa *isa, int kind, const int8_t *a, const yk_shape *sa,
                  yk_qparams qa, const int8_t *b, const yk_shape *sb, yk_qparams qb, int8_t *y,
                  const yk_shape *sy, yk_qparams qy);
/* The fixed-point int8 Add: s = a ma + b mb + bias, y = sat8(s >> shift) (arithmetic shift), one
 * less when s's low shift bits are 0 (an exact half) and the result minus zy is odd (half to
 * even, as the float chain); ma = round(sa / sy 2^shift), mb likewise, bias = 2^(shift-1) - za ma
 * - zb mb + zy 2^shift: one integer multiply-add per pair instead of the float chain's dequantize,
 * add and true division. It differs from yk_binary_i8's ADD by one step where (fa + fb) / sy falls
 * within about 2^-14 steps of a half (the multipliers are rounded). */
typedef struct yk_add_fixed {
  int16_t ma, mb;
  int32_t bias, zy;
  int shift;
} yk_add_fixed;
/* 0 with *p set, or -1 when a scale ratio sa / sy or sb / sy is too large for int16 (> 16383). */
int yk_add_fixed_params(yk_qparams qa, yk_qparams qb, yk_qparams qy, yk_add_fixed *p);
/* `pixels` pixels of c channels at pixel strides as, bs, ys (dense: strides c). */
void yk_add_i8_fixed_pixels(const yk_isa *isa, const int8_t *a, size_t as, const int8_t *b, size_t bs, int8_t *y,
                            size_t ys, size_t pixels, size_t c, const yk_add_fixed *p);
/* yk_binary_i8 on same-shape NHWC views: `pixels` pixels of c channels, pixel p of a at
 * a + p * as (likewise b, y): the channel ranges of wider tensors (Concat buffers, Split halves)
 * read and written in place. Same values as yk_binary_i8 on dense copies. */
void yk_binary_i8_pixels(const yk_isa *isa, int kind, const int8_t *a, size_t as, yk_qparams qa, const int8_t *b,
                         size_t bs, yk_qparams qb, int8_t *y, size_t ys, yk_qparams qy, size_t pixels, size_t c);
/* Build the 256-entry table of an int8 -> int8 function given in float:
 * lut[u] = quantize(f(dequantize(u - 128, qx)), qy). kind: yk_unary_kind; returns 0, or -1
 * (lut untouched) for an unknown kind. */
int yk_lut_build_unary(int kind, float alpha, yk_qparams qx, yk_qparams qy, int8_t lut[256]);
/* A binary op with a float scalar operand c as a table: lut[u] = quantize(x op c, qy), or c op x
 * when c_first, x = dequantize(u - 128, qx): the float DQ -> op -> Q chain (yk_dequantize_i8_f32,
 * yk_binary_f32, yk_quantize_f32) bit for bit. kind: yk_binary_kind. */
void yk_lut_build_binary_scalar(int kind, float c, int c_first, yk_qparams qx, yk_qparams qy,
                                int8_t lut[256]);
/* SiLU as QDQ defines it: s = Q_s(sigmoid(DQ_x(x))); y = Q_y(DQ_x(x) * DQ_s(s)). */
/* lut[u] = x * sigmoid(x), x = dequantize(u - 128, qx): the float DQ -> Sigmoid -> Mul chain
 * (yk_dequantize_i8_f32, yk_unary_f32 SIGMOID, yk_binary_f32 MUL) bit for bit. */
void yk_lut_build_silu_f32(yk_qparams qx, float lut[256]);
void yk_lut_build_silu_qdq(yk_qparams qx, yk_qparams qs, yk_qparams qy, int8_t lut[256]);
/* yk_requant_i8 (the Concat's requantization of an input) as a table: lut[u] = requant(u - 128). */
void yk_lut_build_requant(yk_qparams qx, yk_qparams qy, int8_t lut[256]);

/* Int8 MatMul, ONNX QLinearMatMul: y[b][m][n] = requant(sum_k (a[b][m][k] - a_zp) *
 * (b[b][k][n] - b_zp)), requantized as the int8 conv's output stage (yk_qconv_requant in
 * yk_qconv.h: (float)acc * scale clamped to the int8 range, rounded half to even, + y_zp) with
 * scale = yk_qmatmul_scale(s_a, s_b, s_y). a [M][K] dense, b [K][N] with row stride ldb, y [M][N]
 * with row stride ldy, per batch; batch strides in elements (0 = broadcast for a and b). Dense
 * operands are ldb = ldy = N, y_batch = M N; row strides > N let b and y be the heads of a
 * token-major (NHWC) tensor: b = [K tokens][heads][N] at head offset, ldb = heads N. Zero points are int8 values and
 * K <= YK_QMATMUL_MAX_K, so the exact int32 accumulator cannot overflow (|acc| <= 255^2 K).
 * No caller scratch: the SIMD variants interleave b's rows in registers or in at most 32 KiB of
 * their own stack. Rows are independent, so any split of M over threads gives the same bytes. */
#define YK_QMATMUL_MAX_K 32768
/* Rows per block of the SIMD variants (each call starts its blocks afresh): ranges of rows that
 * are multiples of it waste no work. */
#define YK_QMATMUL_ROWS 6
typedef struct yk_qmatmul_params {
  int32_t a_zp, b_zp, y_zp;
  float scale;
} yk_qmatmul_params;
/* s_a * s_b / s_y in onnxruntime's order (QLinearMatMul's multiplier), one float rounding each. */
static inline float yk_qmatmul_scale(float sa, float sb, float sy) { return sa * sb / sy; }
typedef struct yk_qmatmul_strides {
  size_t a_batch, b_batch, y_batch; /* batch strides, elements */
  size_t ldb, ldy;                  /* row strides of b and y, elements (>= N) */
} yk_qmatmul_strides;
void yk_qmatmul_i8(const yk_isa *isa, const int8_t *a, const int8_t *b, int8_t *y, size_t batch,
                   const yk_qmatmul_strides *st, size_t M, size_t K, size_t N, const yk_qmatmul_params *p);

/* Depthwise 3x3 int8 NHWC conv parameters (the kernel: yk_dwconv.h), per-channel scales, stride 1
 * or 2, then optional LUT. w: [3][3][C] int8, bias int32[C], requant scale[c] = sx * sw[c] / sy. */
typedef struct yk_dw_params {
  int n, h, w, c, oh, ow, stride, pad_t, pad_l;
  int32_t x_zp, y_zp;
  const float *requant_scale; /* [C] */
  const int8_t *lut;          /* NULL: none */
} yk_dw_params;

/* round-half-even float -> int helpers shared by kernels (exact for |x| < 2^22). */
static inline int32_t yk_round_half_even(float x) {
  /* 1.5 * 2^23 magic: the FPU rounds to nearest-even when adding. */
  const float magic = 12582912.0f;
  if (x >= 4194304.0f) return 4194304;
  if (x <= -4194304.0f) return -4194304;
  return (int32_t)((x + magic) - magic);
}
static inline int8_t yk_sat_i8(int32_t v) {
  return (int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
}

/* ---------------- variants chosen once (XNNPACK's configs/ in spirit)
 * Every entry point dispatched by ISA has a signature macro YK_FN_<entry>(name) and a variant list
 * include/variants/<family>.inc of YK_VARIANT(entry, isa suffix, ON column, condition on `isa`),
 * best first, the scalar reference last. The lists declare the variants (yk_variants.h), fill
 * yk_kernels (yk_isa_select), and give the tests and benchmarks every variant to run. */
struct yk_frame_job;
#define YK_FN_binary_f32(f) \
  void f(int kind, const float *a, const yk_shape *sa, const float *b, const yk_shape *sb, float *y, const yk_shape *sy)
#define YK_FN_binary_i8(f)                                                                                         \
  void f(int kind, const int8_t *a, const yk_shape *sa, yk_qparams qa, const int8_t *b, const yk_shape *sb, \
         yk_qparams qb, int8_t *y, const yk_shape *sy, yk_qparams qy)
#define YK_FN_binary_i8_pixels(f)                                                                                \
  void f(int kind, const int8_t *a, size_t as, yk_qparams qa, const int8_t *b, size_t bs, yk_qparams qb, int8_t *y, \
         size_t ys, yk_qparams qy, size_t pixels, size_t c)
#define YK_FN_add_i8_fixed_pixels(f)                                                                     \
  void f(const int8_t *a, size_t as, const int8_t *b, size_t bs, int8_t *y, size_t ys, size_t pixels, size_t c, \
         const yk_add_fixed *p)
#define YK_FN_concat_i8(f)                                                                                      \
  void f(const int8_t *const *x, const yk_qparams *qx, const size_t *inner, int n, size_t outer, int8_t *y, \
         yk_qparams qy)
#define YK_FN_detect_over_i8(f) size_t f(const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list)
#define YK_FN_detect_over_f32(f) size_t f(const float *x, size_t n, int nc, float t, int32_t base, int32_t *list)
#define YK_FN_detect_cls_i8(f) void f(const int8_t *q, size_t n, int nc, const float t[256], float *y, size_t ys)
#define YK_FN_detect_dfl_i8(f) \
  void f(const int8_t *q, size_t n, int r, const float t[256], const float *proj, float *d)
#define YK_FN_frame_rows(f) void f(const struct yk_frame_job *j, int r0, int r1)
#define YK_FN_lut_i8(f) void f(const int8_t *x, int8_t *y, size_t n, const int8_t lut[256])
#define YK_FN_lut_i8_pixels(f) \
  void f(const int8_t *x, size_t xs, int8_t *y, size_t ys, size_t pixels, size_t c, const int8_t lut[256])
#define YK_FN_lut_i8_f32(f) void f(const int8_t *x, float *y, size_t n, const float lut[256])
#define YK_FN_matmul_f32(f)                                                                                    \
  void f(const float *a, const float *b, float *y, size_t batch, size_t a_batch_stride, size_t b_batch_stride, \
         size_t M, size_t K, size_t N)
#define YK_FN_qmatmul_i8(f)                                                                                    \
  void f(const int8_t *a, const int8_t *b, int8_t *y, size_t batch, const yk_qmatmul_strides *st, size_t M, \
         size_t K, size_t N, const yk_qmatmul_params *p)
#define YK_FN_transpose_i8_tile(f) void f(const uint8_t *x, int64_t xs, uint8_t *y, int64_t ys, int64_t m, int64_t n)
/* the same on 4-byte elements (floats moved as bits) */
#define YK_FN_transpose_f32_tile(f) \
  void f(const uint32_t *x, int64_t xs, uint32_t *y, int64_t ys, int64_t m, int64_t n)
#define YK_FN_maxpool_nhwc_i8(f) \
  void f(const int8_t *x, int n, int h, int w, int c, int8_t *y, int oh, int ow, const yk_pool_params *p)
#define YK_FN_maxpool_nhwc_f32(f) \
  void f(const float *x, int n, int h, int w, int c, float *y, int oh, int ow, const yk_pool_params *p)
#define YK_FN_minmax_f32(f) void f(const float *x, size_t n, float *lo, float *hi)
#define YK_FN_quantize_f32_i8(f) void f(const float *x, int8_t *y, size_t n, float scale, int32_t zp)
#define YK_FN_dequantize_i8_f32(f) void f(const int8_t *x, float *y, size_t n, float scale, int32_t zp)
#define YK_FN_requant_i8(f) void f(const int8_t *x, yk_qparams qx, int8_t *y, yk_qparams qy, size_t n)
#define YK_FN_softmax_f32(f) void f(const float *x, float *y, size_t outer, size_t axis_len, size_t inner)
#define YK_FN_softmax_i8(f) \
  void f(const int8_t *x, int8_t *y, size_t rows, size_t len, const yk_softmax_i8_params *p)
#define YK_FN_unary_f32(f) void f(int kind, float alpha, const float *x, float *y, size_t n)

/* Every dispatched entry's lists, in one place (the families' folders name them). */
#define YK_VARIANT_LISTS "variants/all.inc"

/* YK_IF_SCALAR_<suffix>(x): x for the scalar reference only (a list's last line names the entry once). */
#define YK_IF_SCALAR_scalar(...) __VA_ARGS__
#define YK_IF_SCALAR_avx2(...)
#define YK_IF_SCALAR_avx512(...)
#define YK_IF_SCALAR_avx512vnni(...)
#define YK_IF_SCALAR_avx512vbmi(...)
#define YK_IF_SCALAR_avxvnni(...)
#define YK_IF_SCALAR_neon(...)
#define YK_IF_SCALAR_neondot(...)

/* One function pointer per entry, the variant yk_isa_select chose. */
typedef struct yk_kernels {
#define YK_VARIANT(e, s, on, cond) YK_IF_SCALAR_##s(YK_FN_##e((*e));)
#include YK_VARIANT_LISTS
#undef YK_VARIANT
} yk_kernels;

struct yk_isa {
  int avx2;        /* AVX2 + FMA */
  int avx512;      /* AVX-512 F/BW/VL */
  int avx512vnni;
  int avx512vbmi;  /* byte permutes (vpermi2b): the LUT of the AVX-512 VNNI conv kernels */
  int avxvnni;
  int amx;         /* AMX-TILE + AMX-INT8 and the OS grants this process the tile state */
  int neon;
  int neon_dot;    /* ARMv8.2 dot product */
  yk_kernels k;    /* yk_isa_select; all NULL (a zeroed yk_isa): the scalar references */
};

/* The variant of entry e for isa (NULL, or a zeroed one: the scalar reference); a dispatcher is this
 * one load, no if-chain. */
#define YK_PICK(isa, e) ((isa) && (isa)->k.e ? (isa)->k.e : yk_##e##__scalar)

#endif /* YOLORT_YK_H */
