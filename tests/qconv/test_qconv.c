/* test_qconv.c — our int8 convolution: scalar reference against a hand-computed case, and every
 * SIMD variant bit-exact against scalar on odd shapes, padding, strides, saturation and LUTs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "yk.h"
#include "yk_qconv.h"

typedef struct rng { uint64_t s; } rng;
static uint32_t rnext(rng *r) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(r->s >> 33);
}
static int8_t ri8(rng *r) { return (int8_t)(rnext(r) & 0xFF); }

static void hand_case(void **state) {
  (void)state;
  /* 1 pixel, 3x3 kernel over a 1x1 image with pad 1: only the centre tap sees data. */
  int8_t x[4] = {10, -3, 7, 1};
  int8_t w[9 * 4];
  for (int i = 0; i < 36; i++) w[i] = (int8_t)(i - 18);
  int32_t bias[1] = {5};
  float scale[1] = {0.5f};
  yk_qconv c = {.n = 1, .h = 1, .w = 1, .cin = 4, .oh = 1, .ow = 1, .cout = 1, .kh = 3, .kw = 3,
                .sh = 1, .sw = 1, .pad_t = 1, .pad_l = 1, .dh = 1, .dw = 1, .x_zp = 2, .y_zp = -1,
                .weights = w, .bias = bias, .scale = scale};
  assert_int_equal(yk_qconv_init(&c, NULL), 0);
  int8_t y = 0;
  yk_qconv_rows__scalar(&c, x, &y, 0, 1);
  /* centre tap = 4: weights 16..19 - 18 = -2,-1,0,1 */
  int32_t acc = 5 + (10 - 2) * -2 + (-3 - 2) * -1 + (7 - 2) * 0 + (1 - 2) * 1;
  float v = acc * 0.5f;
  assert_int_equal(y, yk_round_half_even(v) - 1);
}

static void run_case(rng *r, int n, int h, int w, int cin, int cout, int k, int s, int pad,
                     int use_lut, int big_scale) {
  yk_isa isa;
  yk_isa_detect(&isa);
  const int oh = (h + 2 * pad - k) / s + 1, ow = (w + 2 * pad - k) / s + 1;
  size_t nx = (size_t)n * h * w * cin, nw = (size_t)cout * k * k * cin,
         ny = (size_t)n * oh * ow * cout;
  int8_t *x = malloc(nx), *wt = malloc(nw), *y0 = malloc(ny), *y1 = malloc(ny);
  int32_t *bias = malloc(sizeof(int32_t) * cout);
  float *scale = malloc(sizeof(float) * cout);
  int8_t lut[256];
  assert_non_null(x);
  assert_non_null(wt);
  assert_non_null(y0);
  assert_non_null(y1);
  assert_non_null(bias);
  assert_non_null(scale);
  for (size_t i = 0; i < nx; i++) x[i] = ri8(r);
  for (size_t i = 0; i < nw; i++) wt[i] = ri8(r);
  for (int i = 0; i < cout; i++) {
    bias[i] = (int32_t)(rnext(r) % 20001) - 10000;
    scale[i] = (big_scale ? 0.05f : 0.0005f) * (1.0f + (float)(rnext(r) % 100) / 50.0f);
  }
  for (int i = 0; i < 256; i++) lut[i] = ri8(r);
  yk_qconv c = {.n = n, .h = h, .w = w, .cin = cin, .oh = oh, .ow = ow, .cout = cout, .kh = k,
                .kw = k, .sh = s, .sw = s, .pad_t = pad, .pad_l = pad, .dh = 1, .dw = 1,
                .x_zp = (int32_t)(rnext(r) % 256) - 128, .y_zp = (int32_t)(rnext(r) % 256) - 128,
                .weights = wt, .bias = bias, .scale = scale, .lut = use_lut ? lut : NULL};
  assert_int_equal(yk_qconv_init(&c, &isa), 0);
  yk_qconv_rows__scalar(&c, x, y0, 0, n * oh);
  if (c.variant == YK_QCONV_AVX512VNNI) {
    void *mem = aligned_alloc(64, c.packed_bytes);
    assert_non_null(mem);
    yk_qconv_pack(&c, mem);
    memset(y1, 0x55, ny);
    /* split rows unevenly, as threads would */
    int rows = n * oh, mid = rows / 3;
    yk_qconv_rows(&c, x, y1, 0, mid);
    yk_qconv_rows(&c, x, y1, mid, rows);
    for (size_t i = 0; i < ny; i++) {
      if (y0[i] != y1[i])
        fail_msg("mismatch at %zu: scalar %d vnni %d (n%d h%d w%d cin%d cout%d k%d s%d)", i,
                 y0[i], y1[i], n, h, w, cin, cout, k, s);
    }
    free(mem);
  } else {
    print_message("AVX-512 VNNI+VBMI not available: scalar only\n");
  }
  free(x);
  free(wt);
  free(y0);
  free(y1);
  free(bias);
  free(scale);
}

static void vnni_matches_scalar(void **state) {
  (void)state;
  rng r = {42};
  run_case(&r, 1, 7, 9, 4, 1, 3, 1, 1, 0, 0);
  run_case(&r, 1, 7, 9, 4, 17, 3, 2, 1, 1, 0);
  run_case(&r, 2, 5, 6, 8, 33, 1, 1, 0, 0, 1);
  run_case(&r, 1, 11, 13, 12, 80, 3, 1, 1, 1, 1);
  run_case(&r, 1, 9, 9, 16, 64, 3, 2, 1, 1, 0);
  run_case(&r, 1, 8, 8, 32, 130, 1, 1, 0, 1, 0);
  run_case(&r, 1, 6, 5, 20, 48, 5, 1, 2, 0, 1);
  run_case(&r, 1, 20, 20, 64, 128, 3, 1, 1, 1, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hand_case),
      cmocka_unit_test(vnni_matches_scalar),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
