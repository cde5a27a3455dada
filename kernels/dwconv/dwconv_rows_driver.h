/* dwconv_rows_driver.h — the row driver of the x86 depthwise 3x3 rows kernel (see
 * dwconv_rows_simd.h): output rows in pairs at stride 1, input rows clipped to the image (NULL:
 * padding), channel blocks of CB. The includer defines DWR_DRIVER (the function's name), CB,
 * DWR_SET1_16 (int16 broadcast), dw_out / dw_ctx (r[4], w, c, xzp) and dw_out_init, dw_block
 * (one block of nc channels, its column slide) and dw_row_end (after an output row or pair).
 * No include guard. */

void DWR_DRIVER(const yk_dwconv *d, const int8_t *x, int8_t *y, int row0, int row1) {
  const yk_dw_params *p = &d->p;
  const int C = p->c, S = p->stride;
  const size_t rowb = (size_t)p->w * (size_t)C, orowb = (size_t)p->ow * (size_t)C;
  dw_out o;
  dw_out_init(&o, p);
  dw_ctx k;
  k.w = p->w;
  k.c = C;
  k.xzp = DWR_SET1_16(p->x_zp);
  for (int row = row0; row < row1;) {
    const int b = row / p->oh, oy = row % p->oh;
    const int two = S == 1 && row + 1 < row1 && oy + 1 < p->oh;
    const int8_t *img = x + (size_t)b * (size_t)p->h * rowb;
    const int iy0 = oy * S - p->pad_t;
    int8_t *out0 = y + (size_t)row * orowb, *out1 = out0 + orowb;
    const int8_t *rp[4];
    for (int t = 0; t < 4; t++) {
      const int iy = iy0 + t;
      rp[t] = (t < 3 + two && iy >= 0 && iy < p->h) ? img + (size_t)iy * rowb : NULL;
    }
    const int32_t *pk = d->packed;
    for (int c0 = 0; c0 < C; c0 += CB, pk += YK_DWCONV_BLOCK_I32(CB)) {
      for (int t = 0; t < 4; t++) k.r[t] = rp[t] ? rp[t] + c0 : NULL;
      dw_block(&o, &k, pk, C - c0 >= CB ? CB : C - c0, p->ow, S, -p->pad_l, two, out0 + c0, out1 + c0,
               (size_t)C);
    }
    dw_row_end(&o, out0, out1, two, orowb);
    row += 1 + two;
  }
}
