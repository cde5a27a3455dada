/* binary_i8_scalar.c — reference QDQ Add/Sub/Mul/Div: dequantize both inputs to float, apply
 * the op in float, quantize with true division by the output scale (as onnxruntime's
 * DequantizeLinear -> Add -> QuantizeLinear chain does). */
#include "broadcast_rows.h"
#include "yk_inline.h"
#include "yk_variants.h"

static void row_i8(int kind, const int8_t *a, int64_t as, yk_qparams qa, const int8_t *b,
                   int64_t bs, yk_qparams qb, int8_t *y, yk_qparams qy, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float fa = yk_dequantize1(a[i * as], qa.scale, qa.zero_point);
    float fb = yk_dequantize1(b[i * bs], qb.scale, qb.zero_point);
    y[i] = yk_quantize1(yk_binop_f32(kind, fa, fb), qy.scale, qy.zero_point);
  }
}

void yk_binary_i8_flat__scalar(int kind, const int8_t *a, yk_qparams qa, const int8_t *b,
                               yk_qparams qb, int8_t *y, yk_qparams qy, size_t n) {
  row_i8(kind, a, 1, qa, b, 1, qb, y, qy, (int64_t)n);
}

void yk_binary_i8_pixels__scalar(int kind, const int8_t *a, size_t as, yk_qparams qa, const int8_t *b, size_t bs,
                                 yk_qparams qb, int8_t *y, size_t ys, yk_qparams qy, size_t pixels, size_t c) {
  for (size_t p = 0; p < pixels; p++) row_i8(kind, a + p * as, 1, qa, b + p * bs, 1, qb, y + p * ys, qy, (int64_t)c);
}

void yk_binary_i8__scalar(int kind, const int8_t *a, const yk_shape *sa, yk_qparams qa,
                          const int8_t *b, const yk_shape *sb, yk_qparams qb, int8_t *y,
                          const yk_shape *sy, yk_qparams qy) {
  yk_bcast bc;
  yk_bcast_init(&bc, sa, sb, sy);
  const int last = bc.rank - 1;
  for (yk_bcast_rows w = yk_bcast_rows_begin(&bc); w.r < w.rows; yk_bcast_rows_next(&bc, &w))
    row_i8(kind, a + w.oa, bc.sa[last], qa, b + w.ob, bc.sb[last], qb, y + w.r * w.n, qy, w.n);
}
