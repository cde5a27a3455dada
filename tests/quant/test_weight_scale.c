/* test_weight_scale.c — MSE-optimal per-channel weight scale (tools/quant/weight_scale.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "weight_scale.h"

static double sq_error(const float *w, size_t n, float s) {
  double e = 0;
  for (size_t i = 0; i < n; i++) {
    float q = nearbyintf(w[i] / s);
    q = q < -127 ? -127 : (q > 127 ? 127 : q);
    e += ((double)w[i] - q * s) * ((double)w[i] - q * s);
  }
  return e;
}

/* 287 small weights and one outlier (an odd size): clipping the outlier a little pays off. */
static void outlier_channel_clips(void **st) {
  (void)st;
  float w[288];
  uint64_t s = 7;
  for (int i = 0; i < 287; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    w[i] = (float)(((s >> 11) * (1.0 / 9007199254740992.0)) - 0.5) * 0.1f;
  }
  w[287] = -1.0f;
  const float amax = 1.0f / 127.0f, sc = weight_scale_mse(w, 288);
  assert_true(sc > 0 && sc <= amax);
  assert_true(sc >= 0.5f * amax * 0.999f);
  assert_true(sq_error(w, 288, sc) <= sq_error(w, 288, amax));
}

/* Weights already on the max-abs grid: max-abs is exact and is kept. */
static void exact_grid_keeps_maxabs(void **st) {
  (void)st;
  float w[5] = {-127 * 0.01f, 3 * 0.01f, 0, 64 * 0.01f, 127 * 0.01f};
  assert_float_equal(weight_scale_mse(w, 5), 0.01f, 1e-9);
}

static void zero_channel(void **st) {
  (void)st;
  float w[3] = {0, 0, 0};
  assert_float_equal(weight_scale_mse(w, 3), 0.0f, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(outlier_channel_clips),
      cmocka_unit_test(exact_grid_keeps_maxabs),
      cmocka_unit_test(zero_channel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
