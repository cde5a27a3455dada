/* test_weight_scale.c — per-channel weight scales (tools/quant/weight_scale.h): MSE-optimal, the exact
 * step of weights already on an int8 grid, and the choice by kind. */
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

/* Next pseudo-random value in [-0.5, 0.5). */
static double lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return ((*s >> 11) * (1.0 / 9007199254740992.0)) - 0.5;
}

/* Quantizing w with scale sc reproduces every weight (to float rounding) within [-127, 127]. */
static void assert_exact(const float *w, size_t n, float sc) {
  for (size_t i = 0; i < n; i++) {
    const float q = nearbyintf(w[i] / sc);
    assert_true(q >= -127 && q <= 127);
    assert_true(fabs((double)q * sc - w[i]) <= 1e-6 * fabs(w[i]) + 1e-30);
  }
}

/* A channel of k * g with max|k| = 57 (an odd size, 3x3x7): the step g / floor(127 / 57) = g / 2
 * keeps it exact, where max|w| / 127 = 57 g / 127 rounds most weights. */
static void grid_channel_exact(void **st) {
  (void)st;
  float w[63];
  uint64_t s = 11;
  const float g = 0.0123457f;
  for (int i = 0; i < 63; i++) w[i] = (float)(int)(lcg(&s) * 100) * g;
  w[5] = 57 * g;
  w[17] = -3 * g;
  w[30] = 1 * g;
  const float sc = weight_scale_grid(w, 63);
  assert_float_equal(sc, g / 2, 1e-6 * g);
  assert_exact(w, 63, sc);
  float maxs = 0;
  for (int i = 0; i < 63; i++) maxs = fmaxf(maxs, fabsf(w[i]));
  maxs /= 127.0f;
  int off = 0;
  for (int i = 0; i < 63; i++) off += fabsf(nearbyintf(w[i] / maxs) * maxs - w[i]) > 1e-6f * fabsf(w[i]);
  assert_true(off > 30); /* what the grid avoids */
}

/* The smallest nonzero weight is 3 (then 9) steps and the integers' gcd is 1: found with d = 3 (9). Then a
 * channel whose integers share the factor 2 (min 4g, max 126g): any step that keeps it exact. */
static void grid_smallest_weight_several_steps(void **st) {
  (void)st;
  const float g = 3.7e-3f;
  float w[7] = {3 * g, -5 * g, 0, 11 * g, -120 * g, 7 * g, 3 * g};
  float sc = weight_scale_grid(w, 7);
  assert_float_equal(sc, g, 1e-6 * g);
  assert_exact(w, 7, sc);
  float u[4] = {9 * g, -10 * g, 97 * g, 13 * g}; /* the smallest weight is 9 steps */
  sc = weight_scale_grid(u, 4);
  assert_float_equal(sc, g, 1e-6 * g);
  assert_exact(u, 4, sc);
  float v[5] = {4 * g, -126 * g, 0, 8 * g, 6 * g};
  sc = weight_scale_grid(v, 5);
  assert_true(sc > 0);
  assert_exact(v, 5, sc);
  assert_float_equal(fabsf(v[1]) / sc, 126.0f, 1e-3); /* the largest weight uses the range */
}

/* Float weights, integers over 127 steps, and an all-zero channel are not on an int8 grid. */
static void grid_rejects(void **st) {
  (void)st;
  float w[27];
  uint64_t s = 3;
  for (int i = 0; i < 27; i++) w[i] = (float)lcg(&s) * 0.2f;
  assert_float_equal(weight_scale_grid(w, 27), 0.0f, 0);
  const float g = 0.01f;
  float big[4] = {1 * g, 2 * g, -200 * g, 7 * g};
  assert_float_equal(weight_scale_grid(big, 4), 0.0f, 0);
  float z[3] = {0, 0, 0};
  assert_float_equal(weight_scale_grid(z, 3), 0.0f, 0);
  /* off the grid by 1e-4 of one weight: not exact, so not a grid */
  float near[4] = {1 * g, 2 * g, 50 * g * 1.0001f, -9 * g};
  assert_float_equal(weight_scale_grid(near, 4), 0.0f, 0);
}

/* weight_scale_pick: max-abs by default and for off-grid channels with GRID, 1 for zeros. */
static void pick_by_kind(void **st) {
  (void)st;
  const float g = 0.01f;
  float w[4] = {1 * g, 2 * g, -57 * g, 7 * g};
  assert_float_equal(weight_scale_pick(WEIGHT_SCALE_MAX, w, 4), 57 * g / 127, 1e-9);
  assert_float_equal(weight_scale_pick(WEIGHT_SCALE_GRID, w, 4), g / 2, 1e-9);
  assert_float_equal(weight_scale_pick(WEIGHT_SCALE_MSE, w, 4), weight_scale_mse(w, 4), 0);
  float f[3] = {0.3f, -0.1234567f, 0.0171f};
  assert_float_equal(weight_scale_pick(WEIGHT_SCALE_GRID, f, 3), 0.3f / 127, 1e-9);
  float z[2] = {0, 0};
  assert_float_equal(weight_scale_pick(WEIGHT_SCALE_GRID, z, 2), 1.0f, 0);
  assert_float_equal(weight_scale_pick(WEIGHT_SCALE_MAX, z, 2), 1.0f, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(outlier_channel_clips),
      cmocka_unit_test(exact_grid_keeps_maxabs),
      cmocka_unit_test(zero_channel),
      cmocka_unit_test(grid_channel_exact),
      cmocka_unit_test(grid_smallest_weight_several_steps),
      cmocka_unit_test(grid_rejects),
      cmocka_unit_test(pick_by_kind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
