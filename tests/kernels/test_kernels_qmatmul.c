/* test_kernels_qmatmul.c — the int8 MatMul (yk_qmatmul_i8, QLinearMatMul): the scalar reference
 * against a naive one written here (int64 sums, kt_ref_qv rounding), and the AVX-512 VNNI and
 * AVX2 variants bit-exact against the scalar one on odd sizes (every K tail, column tails, row tails),
 * broadcast batches, misaligned pointers, extreme zero points and saturating scales, the
 * largest K (the int32 sum at its bound), and strided b / y: padded rows, and the token-major
 * heads form (b and y two heads interleaved per row, as the attention's P x V^T in NHWC; the
 * padding between must stay untouched). */
#include "kt_common.h"

typedef void (*qmm_fn)(const int8_t *, const int8_t *, int8_t *, size_t, const yk_qmatmul_strides *, size_t,
                       size_t, size_t, const yk_qmatmul_params *);

static void naive(const int8_t *a, const int8_t *b, int8_t *y, size_t batch, const yk_qmatmul_strides *st, size_t M,
                  size_t K, size_t N, const yk_qmatmul_params *p) {
  for (size_t t = 0; t < batch; t++)
    for (size_t i = 0; i < M; i++)
      for (size_t j = 0; j < N; j++) {
        int64_t s = 0;
        for (size_t k = 0; k < K; k++)
          s += (int64_t)(a[t * st->a_batch + i * K + k] - p->a_zp) * (b[t * st->b_batch + k * st->ldb + j] - p->b_zp);
        assert_true(s >= INT32_MIN && s <= INT32_MAX);
        y[t * st->y_batch + i * st->ldy + j] = kt_ref_qv((float)(int32_t)s * p->scale, p->y_zp);
      }
}

static const yk_qmatmul_params pset[] = {
    {3, -128, -21, 0.00357f * 0.0499f / 0.72f}, /* the attention's kind of scales */
    {0, 0, 0, 1.0f / 1024.0f},
    {-128, 127, 127, 3.0f},   /* saturates both ways */
    {127, -128, -128, 1e-5f}, /* tiny scale: y_zp almost everywhere */
    {12, -128, 12, 0.0717f / 128.0f},
};
#define NP (sizeof(pset) / sizeof(pset[0]))

/* b and y layouts: dense; padded rows (b and y rows and y's batches apart by more than N);
 * two heads interleaved per row (token-major: head t at column t N of rows 2 N long). */
enum { DENSE, PADDED, HEADS };

/* Runs fn on one shape (batch 2: a broadcast when bcast & 1, b when bcast & 2 (not with HEADS))
 * in layout lay and compares with the expected output of ref, padding included. */
static void one(qmm_fn fn, qmm_fn ref, kt_rng *r, size_t M, size_t K, size_t N, int bcast, size_t skew,
                const yk_qmatmul_params *p, int extreme, int lay) {
  const size_t batch = 2, as = bcast & 1 ? 0 : M * K;
  yk_qmatmul_strides st = {as, 0, M * N, N, N};
  if (lay == PADDED) st = (yk_qmatmul_strides){as, 0, M * (N + 3) + 7, N + 5, N + 3};
  if (lay == HEADS) st = (yk_qmatmul_strides){as, N, N, 2 * N, 2 * N};
  const size_t bs = bcast & 2 && lay != HEADS ? 0 : (lay == HEADS ? N : K * st.ldb);
  st.b_batch = bs;
  const size_t na = (as ? batch : 1) * M * K, nb = lay == HEADS ? K * st.ldb : (bs ? batch : 1) * K * st.ldb;
  const size_t ny = lay == HEADS ? M * st.ldy : batch * st.y_batch;
  void *ba, *bb, *by, *bz;
  int8_t *a = kt_alloc(na + 1, skew, &ba), *b = kt_alloc(nb + 1, (skew * 3) % 64, &bb);
  int8_t *y = kt_alloc(ny + 1, 0, &by), *z = kt_alloc(ny + 1, 0, &bz);
  assert_non_null(a), assert_non_null(b), assert_non_null(y), assert_non_null(z);
  if (extreme) { /* every product at its largest magnitude: the int32 sum at its bound */
    memset(a, p->a_zp >= 0 ? -128 : 127, na);
    memset(b, p->b_zp >= 0 ? -128 : 127, nb);
  } else {
    kt_fill_i8(r, a, na);
    kt_fill_i8(r, b, nb);
    for (size_t i = 0; i < na; i += 1 + kt_u32(r) % 7) a[i] = (int8_t)(kt_u32(r) & 1 ? 127 : -128);
    for (size_t i = 0; i < nb; i += 1 + kt_u32(r) % 7) b[i] = (int8_t)(kt_u32(r) & 1 ? 127 : -128);
  }
  memset(y, 0x5A, ny + 1);
  memset(z, 0x5A, ny + 1);
  fn(a, b, y, batch, &st, M, K, N, p);
  ref(a, b, z, batch, &st, M, K, N, p);
  if (memcmp(y, z, ny + 1) != 0) {
    size_t i = 0;
    while (y[i] == z[i]) i++;
    fail_msg("M %zu K %zu N %zu bcast %d layout %d zp %d/%d/%d scale %g: element %zu is %d, expected %d", M, K, N,
             bcast, lay, (int)p->a_zp, (int)p->b_zp, (int)p->y_zp, (double)p->scale, i, y[i], z[i]);
  }
  free(ba), free(bb), free(by), free(bz);
}

static void test_scalar_ref(void **state) {
  (void)state;
  kt_rng r = {77};
  static const size_t ms[] = {1, 2, 5}, ks[] = {0, 1, 3, 4, 5, 33}, ns[] = {1, 7, 64, 257, 300};
  for (size_t p = 0; p < NP; p++)
    for (size_t im = 0; im < 3; im++)
      for (size_t ik = 0; ik < 6; ik++)
        for (size_t in = 0; in < 5; in++)
          one(yk_qmatmul_i8__scalar, naive, &r, ms[im], ks[ik], ns[in], (int)(in % 4), 0, &pset[p], 0,
              (int)((im + ik + in) % 3));
  const yk_qmatmul_params big = {-128, 127, 0, 1e-9f};
  one(yk_qmatmul_i8__scalar, naive, &r, 1, YK_QMATMUL_MAX_K, 3, 0, 0, &big, 1, DENSE);
}

#if YK_ARCH_X86_64 /* the SIMD variants it checks are x86-64's (ARM runs the scalar one) */
/* Every shape, parameter set and bound, fn against the scalar reference. */
static void against_scalar(qmm_fn fn) {
  kt_rng r = {1234};
  static const size_t ms[] = {1, 5, 6, 7, 13, 64};
  static const size_t ks[] = {0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 63, 64, 65, 255, 256, 257, 400, 511, 512, 513, 700};
  static const size_t ns[] = {1, 3, 16, 17, 63, 64, 65, 127, 400, 1025, 1100};
  for (size_t im = 0; im < sizeof ms / sizeof ms[0]; im++)
    for (size_t ik = 0; ik < sizeof ks / sizeof ks[0]; ik++)
      for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++) {
        if (ms[im] * ks[ik] * ns[in] > 2000000) continue;
        const size_t p = (im + ik + in) % NP;
        one(fn, yk_qmatmul_i8__scalar, &r, ms[im], ks[ik], ns[in], (int)((ik + in) % 4), (im * 7 + in) % 64,
            &pset[p], 0, (int)((im + 2 * ik + in) % 3));
      }
  /* every parameter set on the attention's shapes; more rows than a block of row terms */
  for (size_t p = 0; p < NP; p++) {
    one(fn, yk_qmatmul_i8__scalar, &r, 400, 32, 400, 0, 5, &pset[p], 0, DENSE);
    one(fn, yk_qmatmul_i8__scalar, &r, 64, 400, 400, 0, 0, &pset[p], 0, DENSE);
    one(fn, yk_qmatmul_i8__scalar, &r, 400, 400, 64, 0, 0, &pset[p], 0, HEADS); /* P x V^T into NHWC */
    one(fn, yk_qmatmul_i8__scalar, &r, 100, 100, 32, 1, 2, &pset[p], 0, HEADS);
    one(fn, yk_qmatmul_i8__scalar, &r, 487, 9, 70, 1, 3, &pset[p], 0, PADDED);
  }
  /* the sums at their bound, both signs, with a K tail */
  const yk_qmatmul_params big[] = {{-128, 127, 0, 1e-9f}, {127, 127, -5, 1e-9f}, {-128, -128, 3, 1.0f}};
  for (size_t p = 0; p < 3; p++) {
    one(fn, yk_qmatmul_i8__scalar, &r, 2, YK_QMATMUL_MAX_K, 65, 0, 1, &big[p], 1, DENSE);
    one(fn, yk_qmatmul_i8__scalar, &r, 1, YK_QMATMUL_MAX_K - 3, 17, 3, 0, &big[p], 1, (int)p % 2 ? HEADS : PADDED);
  }
}
#endif

static void test_avx512vnni(void **state) {
  (void)state;
#if YK_ARCH_X86_64
  yk_isa isa;
  yk_isa_detect(&isa);
  if (!isa.avx512 || !isa.avx512vnni) {
    print_message("no AVX-512 VNNI: skipped\n");
    skip();
  }
  against_scalar(yk_qmatmul_i8__avx512vnni);
#else
  skip();
#endif
}

static void test_avx2(void **state) {
  (void)state;
#if YK_ARCH_X86_64
  KT_SKIP_NO_AVX2();
  against_scalar(yk_qmatmul_i8__avx2);
#else
  skip();
#endif
}

static void test_dispatch(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  int8_t a[5 * 9], b[9 * 70], y[2 * 5 * 70], z[2 * 5 * 70];
  kt_rng r = {5};
  kt_fill_i8(&r, a, sizeof a);
  kt_fill_i8(&r, b, sizeof b);
  const yk_qmatmul_strides st = {0, 0, 5 * 70, 70, 70};
  yk_qmatmul_i8(&isa, a, b, y, 2, &st, 5, 9, 70, &pset[0]);
  yk_qmatmul_i8(NULL, a, b, z, 2, &st, 5, 9, 70, &pset[0]);
  assert_memory_equal(y, z, sizeof y);
  assert_memory_equal(y, y + 5 * 70, 5 * 70); /* both batches read the same matrices */
  assert_true(yk_qmatmul_scale(0.5f, 0.25f, 2.0f) == 0.0625f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scalar_ref),
      cmocka_unit_test(test_avx512vnni),
      cmocka_unit_test(test_avx2),
      cmocka_unit_test(test_dispatch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
