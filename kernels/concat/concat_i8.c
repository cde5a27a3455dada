/* concat_i8.c — Concat with per-input requantization to the output's params.
 * Inputs whose params equal the output's are copied; others go through a requant variant,
 * so each concat_i8 variant is bit-exact exactly when its requant variant is. */
#include <string.h>

#include "yk_variants.h"

typedef void (*yk_requant_fn)(const int8_t *, yk_qparams, int8_t *, yk_qparams, size_t);

static void concat_i8_with(yk_requant_fn requant, const int8_t *const *x, const yk_qparams *qx,
                           const size_t *inner, int n, size_t outer, int8_t *y, yk_qparams qy) {
  for (size_t o = 0; o < outer; o++) {
    for (int i = 0; i < n; i++) {
      const size_t run = inner[i];
      if (run == 0) continue;
      if (!x[i]) { /* already in place (a view of y written by its producer) */
        y += run;
        continue;
      }
      const int8_t *src = x[i] + o * run;
      if (qx[i].scale == qy.scale && qx[i].zero_point == qy.zero_point)
        memcpy(y, src, run);
      else
        requant(src, qx[i], y, qy, run);
      y += run;
    }
  }
}

void yk_concat_i8__scalar(const int8_t *const *x, const yk_qparams *qx, const size_t *inner,
                          int n, size_t outer, int8_t *y, yk_qparams qy) {
  concat_i8_with(yk_requant_i8__scalar, x, qx, inner, n, outer, y, qy);
}

#if YK_ARCH_X86_64
void yk_concat_i8__avx2(const int8_t *const *x, const yk_qparams *qx, const size_t *inner,
                        int n, size_t outer, int8_t *y, yk_qparams qy) {
  concat_i8_with(yk_requant_i8__avx2, x, qx, inner, n, outer, y, qy);
}
#endif

#if YK_ARCH_AARCH64
void yk_concat_i8__neon(const int8_t *const *x, const yk_qparams *qx, const size_t *inner,
                        int n, size_t outer, int8_t *y, yk_qparams qy) {
  concat_i8_with(yk_requant_i8__neon, x, qx, inner, n, outer, y, qy);
}
#endif

void yk_concat_i8(const yk_isa *isa, const int8_t *const *x, const yk_qparams *qx,
                  const size_t *inner, int n, size_t outer, int8_t *y, yk_qparams qy) {
  YK_PICK(isa, concat_i8)(x, qx, inner, n, outer, y, qy);
}
