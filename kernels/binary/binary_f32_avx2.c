/* binary_f32_avx2.c — float Add/Sub/Mul/Div with broadcasting, the reference's rows
 * (broadcast_rows.h) with the contiguous and scalar-broadcast cases 8 floats a step. Each element
 * is one IEEE operation on the same two operands as in the reference (no reassociation, no FMA),
 * so the result is bit-exact. The reference's loops are left to the compiler, which does not
 * vectorise them at -O2 without the target (gcc 12's very-cheap model: no epilogue loops); the
 * qat-style YOLO11n's float attention scale (Mul by a scalar, 2 x 400 x 400) ran on them. */
#include <immintrin.h>

#include "broadcast_rows.h"
#include "yk_variants.h"

static inline __m256 op8(int kind, __m256 a, __m256 b) {
  switch (kind) {
    case YK_BIN_SUB: return _mm256_sub_ps(a, b);
    case YK_BIN_MUL: return _mm256_mul_ps(a, b);
    case YK_BIN_DIV: return _mm256_div_ps(a, b);
    default: return _mm256_add_ps(a, b);
  }
}

static inline float op1(int kind, float a, float b) {
  switch (kind) {
    case YK_BIN_SUB: return a - b;
    case YK_BIN_MUL: return a * b;
    case YK_BIN_DIV: return a / b;
    default: return a + b;
  }
}

/* One row: a and b step as (1, 1), (1, 0), (0, 1) or any other strides (the element loop). */
static inline __attribute__((always_inline)) void row(const int kind, const float *a, int64_t as, const float *b,
                                                      int64_t bs, float *y, int64_t n) {
  int64_t i = 0;
  if (as == 1 && bs == 1) {
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, op8(kind, _mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  } else if (as == 1 && bs == 0) {
    const __m256 vb = _mm256_set1_ps(b[0]);
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, op8(kind, _mm256_loadu_ps(a + i), vb));
  } else if (as == 0 && bs == 1) {
    const __m256 va = _mm256_set1_ps(a[0]);
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, op8(kind, va, _mm256_loadu_ps(b + i)));
  }
  for (; i < n; i++) y[i] = op1(kind, a[i * as], b[i * bs]);
}

/* the kind fixed per instantiation, so the row loops have no switch inside */
static void row_f32(int kind, const float *a, int64_t as, const float *b, int64_t bs, float *y, int64_t n) {
  switch (kind) {
    case YK_BIN_SUB: row(YK_BIN_SUB, a, as, b, bs, y, n); break;
    case YK_BIN_MUL: row(YK_BIN_MUL, a, as, b, bs, y, n); break;
    case YK_BIN_DIV: row(YK_BIN_DIV, a, as, b, bs, y, n); break;
    default: row(YK_BIN_ADD, a, as, b, bs, y, n); break;
  }
}

void yk_binary_f32__avx2(int kind, const float *a, const yk_shape *sa, const float *b, const yk_shape *sb, float *y,
                         const yk_shape *sy) {
  yk_bcast bc;
  yk_bcast_init(&bc, sa, sb, sy);
  const int last = bc.rank - 1;
  for (yk_bcast_rows w = yk_bcast_rows_begin(&bc); w.r < w.rows; yk_bcast_rows_next(&bc, &w))
    row_f32(kind, a + w.oa, bc.sa[last], b + w.ob, bc.sb[last], y + w.r * w.n, w.n);
}
