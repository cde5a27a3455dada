/* dwconv_rows_simd.h — the x86 depthwise 3x3 rows kernel written once (ncnn style): the column
 * slide of one channel block (DWR_(block)); dwconv_rows_driver.h is its row driver. Included by dwconv_avx2.c (256-bit,
 * CB 16) and dwconv_avx512.h (512-bit, CB 32, plus a 256-bit pass for a last block of <= 16
 * channels), once per vector width; the ISA file brings the loads and the output stage.
 *
 * Scheme (see yk_dwconv.h for the packed layout): per input column, each of up to four input rows
 * is widened to int16 (out-of-image rows and columns are x_zp vectors, folded into the packed
 * bias, so padding contributes 0 as in the reference) and interleaved in row pairs (r0, r1),
 * (r2, r3); one pairwise int16 dot then does two taps. Columns slide along the row so each is
 * loaded once per pass; stride 1 produces two output rows per pass (weights: wtop, wbot).
 *
 * The includer defines: CB (channels of a packed block), dw_ctx (r[4]: input rows at the block's
 * first channel or NULL, w, c), dw_out, DWR_V (the int vector), DWR_(name) (names of this width),
 * DWR_LDROW(k, row, ix) (a row's pixel widened; NULL row: padding), DWR_XZP(k), DWR_UNPACKLO / HI
 * (int16), DWR_LDW (a vector of packed int32), DWR_DOT(acc, a, b) (acc + pairwise
 * int16 dot), DWR_STORE(o, lo, hi, scale, dst, k) and optionally DWR_STORE2 (two rows at once).
 * The row driver is dwconv_rows_driver.h. No include guard. */

typedef struct DWR_(col4) {
  DWR_V p01lo, p01hi, p23lo, p23hi;
} DWR_(col4);

static inline DWR_(col4) DWR_(ld_col)(const dw_ctx *k, int ix) {
  DWR_(col4) o;
  if (ix < 0 || ix >= k->w) {
    o.p01lo = o.p01hi = o.p23lo = o.p23hi = DWR_XZP(k);
    return o;
  }
  const DWR_V a = DWR_LDROW(k, k->r[0], ix), b = DWR_LDROW(k, k->r[1], ix);
  const DWR_V c = DWR_LDROW(k, k->r[2], ix), d = DWR_LDROW(k, k->r[3], ix);
  o.p01lo = DWR_UNPACKLO(a, b);
  o.p01hi = DWR_UNPACKHI(a, b);
  o.p23lo = DWR_UNPACKLO(c, d);
  o.p23hi = DWR_UNPACKHI(c, d);
  return o;
}

/* acc of one output row: ws points at weight set s (pairs with r0,r1), set s+1 follows. */
static inline void DWR_(dot3)(const DWR_(col4) *c0, const DWR_(col4) *c1, const DWR_(col4) *c2,
                              const int32_t *ws, const int32_t *bias, DWR_V *lo, DWR_V *hi) {
  const DWR_(col4) *col[3] = {c0, c1, c2};
  DWR_V a = DWR_LDW(bias), b = DWR_LDW(bias + CB / 2);
  for (int kx = 0; kx < 3; kx++) {
    const int32_t *w01 = ws + kx * CB, *w23 = ws + 3 * CB + kx * CB;
    a = DWR_DOT(a, col[kx]->p01lo, DWR_LDW(w01));
    b = DWR_DOT(b, col[kx]->p01hi, DWR_LDW(w01 + CB / 2));
    a = DWR_DOT(a, col[kx]->p23lo, DWR_LDW(w23));
    b = DWR_DOT(b, col[kx]->p23hi, DWR_LDW(w23 + CB / 2));
  }
  *lo = a;
  *hi = b;
}

/* One channel block of one output row (two with `two`), columns sliding from ix0. */
static inline void DWR_(block)(const dw_out *o, const dw_ctx *k, const int32_t *pk, int ow, int S, int ix0,
                               int two, int8_t *out0, int8_t *out1, size_t C) {
  const float *scale = (const float *)(const void *)(pk + CB);
  const int32_t *wtop = pk + 2 * CB, *wbot = pk + 2 * CB + 6 * CB;
  DWR_(col4) A = DWR_(ld_col)(k, ix0), Bc = A, Cc = A;
  if (S == 1) Bc = DWR_(ld_col)(k, ix0 + 1);
  for (int ox = 0; ox < ow; ox++) {
    if (S == 1) {
      Cc = DWR_(ld_col)(k, ix0 + ox + 2);
    } else {
      Bc = DWR_(ld_col)(k, ix0 + 2 * ox + 1);
      Cc = DWR_(ld_col)(k, ix0 + 2 * ox + 2);
    }
    DWR_V lo, hi;
    DWR_(dot3)(&A, &Bc, &Cc, wtop, pk, &lo, &hi);
#ifdef DWR_STORE2
    if (two) {
      DWR_V lo1, hi1;
      DWR_(dot3)(&A, &Bc, &Cc, wbot, pk, &lo1, &hi1);
      DWR_STORE2(o, lo, hi, lo1, hi1, scale, out0 + (size_t)ox * C, out1 + (size_t)ox * C, k);
    } else {
      DWR_STORE(o, lo, hi, scale, out0 + (size_t)ox * C, k);
    }
#else
    DWR_STORE(o, lo, hi, scale, out0 + (size_t)ox * C, k);
    if (two) {
      DWR_(dot3)(&A, &Bc, &Cc, wbot, pk, &lo, &hi);
      DWR_STORE(o, lo, hi, scale, out1 + (size_t)ox * C, k);
    }
#endif
    if (S == 1) {
      A = Bc;
      Bc = Cc;
    } else {
      A = Cc;
    }
  }
}
