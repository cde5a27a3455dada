/* conv16_uk_x86.h — the yk_conv16 micro-kernel (conv16_driver.h's yk_conv16_ukernel) written once
 * for the x86 widths, compiled per ISA: the including file defines C16_VI / C16_VF (vector types),
 * C16_LANES, C16_LOADI / C16_ZEROI, C16_LOADW (weights of one step), C16_DOT(acc, pair, w) (the
 * pair multiply-add: vpmaddwd + vpaddd, or vpdpwssd), C16_CVT, C16_LOADF / C16_ADDF / C16_STOREF,
 * and C16_UK (the function's name). One activation pair (two int16 of a pixel's patch) is
 * broadcast per step and YK_CONV16_MR pixels share each weight load. No include guard. */
static void C16_UK(const int16_t *patch, const int16_t *w, int kn, const int32_t *bias, float *f) {
  C16_VI a[YK_CONV16_MR];
  const C16_VI b = bias ? C16_LOADI(bias) : C16_ZEROI();
  for (int m = 0; m < YK_CONV16_MR; m++) a[m] = b;
  const int32_t *p = (const int32_t *)(const void *)patch;
  for (int s = 0; s < kn / 2; s++) {
    const C16_VI wv = C16_LOADW(w + (size_t)s * (2u * C16_LANES));
    for (int m = 0; m < YK_CONV16_MR; m++) a[m] = C16_DOT(a[m], p[m * (YK_CONV16_KBLK / 2) + s], wv);
  }
  for (int m = 0; m < YK_CONV16_MR; m++) {
    C16_VF v = C16_CVT(a[m]);
    if (!bias) v = C16_ADDF(C16_LOADF(f + m * C16_LANES), v);
    C16_STOREF(f + m * C16_LANES, v);
  }
}
