/* test_silu_range.c — the range of a conv output read only by a fused SiLU: narrowing it must
 * not change any int8 SiLU output the table can produce (every y cut off maps to the same z as
 * the new end of the range), never widen it, and cut the dead negative part of YOLO11n's first conv. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "silu_range.h"

static double silu(double x) { return x / (1.0 + exp(-x)); }

/* z = round(silu(y) / s) + zp, clamped: the SiLU table entry for an exact y */
static int zq(double y, double s, int zp) {
  double q = nearbyint(silu(y) / s) + zp;
  return q < -128 ? -128 : q > 127 ? 127 : (int)q;
}

static void check(double lo, double hi, double zs, int zzp) {
  double nlo = lo, nhi = hi;
  const double z_hi = (127 - zzp) * zs;
  silu_input_range(zs, z_hi, &nlo, &nhi);
  assert_true(nlo >= lo && nhi <= hi); /* never widens */
  assert_true(nlo <= 0 && nhi >= 0);
  /* whatever was cut maps to the z of the new ends */
  for (double y = lo; y < nlo; y += (nlo - lo) / 97 + 1e-9) assert_int_equal(zq(y, zs, zzp), zq(nlo, zs, zzp));
  for (double y = hi; y > nhi; y -= (hi - nhi) / 97 + 1e-9) assert_int_equal(zq(y, zs, zzp), zq(nhi, zs, zzp));
}

static void test_first_conv_of_yolo11n(void **state) {
  (void)state;
  /* calibrated: y in [-43.4, 43.7], z (SiLU) scale 0.1719, zero point -127 */
  double lo = -43.37, hi = 43.71;
  silu_input_range(0.17187829, (127 + 127) * 0.17187829, &lo, &hi);
  assert_true(lo > -6.0 && lo < -3.0); /* the step of y about halves */
  assert_true(hi > 43.0 && hi <= 43.71);
  check(-43.37, 43.71, 0.17187829, -127);
}

static void test_shapes(void **state) {
  (void)state;
  check(-10.7, 2.67, 0.0108, -102);  /* small z step: cut only far out */
  check(-5.0, 60.0, 0.2, -127);
  check(-1.0, 1.0, 0.01, -100);      /* nothing to cut below the minimum of silu */
  check(-100.0, 0.5, 2.0, -127);     /* huge z step: negative side is all the zero point */
  check(0.0, 0.0, 0.1, 0);           /* degenerate */
  double lo = -3, hi = 3;
  silu_input_range(0.0, 1.0, &lo, &hi); /* bad scale: untouched */
  assert_true(lo == -3 && hi == 3);
  silu_input_range(NAN, 1.0, &lo, &hi);
  assert_true(lo == -3 && hi == 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_first_conv_of_yolo11n), cmocka_unit_test(test_shapes)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
