/* unary_f32_simd.h — the float activations over a float vector, written once for every ISA:
 * yk_unary_f32__<isa> (YK_VF_FN), bit-exact with yk_unary_f32__scalar (the exp/sigmoid operation
 * sequence of exp_f32_inline.h). Two vectors a step, then one, then the tail (YK_VF_LOAD_PART:
 * AVX2 a zero-padded buffer, AVX-512 masks). Tanh and the copies go to the scalar reference. In
 * place allowed. Included by unary_f32_<isa>.c after exp_f32_<isa>_inline.h. No include guard. */

static inline YK_VF apply(int kind, YK_VF alpha, YK_VF x) {
  switch (kind) {
    case YK_UNARY_RELU: return YK_VF_MAX(x, YK_VF_ZERO()); /* x > 0 ? x : 0 */
    case YK_UNARY_LEAKY_RELU: return YK_VF_IF_GE0(x, YK_VF_MUL(alpha, x), x);
    case YK_UNARY_SIGMOID: return YK_VF_FN(yk_sigmoid_f32)(x);
    case YK_UNARY_SILU: return YK_VF_MUL(x, YK_VF_FN(yk_sigmoid_f32)(x));
    default: return YK_VF_FN(yk_exp_f32)(x); /* YK_UNARY_EXP */
  }
}

/* kind is a compile-time constant after inlining into each case below, so the switch in apply()
 * disappears from the loop. */
static inline void run(int kind, float alpha, const float *x, float *y, size_t n) {
  const YK_VF va = YK_VF_SET1(alpha);
  size_t i = 0;
  for (; i + 2 * YK_VF_LANES <= n; i += 2 * YK_VF_LANES) {
    const YK_VF a = apply(kind, va, YK_VF_LOAD(x + i));
    const YK_VF b = apply(kind, va, YK_VF_LOAD(x + i + YK_VF_LANES));
    YK_VF_STORE(y + i, a);
    YK_VF_STORE(y + i + YK_VF_LANES, b);
  }
  for (; i + YK_VF_LANES <= n; i += YK_VF_LANES) YK_VF_STORE(y + i, apply(kind, va, YK_VF_LOAD(x + i)));
  if (i < n) YK_VF_STORE_PART(y + i, apply(kind, va, YK_VF_LOAD_PART(x + i, n - i)), n - i);
}

void YK_VF_FN(yk_unary_f32_)(int kind, float alpha, const float *x, float *y, size_t n) {
  switch (kind) {
    case YK_UNARY_RELU: run(YK_UNARY_RELU, alpha, x, y, n); break;
    case YK_UNARY_LEAKY_RELU: run(YK_UNARY_LEAKY_RELU, alpha, x, y, n); break;
    case YK_UNARY_SIGMOID: run(YK_UNARY_SIGMOID, alpha, x, y, n); break;
    case YK_UNARY_SILU: run(YK_UNARY_SILU, alpha, x, y, n); break;
    case YK_UNARY_EXP: run(YK_UNARY_EXP, alpha, x, y, n); break;
    default: yk_unary_f32__scalar(kind, alpha, x, y, n); break; /* tanh, copies; checks kind */
  }
}
