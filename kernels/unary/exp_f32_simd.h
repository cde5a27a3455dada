/* exp_f32_simd.h — exp, exp_neg and sigmoid over a float vector, written once for every ISA (ncnn's
 * per-ISA compilation of one source): lane for lane the operation sequence of exp_f32_inline.h,
 * hence bit-exact with yk_exp_f32_1 / yk_exp_neg_f32_1 / yk_sigmoid_f32_1. Included by
 * exp_f32_<isa>_inline.h after its vf32_<isa>.h (the YK_VF_* operations, YK_VF_FN the names:
 * yk_exp_f32_avx2, ...). No include guard. */

static inline YK_VF YK_VF_FN(yk_exp_poly_f32)(YK_VF r) {
  YK_VF p = YK_VF_FMADD(YK_VF_SET1(YK_EXP_C6), r, YK_VF_SET1(YK_EXP_C5));
  p = YK_VF_FMADD(p, r, YK_VF_SET1(YK_EXP_C4));
  p = YK_VF_FMADD(p, r, YK_VF_SET1(YK_EXP_C3));
  p = YK_VF_FMADD(p, r, YK_VF_SET1(YK_EXP_C2));
  p = YK_VF_FMADD(p, r, YK_VF_SET1(1.0f));
  return YK_VF_FMADD(p, r, YK_VF_SET1(1.0f));
}

/* The range reduction both share: t = x log2(e) + magic (n in its low mantissa bits), returns
 * r = x - n ln2 in two steps (hi, lo). */
static inline YK_VF YK_VF_FN(yk_exp_reduce_f32)(YK_VF x, YK_VF magic, YK_VF *t) {
  *t = YK_VF_FMADD(x, YK_VF_SET1(YK_EXP_LOG2E), magic);
  const YK_VF nf = YK_VF_SUB(*t, magic);
  const YK_VF r = YK_VF_FMADD(nf, YK_VF_SET1(YK_EXP_NLN2_HI), x);
  return YK_VF_FMADD(nf, YK_VF_SET1(YK_EXP_NLN2_LO), r);
}

/* x <= 0; see yk_exp_neg_f32_1 */
static inline YK_VF YK_VF_FN(yk_exp_neg_f32)(YK_VF x) {
  /* maxps returns the second operand when unordered: same as the scalar ternary */
  x = YK_VF_MAX(x, YK_VF_SET1(YK_EXP_LO));
  YK_VF t;
  const YK_VF p = YK_VF_FN(yk_exp_poly_f32)(YK_VF_FN(yk_exp_reduce_f32)(x, YK_VF_SET1(YK_EXP_NEG_MAGIC), &t));
  const YK_VI sc = YK_VI_SLLI(YK_VF_AS_VI(t), 23);
  return YK_VF_MUL(YK_VI_AS_VF(YK_VI_ADD(YK_VF_AS_VI(p), sc)), YK_VF_SET1(YK_EXP_NEG_SCALE));
}

/* any x; see yk_exp_f32_1 */
static inline YK_VF YK_VF_FN(yk_exp_f32)(YK_VF x) {
  x = YK_VF_MAX(x, YK_VF_SET1(YK_EXP_LO));
  x = YK_VF_MIN(x, YK_VF_SET1(YK_EXP_HI));
  YK_VF t;
  const YK_VF p = YK_VF_FN(yk_exp_poly_f32)(YK_VF_FN(yk_exp_reduce_f32)(x, YK_VF_SET1(YK_EXP_MAGIC), &t));
  const YK_VI nb = YK_VI_SUB(YK_VF_AS_VI(t), YK_VI_SET1((int)(YK_EXP_MAGIC_BITS - 150u)));
  const YK_VI h = YK_VI_SRLI(nb, 1);
  const YK_VI e1 = YK_VI_SLLI(YK_VI_SUB(h, YK_VI_SET1(75)), 23);
  const YK_VI e2 = YK_VI_SLLI(YK_VI_ADD(YK_VI_SUB(nb, h), YK_VI_SET1(52)), 23);
  const YK_VF p1 = YK_VI_AS_VF(YK_VI_ADD(YK_VF_AS_VI(p), e1));
  return YK_VF_MUL(p1, YK_VI_AS_VF(e2));
}

static inline YK_VF YK_VF_FN(yk_sigmoid_f32)(YK_VF x) {
  const YK_VF e = YK_VF_FN(yk_exp_neg_f32)(YK_VF_NEG_ABS(x));
  const YK_VF one = YK_VF_SET1(1.0f);
  const YK_VF d = YK_VF_ADD(one, e);
  return YK_VF_DIV(YK_VF_IF_LT0(x, one, e), d);
}
