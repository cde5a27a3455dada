/* dwconv.c — variant choice (once, into d->variant), weight packing and dispatch of yk_dwconv
 * (yk_dwconv.h; the variants: include/variants/dwconv.inc). */
#include <string.h>

#include "yk_dwconv.h"

static int zp_i8(int32_t zp) { return zp >= -128 && zp <= 127; }

int yk_dwconv_set_variant(yk_dwconv *d, int variant) {
  int built = 0;
#define YK_DWCONV_VARIANT(E, v, s, on, blk, cond) \
  on(if (variant == v) {                          \
    d->cblk = blk;                                \
    built = 1;                                    \
  })
#include "variants/dwconv.inc"
#undef YK_DWCONV_VARIANT
  if (!built) return -1;
  d->variant = variant;
  d->packed_bytes = 0;
  if (d->cblk) {
    const size_t blocks = (size_t)(d->p.c + d->cblk - 1) / (size_t)d->cblk;
    d->packed_bytes = blocks * YK_DWCONV_BLOCK_I32((size_t)d->cblk) * sizeof(int32_t);
  }
  return 0;
}

int yk_dwconv_init(yk_dwconv *d, const yk_isa *isa) {
  const yk_dw_params *p = &d->p;
  d->variant = YK_DWCONV_SCALAR;
  d->cblk = 0;
  d->packed_bytes = 0;
  d->packed = NULL;
  if (p->n < 1 || p->h < 1 || p->w < 1 || p->c < 1 || p->oh < 1 || p->ow < 1 ||
      (p->stride != 1 && p->stride != 2) || p->pad_t < 0 || p->pad_t > 2 || p->pad_l < 0 ||
      p->pad_l > 2 || !p->requant_scale)
    return -1;
  const int simd_ok = zp_i8(p->x_zp) && zp_i8(p->y_zp);
  /* the first variant of the list the isa runs (SIMD ones only with int8 zero points), once */
  int pick = -1;
#define YK_DWCONV_VARIANT(E, v, s, on, blk, cond) \
  on(if (pick < 0 && (v == YK_DWCONV_SCALAR || (simd_ok && isa && (cond)))) pick = v;)
#include "variants/dwconv.inc"
#undef YK_DWCONV_VARIANT
  return yk_dwconv_set_variant(d, pick);
}

static int32_t pair16(int first, int second) {
  return (int32_t)((uint32_t)(uint16_t)(int16_t)first | ((uint32_t)(uint16_t)(int16_t)second << 16));
}

void yk_dwconv_pack(yk_dwconv *d, void *mem) {
  d->packed = mem;
  if (!d->cblk) return;
  const int B = d->cblk, C = d->p.c;
  const int8_t *w = d->weights;
  int32_t *blk = mem;
  memset(mem, 0, d->packed_bytes);
  for (int c0 = 0; c0 < C; c0 += B, blk += YK_DWCONV_BLOCK_I32(B)) {
    float *scale = (float *)(void *)(blk + B);
    for (int t = 0; t < B && c0 + t < C; t++) {
      const int c = c0 + t, pos = yk_dwconv_pack_pos(t, B);
      /* the kernels read padding as x_zp and multiply raw x: fold -x_zp * sum(w) into the bias
       * (mod 2^32, as the int32 lanes add; the true total fits, so the result is exact) */
      int64_t wsum = 0;
      for (int k = 0; k < 9; k++) wsum += w[(size_t)k * C + c];
      blk[pos] = (int32_t)(uint32_t)((uint64_t)(int64_t)(d->bias ? d->bias[c] : 0) -
                                     (uint64_t)((int64_t)d->p.x_zp * wsum));
      scale[pos] = d->p.requant_scale[c];
      for (int kx = 0; kx < 3; kx++) {
        const int w0 = w[(size_t)(0 * 3 + kx) * C + c], w1 = w[(size_t)(1 * 3 + kx) * C + c],
                  w2 = w[(size_t)(2 * 3 + kx) * C + c];
        int32_t *ws = blk + 2 * B + kx * B + pos;
        ws[0 * 3 * B] = pair16(w0, w1);
        ws[1 * 3 * B] = pair16(w2, 0);
        ws[2 * 3 * B] = pair16(0, w0);
        ws[3 * 3 * B] = pair16(w1, w2);
      }
    }
  }
}

void yk_dwconv_rows(const yk_dwconv *d, const int8_t *x, int8_t *y, int row0, int row1) {
  switch (d->variant) {
#define YK_DWCONV_VARIANT(E, v, s, on, blk, cond) on(case v : yk_dwconv_rows__##s(d, x, y, row0, row1); return;)
#include "variants/dwconv.inc"
#undef YK_DWCONV_VARIANT
    default: yk_dwconv_rows__scalar(d, x, y, row0, row1); return;
  }
}
