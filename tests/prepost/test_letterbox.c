/* test_letterbox.c — letterbox geometry (ratio, rounding of size and padding), pad value,
 * identity and uniform-colour invariants, odd shapes, and (with ../shared) bit-exactness against
 * the PIL reference inputs (reference/<image>.<S>.input.f32, NCHW). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_data.h"
#include "yolort_image.h"

typedef struct lb_run {
  float *out;
  yrt_letterbox lb;
} lb_run;

static lb_run run_letterbox(const yrt_image *im, int dw, int dh) {
  lb_run r;
  size_t sb = yrt_letterbox_scratch_bytes(im->w, im->h, dw, dh);
  assert_true(sb > 0);
  void *scratch = malloc(sb);
  r.out = malloc((size_t)dw * dh * 3 * sizeof(float));
  assert_non_null(scratch);
  assert_non_null(r.out);
  yrt_error err;
  assert_int_equal(yrt_letterbox_f32(im, dw, dh, r.out, (size_t)dw * dh * 3, scratch, &r.lb, &err), YRT_OK);
  free(scratch);
  return r;
}

static yrt_image make_image(int w, int h, int uniform) {
  yrt_image im = {w, h, malloc((size_t)w * h * 3)};
  assert_non_null(im.rgb);
  for (size_t i = 0; i < (size_t)w * h * 3; i++) im.rgb[i] = uniform ? (uint8_t)(37 + i % 3 * 80) : (uint8_t)(i * 7919 % 251);
  return im;
}

/* Checks geometry and that exactly the pad region holds 114/255. */
static void check_geometry(int w, int h, int S, float ratio, int new_w, int new_h, int pad_l, int pad_t) {
  yrt_image im = make_image(w, h, 1);
  lb_run r = run_letterbox(&im, S, S);
  assert_float_equal(r.lb.ratio, ratio, 1e-6);
  assert_float_equal(r.lb.pad_left, (float)pad_l, 0);
  assert_float_equal(r.lb.pad_top, (float)pad_t, 0);
  assert_int_equal(r.lb.src_w, w);
  assert_int_equal(r.lb.src_h, h);
  assert_int_equal(r.lb.dst_w, S);
  const float pad = 114.0f / 255.0f;
  for (int y = 0; y < S; y++)
    for (int x = 0; x < S; x++) {
      int inside = x >= pad_l && x < pad_l + new_w && y >= pad_t && y < pad_t + new_h;
      const float *p = r.out + ((size_t)y * S + x) * 3;
      if (!inside) {
        assert_true(p[0] == pad && p[1] == pad && p[2] == pad);
      } else { /* uniform colour stays exact through the resize */
        assert_true(p[0] == 37.0f / 255.0f && p[1] == 117.0f / 255.0f && p[2] == 197.0f / 255.0f);
      }
    }
  free(r.out);
  free(im.rgb);
}

static void test_geometry(void **state) {
  (void)state;
  check_geometry(640, 480, 320, 0.5f, 320, 240, 0, 40);
  check_geometry(586, 640, 320, 0.5f, 293, 320, 13, 0);   /* odd pad: extra pixel right */
  check_geometry(640, 425, 320, 0.5f, 320, 212, 0, 54);   /* 212.5 rounds half to even */
  check_geometry(640, 483, 320, 0.5f, 320, 242, 0, 39);   /* 241.5 -> 242 */
  check_geometry(375, 500, 320, 0.64f, 240, 320, 40, 0);
  check_geometry(100, 50, 320, 3.2f, 320, 160, 0, 80);    /* upscale */
  check_geometry(3000, 7, 320, 320.0f / 3000, 320, 1, 0, 159); /* extreme aspect: >= 1 row */
  check_geometry(1, 1, 64, 64.0f, 64, 64, 0, 0);
}

static void test_identity(void **state) {
  (void)state;
  yrt_image im = make_image(64, 40, 0);
  lb_run r = run_letterbox(&im, 64, 64);
  assert_float_equal(r.lb.ratio, 1.0f, 0);
  assert_float_equal(r.lb.pad_top, 12.0f, 0);
  for (int y = 0; y < 40; y++)
    for (int x = 0; x < 64 * 3; x++)
      assert_true(r.out[(size_t)(y + 12) * 64 * 3 + x] == (float)im.rgb[(size_t)y * 64 * 3 + x] / 255.0f);
  free(r.out);
  free(im.rgb);
}

/* A downscale by 2 with PIL's bilinear filter averages a 4-tap triangle per axis: a vertical
 * stripe pattern of period 2 must come out flat (antialiasing), not aliased. */
static void test_antialias(void **state) {
  (void)state;
  yrt_image im = make_image(200, 200, 0);
  for (int y = 0; y < 200; y++)
    for (int x = 0; x < 200; x++) memset(im.rgb + ((size_t)y * 200 + x) * 3, (x & 1) ? 200 : 0, 3);
  lb_run r = run_letterbox(&im, 100, 100);
  for (int y = 0; y < 100; y++)
    for (int x = 1; x < 99; x++) assert_true(fabsf(r.out[((size_t)y * 100 + x) * 3] - 100.0f / 255) <= 1.0f / 255 + 1e-6f);
  free(r.out);
  free(im.rgb);
}

static void test_bad_args(void **state) {
  (void)state;
  yrt_image im = make_image(8, 8, 1);
  float out[16 * 16 * 3];
  char scratch[4096];
  yrt_error err;
  assert_int_equal(yrt_letterbox_f32(NULL, 16, 16, out, 16 * 16 * 3, scratch, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_letterbox_f32(&im, 0, 16, out, 16 * 16 * 3, scratch, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_letterbox_f32(&im, 16, 16, out, 16 * 16 * 3, NULL, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_letterbox_scratch_bytes(0, 8, 16, 16), 0);
  assert_true(yrt_letterbox_scratch_bytes(8, 8, 16, 16) <= sizeof scratch);
  /* a destination smaller than 16x16x3 floats is refused before anything is written (issue 19) */
  out[16 * 16 * 3 - 1] = -7.0f;
  assert_int_equal(yrt_letterbox_f32(&im, 16, 16, out, 16 * 16 * 3 - 1, scratch, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_letterbox_f32(&im, 16, 16, out, 16 * 16, scratch, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_letterbox_f32(&im, 16, 16, out, 0, scratch, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_true(out[16 * 16 * 3 - 1] == -7.0f);
  assert_int_equal(yrt_letterbox_f32(&im, 16, 16, out, 16 * 16 * 3, scratch, NULL, &err), YRT_OK); /* lb optional */
  free(im.rgb);
}

/* Bit-exact against the reference pre-processing (PIL resize) for every reference input. */
static void test_reference_inputs(void **state) {
  (void)state;
  static const struct { const char *image; int size; } refs[] = {
      {"000000000285", 320}, {"000000000632", 320}, {"000000000724", 320},
      {"000000000785", 320}, {"000000000285", 640}, {"000000000632", 640}};
  char path[1024];
  YT_REQUIRE_DATA(path, "reference/letterbox.320.json");
  double worst = 0;
  for (size_t k = 0; k < sizeof refs / sizeof refs[0]; k++) {
    char rel[256];
    snprintf(rel, sizeof rel, "data/coco/val/images/%s.jpg", refs[k].image);
    YT_REQUIRE_DATA(path, rel);
    yrt_image im;
    yrt_error err;
    assert_int_equal(yrt_image_load_jpeg(path, &im, &err), YRT_OK);
    const int S = refs[k].size;
    lb_run r = run_letterbox(&im, S, S);
    snprintf(rel, sizeof rel, "reference/%s.%d.input.f32", refs[k].image, S);
    YT_REQUIRE_DATA(path, rel);
    size_t n = (size_t)S * S * 3;
    float *ref = malloc(n * sizeof(float));
    assert_non_null(ref);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(ref, sizeof(float), n, f), n);
    fclose(f);
    double maxd = 0;
    size_t ndiff = 0;
    for (int c = 0; c < 3; c++)
      for (size_t i = 0; i < (size_t)S * S; i++) {
        double d = fabs((double)r.out[i * 3 + c] - ref[(size_t)c * S * S + i]);
        if (d > maxd) maxd = d;
        ndiff += d != 0;
      }
    print_message("%s @%d: %dx%d ratio %g pad %g,%g  max |diff| = %g/255, %zu values differ\n", refs[k].image, S,
                  im.w, im.h, r.lb.ratio, r.lb.pad_left, r.lb.pad_top, maxd * 255, ndiff);
    if (maxd > worst) worst = maxd;
    assert_true(maxd <= 1.0 / 255 + 1e-7);
    free(ref);
    free(r.out);
    yrt_image_free(&im);
  }
  print_message("worst max |diff| over reference inputs: %g/255 (0 = bit-exact)\n", worst * 255);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_geometry),  cmocka_unit_test(test_identity),        cmocka_unit_test(test_antialias),
      cmocka_unit_test(test_bad_args),  cmocka_unit_test(test_reference_inputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
