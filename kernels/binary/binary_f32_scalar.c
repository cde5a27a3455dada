/* binary_f32_scalar.c — float Add/Sub/Mul/Div with broadcasting; rows written so the compiler
 * can vectorise the contiguous and scalar-broadcast cases (no reassociation, so exact). */
#include "broadcast_rows.h"
#include "yk_inline.h"
#include "yk_variants.h"

#define ROW_LOOP(OP)                                                              \
  do {                                                                            \
    if (as == 1 && bs == 1)                                                       \
      for (int64_t i = 0; i < n; i++) y[i] = a[i] OP b[i];                        \
    else if (as == 1 && bs == 0)                                                  \
      for (int64_t i = 0; i < n; i++) y[i] = a[i] OP b[0];                        \
    else if (as == 0 && bs == 1)                                                  \
      for (int64_t i = 0; i < n; i++) y[i] = a[0] OP b[i];                        \
    else                                                                          \
      for (int64_t i = 0; i < n; i++) y[i] = a[i * as] OP b[i * bs];              \
  } while (0)

static void row_f32(int kind, const float *a, int64_t as, const float *b, int64_t bs, float *y,
                    int64_t n) {
  switch (kind) {
    case YK_BIN_SUB: ROW_LOOP(-); break;
    case YK_BIN_MUL: ROW_LOOP(*); break;
    case YK_BIN_DIV: ROW_LOOP(/); break;
    default: ROW_LOOP(+); break;
  }
}

void yk_binary_f32__scalar(int kind, const float *a, const yk_shape *sa, const float *b,
                           const yk_shape *sb, float *y, const yk_shape *sy) {
  yk_bcast bc;
  yk_bcast_init(&bc, sa, sb, sy);
  const int last = bc.rank - 1;
  for (yk_bcast_rows w = yk_bcast_rows_begin(&bc); w.r < w.rows; yk_bcast_rows_next(&bc, &w))
    row_f32(kind, a + w.oa, bc.sa[last], b + w.ob, bc.sb[last], y + w.r * w.n, w.n);
}
