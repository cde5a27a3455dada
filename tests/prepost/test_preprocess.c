/* test_preprocess.c — a model's own preprocessing (yrt_preprocess, issue 36 item 8): stored in
 * META and read back (an older file's zero word is the default; unknown flag bits, bad modes,
 * pads, scales and std refused with a message); yrt_preprocess_f32 placing, ordering, scaling
 * and normalising a small synthetic image exactly as computed here directly (top-left, BGR,
 * scale 1, mean / std, stretch with two ratios, centre crop with negative pads) and boxes mapped
 * back through each; and the frame path writing the same float and int8 input as the JPEG path
 * on the same RGB pixels for every combination (identity resizes, where both paths are exact). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "yrt_test_builder.h"

/* input f32 NHWC [1, h, w, 3] -> (int8: QUANTIZE -> DEQUANTIZE; float: UNARY identity) -> output */
static ytb *image_model(int w, int h, int int8, float qscale, int32_t zp, const yrt_preprocess *pp) {
  ytb *b = ytb_new();
  const int32_t d[4] = {1, h, w, 3};
  uint32_t in = ytb_tensor(b, "images", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, d);
  uint32_t out = ytb_tensor(b, "output0", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, d);
  ytb_input(b, in);
  ytb_output(b, out);
  if (int8) {
    uint32_t q = ytb_act_i8(b, "q", 4, d, qscale, zp);
    ytb_node(b, YRT_OP_QUANTIZE, "quant", 1, &in, q, NULL, 0, NULL, 0);
    ytb_node(b, YRT_OP_DEQUANTIZE, "dequant", 1, &q, out, NULL, 0, NULL, 0);
  } else {
    const int32_t p[1] = {YRT_UNARY_IDENTITY};
    ytb_node(b, YRT_OP_UNARY, "identity", 1, &in, out, p, 1, NULL, 0);
  }
  if (pp) ytb_preprocess(b, pp);
  return b;
}

static yrt_preprocess pre(int bgr, float scale, int top_left, int resize, int pad, int mean_std) {
  yrt_preprocess p;
  yrt_preprocess_default(&p);
  p.bgr = bgr, p.scale = scale, p.top_left = top_left, p.resize = resize, p.pad = (float)pad;
  if (mean_std) {
    const float m[3] = {0.485f, 0.456f, 0.406f}, s[3] = {0.229f, 0.224f, 0.225f};
    for (int c = 0; c < 3; c++) p.mean[c] = m[c], p.std[c] = s[c];
  }
  return p;
}

static void assert_pp_equal(const yrt_preprocess *a, const yrt_preprocess *b) {
  assert_int_equal(a->bgr, b->bgr);
  assert_int_equal(a->top_left, b->top_left);
  assert_int_equal(a->resize, b->resize);
  assert_true(a->pad == b->pad && a->scale == b->scale);
  for (int c = 0; c < 3; c++) assert_true(a->mean[c] == b->mean[c] && a->std[c] == b->std[c]);
}

/* writer (the builder, as the converter's writer) -> loader -> yrt_model_get_preprocess */
static void test_format_roundtrip(void **state) {
  (void)state;
  yrt_error err = {{0}};
  const yrt_preprocess cases[] = {pre(1, 1.0f, 1, YRT_RESIZE_LETTERBOX, 114, 0), pre(0, 1.0f / 255.0f, 0, YRT_RESIZE_CROP, 0, 1),
                                  pre(1, 0.5f, 0, YRT_RESIZE_STRETCH, 255, 1)};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    ytb_loaded l;
    if (ytb_load(image_model(8, 6, 0, 0, 0, &cases[k]), 1, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
    uint64_t msize = 0;
    ytb_section(l.img, YRT_SEC_META, &msize);
    assert_int_equal(msize, k == 0 ? 64 : 96); /* the mean / std record only when needed */
    yrt_preprocess got;
    assert_int_equal(yrt_model_get_preprocess(l.m, &got), YRT_OK);
    assert_pp_equal(&got, &cases[k]);
    ytb_unload(&l);
  }
  /* a file from before the field: the word was reserved (0), pad 114, scale 1/255 -> the default */
  ytb_loaded l;
  if (ytb_load(image_model(8, 6, 0, 0, 0, NULL), 1, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  yrt_preprocess got, def;
  yrt_preprocess_default(&def);
  assert_int_equal(yrt_model_get_preprocess(l.m, &got), YRT_OK);
  assert_pp_equal(&got, &def);
  assert_int_equal(yrt_model_get_preprocess(NULL, &got), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_model_get_preprocess(l.m, NULL), YRT_ERR_INVALID_ARG);
  ytb_unload(&l);
}

static void expect_refused(ytb *b, yrt_status want, const char *needle) {
  yrt_error err = {{0}};
  ytb_loaded l;
  yrt_status st = ytb_load(b, 1, &l, &err);
  if (st != want || !strstr(err.msg, needle))
    fail_msg("want %s naming '%s', got %s: %s", yrt_status_name(want), needle, yrt_status_name(st), err.msg);
  ytb_unload(&l);
}

static void test_format_refused(void **state) {
  (void)state;
  const yrt_preprocess ok = pre(1, 1.0f, 1, 0, 114, 0);
  ytb *b = image_model(8, 6, 0, 0, 0, &ok);
  ytb_meta_rec(b)->preprocess |= 1u << 5; /* a newer converter's flag */
  expect_refused(b, YRT_ERR_UNSUPPORTED, "bits this runtime does not know");
  b = image_model(8, 6, 0, 0, 0, &ok);
  ytb_meta_rec(b)->preprocess |= 3u << YRT_PRE_RESIZE_SHIFT;
  expect_refused(b, YRT_ERR_UNSUPPORTED, "resize mode 3");
  b = image_model(8, 6, 0, 0, 0, &ok);
  ytb_meta_rec(b)->preprocess |= YRT_PRE_MEAN_STD; /* flag without the record */
  expect_refused(b, YRT_ERR_FORMAT, "mean/std");
  const float pads[] = {-1.0f, 256.0f, 1.5f, NAN};
  for (size_t k = 0; k < 4; k++) {
    b = image_model(8, 6, 0, 0, 0, &ok);
    ytb_meta_rec(b)->pad_value = pads[k];
    expect_refused(b, YRT_ERR_FORMAT, "pad");
  }
  const float scales[] = {0.0f, -1.0f, INFINITY, NAN};
  for (size_t k = 0; k < 4; k++) {
    b = image_model(8, 6, 0, 0, 0, &ok);
    ytb_meta_rec(b)->norm_scale = scales[k];
    expect_refused(b, YRT_ERR_FORMAT, "scale");
  }
  yrt_preprocess bad = pre(0, 1.0f / 255.0f, 0, 0, 114, 1);
  bad.std[1] = 0.0f;
  expect_refused(image_model(8, 6, 0, 0, 0, &bad), YRT_ERR_FORMAT, "std[1]");
  bad.std[1] = 1.0f, bad.mean[2] = INFINITY;
  expect_refused(image_model(8, 6, 0, 0, 0, &bad), YRT_ERR_FORMAT, "mean[2]");
}

/* The value of level v on network channel c, computed directly. */
static float value(const yrt_preprocess *p, int c, int v) {
  const float x = p->scale == 1.0f / 255.0f ? (float)v / 255.0f : (float)v * p->scale;
  return (x - p->mean[c]) / p->std[c];
}

static uint8_t level(int x, int y, int c) { return (uint8_t)(13 * x + 29 * y + 71 * c + 5); }

static yrt_image make_image(int w, int h, int columns_only) {
  yrt_image im = {w, h, malloc((size_t)w * h * 3)};
  assert_non_null(im.rgb);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 3; c++) im.rgb[((size_t)y * w + x) * 3 + c] = level(x, columns_only ? 0 : y, c);
  return im;
}

/* input[y][x] of a preprocessed image == source pixel (sx, sy) through pp, or the pad */
static void check_pixel(const float *o, int dst_w, int x, int y, const yrt_preprocess *p, const yrt_image *im, int sx,
                        int sy) {
  for (int c = 0; c < 3; c++) {
    const int src_c = p->bgr ? 2 - c : c;
    const int v = sx < 0 ? (int)p->pad : im->rgb[((size_t)sy * im->w + sx) * 3 + src_c];
    const float want = value(p, c, v), got = o[((size_t)y * dst_w + x) * 3 + c];
    if (got != want) fail_msg("(%d,%d) ch %d = %.9g, want %.9g (level %d)", x, y, c, (double)got, (double)want, v);
  }
}

static void test_jpeg_path_direct(void **state) {
  (void)state;
  yrt_error err = {{0}};
  enum { W = 6, H = 4, DW = 6, DH = 9 };
  yrt_image im = make_image(W, H, 0);
  float out[8 * 8 * 3], ref[DW * DH * 3]; /* out: the largest destination below (8x8, top-left case) */
  uint8_t scratch[65536];
  assert_true(yrt_letterbox_scratch_bytes(W, H, DW, DH) <= sizeof scratch);
  yrt_letterbox lb;
  /* NULL pp is yrt_letterbox_f32, bit for bit */
  assert_int_equal(yrt_preprocess_f32(&im, NULL, DW, DH, out, DW * DH * 3, scratch, &lb, &err), YRT_OK);
  assert_int_equal(yrt_letterbox_f32(&im, DW, DH, ref, DW * DH * 3, scratch, &lb, &err), YRT_OK);
  assert_memory_equal(out, ref, sizeof ref);
  /* letterbox, ratio 1 (the resize is the identity): placement, order, scale, mean / std, pad */
  for (int k = 0; k < 8; k++) {
    const yrt_preprocess p = pre(k & 1, k & 2 ? 1.0f : 1.0f / 255.0f, (k >> 2) & 1, YRT_RESIZE_LETTERBOX, k * 30, k == 5);
    assert_int_equal(yrt_preprocess_f32(&im, &p, DW, DH, out, DW * DH * 3, scratch, &lb, &err), YRT_OK);
    const int pt = p.top_left ? 0 : (DH - H) / 2;
    assert_true(lb.ratio == 1.0f && lb.ratio_y == 1.0f && lb.pad_left == 0.0f && lb.pad_top == (float)pt);
    for (int y = 0; y < DH; y++)
      for (int x = 0; x < DW; x++) {
        const int in = y >= pt && y < pt + H;
        check_pixel(out, DW, x, y, &p, &im, in ? x : -1, y - pt);
      }
  }
  /* stretch: 6x4 -> 6x9, x the identity, columns constant so any vertical filter keeps them */
  yrt_image cols = make_image(W, H, 1);
  const yrt_preprocess st = pre(1, 1.0f, 0, YRT_RESIZE_STRETCH, 114, 0);
  assert_int_equal(yrt_preprocess_f32(&cols, &st, DW, DH, out, DW * DH * 3, scratch, &lb, &err), YRT_OK);
  assert_true(lb.ratio == 1.0f && lb.ratio_y == (float)(9.0 / 4.0) && lb.pad_left == 0.0f && lb.pad_top == 0.0f);
  for (int y = 0; y < DH; y++)
    for (int x = 0; x < DW; x++) check_pixel(out, DW, x, y, &st, &cols, x, 0);
  /* crop: 10x4 -> 4x4 keeps the scale (shorter side 4) and takes columns 3..6 */
  yrt_image wide = make_image(10, 4, 0);
  const yrt_preprocess cr = pre(0, 1.0f / 255.0f, 0, YRT_RESIZE_CROP, 114, 1);
  assert_int_equal(yrt_preprocess_f32(&wide, &cr, 4, 4, out, 4 * 4 * 3, scratch, &lb, &err), YRT_OK);
  assert_true(lb.ratio == 1.0f && lb.pad_left == -3.0f && lb.pad_top == 0.0f);
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++) check_pixel(out, 4, x, y, &cr, &wide, x + 3, y);
  /* a downscaled crop keeps the centre: 12x8 -> 4x4 is 6x4 resized, columns 1..4 */
  yrt_image big = make_image(12, 8, 1);
  assert_int_equal(yrt_preprocess_f32(&big, &cr, 4, 4, out, 4 * 4 * 3, scratch, &lb, &err), YRT_OK);
  assert_true(lb.ratio == 0.5f && lb.pad_left == -1.0f && lb.pad_top == 0.0f);

  /* boxes map back through each placement: a box at input (8, 10)-(16, 30) of a stretch by
   * (0.5, 2), and of a top-left letterbox (no pads) */
  const float out0[5] = {12.0f, 20.0f, 8.0f, 20.0f, 0.9f}; /* [1, 4 + 1, 1]: cx, cy, w, h, score */
  yrt_postprocess_params prm;
  yrt_postprocess_params_init(&prm);
  uint8_t pps[4096];
  assert_true(yrt_postprocess_scratch_bytes(1, prm.max_detections) <= sizeof pps);
  yrt_detection d;
  int n = 0;
  yrt_letterbox s2 = {0.5f, 0.0f, 0.0f, 100, 100, 50, 200, 0.0f, 0.0f, 2.0f};
  assert_int_equal(yrt_postprocess(out0, 1, 1, &s2, &prm, pps, &d, 1, &n, &err), YRT_OK);
  assert_int_equal(n, 1);
  assert_true(d.x0 == 16.0f && d.x1 == 32.0f && d.y0 == 5.0f && d.y1 == 15.0f);
  const yrt_preprocess tl = pre(0, 1.0f / 255.0f, 1, YRT_RESIZE_LETTERBOX, 114, 0);
  yrt_image tall = make_image(4, 8, 0);
  assert_int_equal(yrt_preprocess_f32(&tall, &tl, 8, 8, out, 8 * 8 * 3, scratch, &lb, &err), YRT_OK);
  assert_true(lb.pad_left == 0.0f && lb.pad_top == 0.0f && lb.ratio == 1.0f);
  const float in0[5] = {2.0f, 3.0f, 2.0f, 2.0f, 0.9f}; /* (1, 2)-(3, 4): as is without pads */
  assert_int_equal(yrt_postprocess(in0, 1, 1, &lb, &prm, pps, &d, 1, &n, &err), YRT_OK);
  assert_true(n == 1 && d.x0 == 1.0f && d.x1 == 3.0f && d.y0 == 2.0f && d.y1 == 4.0f);

  /* a preprocessing the loader would refuse is refused here too */
  yrt_preprocess badp = pre(0, 1.0f, 0, 0, 114, 0);
  badp.resize = 7;
  assert_int_equal(yrt_preprocess_f32(&im, &badp, DW, DH, out, DW * DH * 3, scratch, &lb, &err), YRT_ERR_UNSUPPORTED);
  badp.resize = 0, badp.pad = 300.0f;
  assert_int_equal(yrt_preprocess_f32(&im, &badp, DW, DH, out, DW * DH * 3, scratch, &lb, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "pad"));
  free(im.rgb), free(cols.rgb), free(wide.rgb), free(big.rgb), free(tall.rgb);
}

/* The frame path (RGB and BGR frames) writes what the JPEG path writes, float and int8 (the
 * quantized input: outputs through QUANTIZE -> DEQUANTIZE compared), for every preprocessing, on
 * images whose resize is the identity in both paths (their resamplers differ otherwise). */
static void test_frame_equals_jpeg(void **state) {
  (void)state;
  yrt_error err = {{0}};
  enum { DW = 24, DH = 24 };
  struct {
    int w, h, columns_only;
    yrt_preprocess p;
  } cases[] = {
      {24, 16, 0, pre(1, 1.0f, 1, YRT_RESIZE_LETTERBOX, 114, 0)},      /* YOLOX */
      {24, 16, 0, pre(1, 1.0f / 255.0f, 0, YRT_RESIZE_LETTERBOX, 0, 1)}, /* BGR, mean / std, centred, pad 0 */
      {16, 24, 0, pre(0, 1.0f / 255.0f, 1, YRT_RESIZE_LETTERBOX, 114, 0)},
      {16, 24, 0, pre(0, 1.0f / 255.0f, 0, YRT_RESIZE_LETTERBOX, 114, 0)}, /* the default */
      {31, 24, 0, pre(1, 1.0f, 0, YRT_RESIZE_CROP, 114, 1)},             /* window at x = 4 (round half even of 3.5) */
      {24, 9, 1, pre(0, 1.0f, 0, YRT_RESIZE_STRETCH, 114, 0)},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    for (int int8 = 0; int8 < 2; int8++) {
      const yrt_preprocess *p = &cases[k].p;
      const float qs = p->scale == 1.0f ? 1.0f : 1.0f / 64.0f;
      ytb_loaded l;
      if (ytb_load(image_model(DW, DH, int8, qs, int8 ? -100 : 0, p), 1, &l, &err) != YRT_OK)
        fail_msg("%s: %s", l.step, err.msg);
      yrt_image im = make_image(cases[k].w, cases[k].h, cases[k].columns_only);
      /* JPEG path */
      uint8_t *scratch = malloc(yrt_letterbox_scratch_bytes(im.w, im.h, DW, DH));
      assert_non_null(scratch);
      yrt_letterbox lb_j, lb_f;
      yrt_preprocess mp;
      assert_int_equal(yrt_model_get_preprocess(l.m, &mp), YRT_OK);
      float *in = yrt_session_input_nhwc(l.s, 0);
      const size_t count = yrt_session_input_count(l.s, 0);
      assert_int_equal(yrt_preprocess_f32(&im, &mp, DW, DH, in, count, scratch, &lb_j, &err), YRT_OK);
      float *want = malloc(count * sizeof(float)), *got = malloc(count * sizeof(float));
      assert_non_null(want);
      assert_non_null(got);
      if (!int8) memcpy(want, in, count * sizeof(float));
      assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
      yrt_tensor_view v;
      assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
      if (int8) memcpy(want, v.data, count * sizeof(float));
      /* frame path: RGB888 and the same pixels as BGR888 */
      uint8_t *bgr = malloc((size_t)im.w * im.h * 3);
      assert_non_null(bgr);
      for (size_t i = 0; i < (size_t)im.w * im.h; i++)
        for (int c = 0; c < 3; c++) bgr[3 * i + c] = im.rgb[3 * i + 2 - c];
      for (int fb = 0; fb < 2; fb++) {
        yrt_frame f;
        yrt_frame_init(&f);
        f.format = fb ? YRT_PIX_BGR888 : YRT_PIX_RGB888;
        f.width = im.w, f.height = im.h;
        f.plane[0] = fb ? bgr : im.rgb, f.stride[0] = (size_t)im.w * 3;
        memset(in, 0, count * sizeof(float));
        assert_int_equal(yrt_session_set_frame(l.s, &f, &lb_f, &err), YRT_OK);
        if (!int8) memcpy(got, in, count * sizeof(float));
        assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
        assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
        if (int8) memcpy(got, v.data, count * sizeof(float));
        for (size_t i = 0; i < count; i++)
          if (got[i] != want[i])
            fail_msg("case %zu %s %s frame: input element %zu = %.9g, JPEG path %.9g", k, int8 ? "int8" : "float",
                     fb ? "BGR" : "RGB", i, (double)got[i], (double)want[i]);
        assert_true(lb_f.ratio == lb_j.ratio && lb_f.ratio_y == lb_j.ratio_y && lb_f.pad_left == lb_j.pad_left &&
                    lb_f.pad_top == lb_j.pad_top);
      }
      free(bgr), free(want), free(got), free(scratch), free(im.rgb);
      ytb_unload(&l);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_roundtrip),
      cmocka_unit_test(test_format_refused),
      cmocka_unit_test(test_jpeg_path_direct),
      cmocka_unit_test(test_frame_equals_jpeg),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
