/* test_kernels_minmax — the range pass of dynamic quantization (yk_minmax_f32) against a plain
 * loop (NaNs skipped), and its SIMD variants bit for bit against the scalar reference. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "yk.h"
#include "yk_variants.h"

static void minmax(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  float x[37];
  for (int i = 0; i < 37; i++) x[i] = (float)((i * 7919) % 101) - 40.0f;
  for (size_t n = 0; n <= 37; n++) {
    float lo, hi, l = n ? x[0] : 0.0f, h = l;
    for (size_t i = 0; i < n; i++) l = fminf(l, x[i]), h = fmaxf(h, x[i]);
    yk_minmax_f32(&isa, x, n, &lo, &hi);
    assert_true(lo == l && hi == h);
  }
  x[0] = NAN; /* skipped */
  float lo, hi;
  yk_minmax_f32(&isa, x, 37, &lo, &hi);
  assert_false(isnan(lo) || isnan(hi));
}

/* Each SIMD variant against the reference bit for bit (memcmp: the sign of a zero counts) on
 * odd lengths, NaNs anywhere (first element too), +-0, infinities and extreme values. */
static void minmax_variants_exact(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  enum { N = 203 };
  float x[N];
  uint32_t s = 7;
  const float special[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 3.4e38f, -3.4e38f, 1e-45f};
  for (int t = 0; t < 64; t++) {
    for (int i = 0; i < N; i++) {
      s = s * 1664525u + 1013904223u;
      x[i] = (s >> 28) < 3 ? special[(s >> 8) % 8] : (t % 4 == 0 ? ((s >> 8) % 2 ? -0.0f : 0.0f)
                                                                  : (float)((int32_t)(s >> 8) - (1 << 23)) / 1024.0f);
    }
    for (size_t off = 0; off < 3; off++)
      for (size_t n = 0; n + off <= N; n += (n < 40 ? 1 : 17)) {
        float l0, h0;
        yk_minmax_f32__scalar(x + off, n, &l0, &h0);
#if YK_ARCH_X86_64
        if (isa.avx2) {
          float l1, h1;
          yk_minmax_f32__avx2(x + off, n, &l1, &h1);
          if (memcmp(&l0, &l1, 4) != 0 || memcmp(&h0, &h1, 4) != 0)
            fail_msg("avx2 t %d off %zu n %zu: %g %g vs %g %g", t, off, n, l1, h1, l0, h0);
        }
#endif
        float l2, h2;
        yk_minmax_f32(&isa, x + off, n, &l2, &h2);
        if (memcmp(&l0, &l2, 4) != 0 || memcmp(&h0, &h2, 4) != 0) fail_msg("dispatch t %d n %zu", t, n);
      }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(minmax), cmocka_unit_test(minmax_variants_exact)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
