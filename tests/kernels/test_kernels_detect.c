/* test_kernels_detect.c — the Detect decode's int8 kernels. Class scores: the scalar reference
 * against a naive loop, and the AVX-512 VBMI variant bit-exact against it on odd anchor counts
 * (whole 16-anchor steps, a tail, fewer than 16), class counts that are and are not multiples of
 * 4, odd row strides, a misaligned input, every int8 value and table entries of arbitrary bits
 * (NaN payloads, -0, denormals: the lookup must copy bits, not compute). DFL (no max pass): the
 * variant bit-exact against the scalar one for odd anchor counts, reg_max 16 / 4 / 8 and 6 (not a
 * multiple of 4: scalar fallback), an exp table of the real kind, arbitrary projection weights. */
#include "kt_common.h"

static void cls_i8_variants_match(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  kt_rng r = {0x5eedf00dULL};
  float t[256];
  for (int i = 0; i < 256; i++) {
    const uint32_t bits = kt_u32(&r) ^ (kt_u32(&r) << 16);
    memcpy(&t[i], &bits, 4);
  }
  static const size_t ns[] = {1, 15, 16, 17, 31, 51, 100, 333, 600};
  static const int ncs[] = {80, 3, 4, 7, 81, 1};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t b = 0; b < sizeof ncs / sizeof ncs[0]; b++) {
      const size_t n = ns[a], ys = n + 3;
      const int nc = ncs[b];
      void *qb, *y0b, *y1b;
      int8_t *q = kt_alloc(n * (size_t)nc, 5, &qb);
      float *y0 = kt_alloc((size_t)nc * ys * 4, 0, &y0b), *y1 = kt_alloc((size_t)nc * ys * 4, 0, &y1b);
      assert_non_null(q);
      assert_non_null(y0);
      assert_non_null(y1);
      kt_fill_i8(&r, q, n * (size_t)nc);
      q[0] = -128;
      q[n * (size_t)nc - 1] = 127;
      yk_detect_cls_i8__scalar(q, n, nc, t, y0, ys);
      for (int c = 0; c < nc; c++)
        for (size_t i = 0; i < n; i++)
          assert_memory_equal(&y0[(size_t)c * ys + i], &t[q[i * (size_t)nc + (size_t)c] + 128], 4);
#if YK_ARCH_X86_64
      if (isa.avx512 && isa.avx512vbmi) {
        yk_detect_cls_i8__avx512vbmi(q, n, nc, t, y1, ys);
        /* the gaps between rows (ys > n) keep their fill in both */
        assert_memory_equal(y0, y1, (size_t)nc * ys * 4);
      } else {
        print_message("no AVX-512 VBMI: variant skipped\n");
      }
#endif
      free(qb);
      free(y0b);
      free(y1b);
    }
}

static void dfl_i8_variants_match(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  kt_rng r = {0xd1f1ULL};
  float t[256], proj[16];
  for (int i = 0; i < 256; i++) t[i] = expf(0.11f * (float)(i - 255));
  for (int j = 0; j < 16; j++) proj[j] = kt_float(&r, -3.0f, 20.0f);
  static const size_t ns[] = {1, 15, 16, 17, 33, 100, 1025};
  static const int rs[] = {16, 4, 8, 6};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t b = 0; b < sizeof rs / sizeof rs[0]; b++) {
      const size_t n = ns[a], bytes = n * 4 * (size_t)rs[b];
      void *qb, *d0b, *d1b;
      int8_t *q = kt_alloc(bytes, 3, &qb);
      float *d0 = kt_alloc(n * 16, 0, &d0b), *d1 = kt_alloc(n * 16, 0, &d1b);
      assert_non_null(q);
      assert_non_null(d0);
      assert_non_null(d1);
      kt_fill_i8(&r, q, bytes);
      q[0] = -128;
      q[bytes - 1] = 127;
      yk_detect_dfl_i8__scalar(q, n, rs[b], t, proj, d0);
      /* spot check of the reference: anchor 0, side 0 in double */
      double sum = 0.0, acc = 0.0;
      for (int j = 0; j < rs[b]; j++) {
        sum += t[q[j] + 128];
        acc += (double)proj[j] * t[q[j] + 128];
      }
      assert_true(fabs(d0[0] - acc / sum) <= 1e-4 * (1.0 + fabs(acc / sum)));
#if YK_ARCH_X86_64
      if (isa.avx512 && isa.avx512vbmi) {
        yk_detect_dfl_i8__avx512vbmi(q, n, rs[b], t, proj, d1);
        assert_memory_equal(d0, d1, n * 16);
      }
#endif
      free(qb);
      free(d0b);
      free(d1b);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(cls_i8_variants_match), cmocka_unit_test(dfl_i8_variants_match)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
