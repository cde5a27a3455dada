/* test_calib_stats.c — calibration histograms and the MinMax / Percentile / Entropy choosers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "calib_stats.h"

static float gauss(uint64_t *s) {
  double u[2];
  for (int k = 0; k < 2; k++) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    u[k] = ((*s >> 11) + 0.5) / 9007199254740992.0;
  }
  return (float)(sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]));
}

static void minmax_exact(void **st) {
  (void)st;
  calib_hist h;
  calib_hist_init(&h);
  float a[] = {-0.25f, 0.5f, 3.0f}, b[] = {-7.0f, 1.0f};
  calib_hist_add(&h, a, 3);
  calib_hist_add(&h, b, 2); /* forces widening */
  double lo, hi;
  calib_choose_range(&h, YRT_CALIB_MINMAX, 0, &lo, &hi);
  assert_float_equal(lo, -7.0, 1e-9);
  assert_float_equal(hi, 3.0, 1e-9);
  uint64_t total = 0;
  for (int i = 0; i < YRT_CALIB_BINS; i++) total += h.bins[i];
  assert_int_equal(total, 5);
  assert_int_equal(h.count, 5);
}

static void range_includes_zero(void **st) {
  (void)st;
  calib_hist h;
  calib_hist_init(&h);
  float a[] = {2.0f, 3.0f};
  calib_hist_add(&h, a, 2);
  double lo, hi;
  calib_choose_range(&h, YRT_CALIB_MINMAX, 0, &lo, &hi);
  assert_true(lo == 0.0 && hi == 3.0);
  float s;
  int32_t zp;
  calib_int8_params(lo, hi, &s, &zp);
  assert_int_equal(zp, -128);
  assert_float_equal(s, 3.0 / 255, 1e-7);
}

static void percentile_and_entropy_clip_outliers(void **st) {
  (void)st;
  calib_hist h;
  calib_hist_init(&h);
  uint64_t seed = 7;
  float *x = malloc(sizeof(float) * 200000);
  assert_non_null(x);
  for (int i = 0; i < 200000; i++) x[i] = gauss(&seed);
  x[5] = 60.0f; /* one huge outlier */
  calib_hist_add(&h, x, 200000);
  free(x);
  double lo, hi, plo, phi, elo, ehi, mlo, mhi;
  calib_choose_range(&h, YRT_CALIB_MINMAX, 0, &lo, &hi);
  calib_choose_range(&h, YRT_CALIB_PERCENTILE, 99.99, &plo, &phi);
  calib_choose_range(&h, YRT_CALIB_ENTROPY, 0, &elo, &ehi);
  calib_choose_range(&h, YRT_CALIB_MSE, 0, &mlo, &mhi);
  print_message("mse range [%g, %g]\n", mlo, mhi);
  /* one outlier at 60 in 2e5 samples: clipping it costs 56^2, more than the rounding noise it
   * saves, so MSE keeps most of the range; it still tightens what carries no mass */
  assert_true(mhi <= hi && mlo >= lo && (mhi < hi || mlo > lo));
  assert_float_equal(hi, 60.0, 1e-6);
  assert_true(phi < 6.0 && phi > 3.0);
  assert_true(plo > -6.0 && plo < -3.0);
  assert_true(ehi < 20.0 && ehi > 2.0);
  assert_true(elo > -20.0 && elo < -2.0);
}

/* The percentile bounds are mirrors: negating the data negates the range (bin edges chosen
 * outwards on both sides), and a SiLU output's small negative tail (one histogram bin wide next
 * to a large positive range) stays representable instead of clipping to zero. */
static void percentile_tails_mirror_and_keep_silu_negatives(void **st) {
  (void)st;
  enum { N = 100000 };
  float *x = malloc(sizeof(float) * N), *nx = malloc(sizeof(float) * N);
  assert_non_null(x);
  assert_non_null(nx);
  uint64_t seed = 11;
  for (int i = 0; i < N; i++) {
    const double v = 4.0 * gauss(&seed);
    x[i] = (float)(v / (1.0 + exp(-v))); /* silu: min -0.2785 */
    nx[i] = -x[i];
  }
  x[3] = nx[3] = 0.0f;
  x[4] = 97.0f; /* a long positive tail: one bin is ~0.1 wide */
  nx[4] = -97.0f;
  calib_hist h, g;
  calib_hist_init(&h);
  calib_hist_init(&g);
  calib_hist_add(&h, x, N);
  calib_hist_add(&g, nx, N);
  free(x);
  free(nx);
  double lo, hi, glo, ghi;
  calib_choose_range(&h, YRT_CALIB_PERCENTILE, 99.9, &lo, &hi);
  calib_choose_range(&g, YRT_CALIB_PERCENTILE, 99.9, &glo, &ghi);
  assert_float_equal(lo, -ghi, 1e-9);
  assert_float_equal(hi, -glo, 1e-9);
  assert_true(lo <= -0.27 && lo >= -0.2786);
  float s;
  int32_t zp;
  calib_int8_params(lo, 97.0, &s, &zp);
  assert_true(zp > -128); /* the code below the zero point holds the SiLU minimum */
}

static void method_names(void **st) {
  (void)st;
  yrt_calib_method m;
  assert_int_equal(calib_method_parse("entropy", &m), 0);
  assert_int_equal(m, YRT_CALIB_ENTROPY);
  assert_int_equal(calib_method_parse("bogus", &m), -1);
  assert_int_equal(calib_method_parse("mse", &m), 0);
  assert_int_equal(m, YRT_CALIB_MSE);
  assert_string_equal(calib_method_name(YRT_CALIB_PERCENTILE), "percentile");
}

int main(void) {
  const struct CMUnitTest t[] = {
      cmocka_unit_test(minmax_exact),
      cmocka_unit_test(range_includes_zero),
      cmocka_unit_test(percentile_and_entropy_clip_outliers),
      cmocka_unit_test(percentile_tails_mirror_and_keep_silu_negatives),
      cmocka_unit_test(method_names),
  };
  return cmocka_run_group_tests(t, NULL, NULL);
}
