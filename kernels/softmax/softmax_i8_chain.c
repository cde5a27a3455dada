/* softmax_i8_chain.c — the int8 softmax as the float chain it stands for (yk_softmax_i8 in yk.h):
 * dequantize, softmax over the row, the QLinearSoftmax factor k, quantize, each on isa's kernels.
 * Its own file because two callers share it: the scalar reference (softmax_i8_scalar.c: the chain
 * on scalar kernels) and the dispatcher (softmax.c: the chain on the CPU's kernels where no fused
 * variant was picked). */
#include "yk_variants.h"

void yk_softmax_i8_chain(const yk_isa *isa, const int8_t *x, int8_t *y, size_t rows, size_t len,
                         const yk_softmax_i8_params *p) {
  if (len == 0 || len > YK_SOFTMAX_I8_MAX_LEN) return;
  float buf[YK_SOFTMAX_I8_MAX_LEN]; /* as many whole rows as fit */
  int8_t codes[YK_SOFTMAX_I8_MAX_LEN];
  const size_t per = YK_SOFTMAX_I8_MAX_LEN / len;
  for (size_t r = 0; r < rows; r += per) {
    const size_t nr = rows - r < per ? rows - r : per, n = nr * len;
    const int8_t *q = x + r * len;
    if (p->lut) { /* the LUT node before it */
      yk_lut_i8(isa, q, codes, n, p->lut);
      q = codes;
    }
    yk_dequantize_i8_f32(isa, q, buf, n, p->x_scale, p->x_zp);
    /* the float variant isa picked, as yk_softmax_f32 runs it (softmax.c calls this chain) */
    YK_PICK(isa, softmax_f32)(buf, buf, nr, len, 1);
    if (p->k != 1.0f)
      for (size_t j = 0; j < n; j++) buf[j] *= p->k;
    yk_quantize_f32_i8(isa, buf, y + r * len, n, p->y_scale, p->y_zp);
  }
}
