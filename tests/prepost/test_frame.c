/* test_frame.c — camera frames through a session: yrt_session_set_frame's argument checks,
 * threaded rows equal to one thread, every format of the same picture landing close to the
 * RGB one, crops mapping boxes back to frame pixels, and yrt_session_detect on the shared
 * yolo11n-320 with an NV12 frame made from a val JPEG finding the JPEG path's detections
 * (same class, IoU > 0.9); the int8 input written directly equals the float input quantized; the
 * picture stored turned or mirrored (yrt_frame.orientation) finds the same detections. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"
#include "test_data.h"
#include "yolort_image.h"
#include "yt_orient.h"

typedef struct ctx {
  yrt_model *m;
  yrt_session *s1, *s2; /* 1 and 2 threads */
} ctx;

static void open_model(ctx *c, const char *rel) {
  char path[1024];
  YT_REQUIRE_DATA(path, rel);
  yrt_error err = {{0}};
  void *buf = NULL;
  size_t size = 0;
  yrt_convert_options o = {0};
  if (yrt_convert_onnx_file(path, &o, &buf, &size, NULL, &err) != YRT_OK) fail_msg("convert %s: %s", rel, err.msg);
  if (yrt_model_load_memory(buf, size, 1, &c->m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  free(buf);
  yrt_session_options o1 = {.num_threads = 1}, o2 = {.num_threads = 2};
  if (yrt_session_create(c->m, &o1, &c->s1, &err) != YRT_OK) fail_msg("session: %s", err.msg);
  if (yrt_session_create(c->m, &o2, &c->s2, &err) != YRT_OK) fail_msg("session: %s", err.msg);
}

static void close_model(ctx *c) {
  yrt_session_free(c->s1);
  yrt_session_free(c->s2);
  yrt_model_free(c->m);
}

/* RGB -> NV12, BT.601 limited range (what a camera ISP hands over), chroma averaged over 2x2. */
static uint8_t *rgb_to_nv12(const yrt_image *im) {
  const int w = im->w, h = im->h, cw = (w + 1) / 2, ch = (h + 1) / 2;
  uint8_t *out = malloc((size_t)w * h + 2 * (size_t)cw * ch);
  assert_non_null(out);
  uint8_t *uv = out + (size_t)w * h;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *p = im->rgb + ((size_t)y * w + x) * 3;
      out[(size_t)y * w + x] = (uint8_t)lrint(16 + (65.738 * p[0] + 129.057 * p[1] + 25.064 * p[2]) / 256);
    }
  for (int y = 0; y < ch; y++)
    for (int x = 0; x < cw; x++) {
      double r = 0, g = 0, b = 0;
      int k = 0;
      for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
          const int sx = 2 * x + dx < w ? 2 * x + dx : w - 1, sy = 2 * y + dy < h ? 2 * y + dy : h - 1;
          const uint8_t *p = im->rgb + ((size_t)sy * w + sx) * 3;
          r += p[0], g += p[1], b += p[2], k++;
        }
      r /= k, g /= k, b /= k;
      uv[((size_t)y * cw + x) * 2] = (uint8_t)lrint(128 + (-37.945 * r - 74.494 * g + 112.439 * b) / 256);
      uv[((size_t)y * cw + x) * 2 + 1] = (uint8_t)lrint(128 + (112.439 * r - 94.154 * g - 18.285 * b) / 256);
    }
  return out;
}

static float iou(const yrt_detection *a, const yrt_detection *b) {
  const float ix = fmaxf(0, fminf(a->x1, b->x1) - fmaxf(a->x0, b->x0));
  const float iy = fmaxf(0, fminf(a->y1, b->y1) - fmaxf(a->y0, b->y0));
  const float in = ix * iy;
  const float u = (a->x1 - a->x0) * (a->y1 - a->y0) + (b->x1 - b->x0) * (b->y1 - b->y0) - in;
  return u > 0 ? in / u : 0;
}

static yrt_frame rgb_frame(const yrt_image *im) {
  yrt_frame f;
  memset(&f, 0, sizeof f);
  f.format = YRT_PIX_RGB888;
  f.width = im->w, f.height = im->h;
  f.plane[0] = im->rgb;
  f.stride[0] = (size_t)im->w * 3;
  return f;
}

static void test_bad_frames(void **state) {
  ctx *c = *state;
  if (!c->s1) skip(); /* test_open skipped: no shared data */
  uint8_t px[64 * 3] = {0};
  yrt_error err = {{0}};
  yrt_frame ok;
  memset(&ok, 0, sizeof ok);
  ok.format = YRT_PIX_RGB888, ok.width = 8, ok.height = 8, ok.plane[0] = px, ok.stride[0] = 24;
  assert_int_equal(yrt_session_set_frame(c->s1, &ok, NULL, &err), YRT_OK);
  assert_int_equal(yrt_session_set_frame(NULL, &ok, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_session_set_frame(c->s1, NULL, NULL, &err), YRT_ERR_INVALID_ARG);
  yrt_frame f = ok;
  f.format = (yrt_pixel_format)99;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "pixel format"));
  f = ok, f.stride[0] = 23;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "stride[0]"));
  f = ok, f.plane[0] = NULL;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_ERR_INVALID_ARG);
  f = ok, f.width = 0;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_ERR_INVALID_ARG);
  f = ok, f.height = 1 << 20;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_ERR_INVALID_ARG);
  f = ok, f.crop_x = 4, f.crop_w = 5, f.crop_h = 2;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "crop"));
  f = ok, f.format = YRT_PIX_NV12, f.stride[0] = 8, f.plane[1] = px + 64, f.stride[1] = 8;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_OK);
  f.crop_x = 1, f.crop_w = 4, f.crop_h = 4;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_ERR_INVALID_ARG); /* odd 4:2:0 crop */
  f.crop_x = 0, f.plane[1] = NULL;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_ERR_INVALID_ARG);
  f = ok, f.color = (yrt_color_range)7;
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_ERR_INVALID_ARG);
  int n = -1;
  yrt_detection d[4];
  assert_int_equal(yrt_session_detect(c->s1, &ok, NULL, NULL, 4, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_session_detect(c->s1, NULL, NULL, d, 4, &n, &err), YRT_ERR_INVALID_ARG);
  /* structs that grow (struct_size): init, 0 (above), inside the old fields, a newer caller's
   * struct with a zero tail (read) or a set one (refused) */
  yrt_frame g;
  g.width = 3; /* init resets every field */
  yrt_frame_init(&g);
  assert_int_equal(g.struct_size, sizeof g);
  assert_int_equal(g.width, 0);
  g.format = ok.format, g.width = 8, g.height = 8, g.plane[0] = px, g.stride[0] = 24;
  assert_int_equal(yrt_session_set_frame(c->s1, &g, NULL, &err), YRT_OK);
  g.struct_size = 4;
  assert_int_equal(yrt_session_set_frame(c->s1, &g, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "struct_size"));
  struct {
    yrt_frame f;
    uint64_t newer[2];
  } big;
  memset(&big, 0, sizeof big);
  big.f = ok;
  big.f.struct_size = sizeof big;
  assert_int_equal(yrt_session_set_frame(c->s1, &big.f, NULL, &err), YRT_OK);
  big.newer[1] = 5;
  assert_int_equal(yrt_session_set_frame(c->s1, &big.f, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "newer"));
  yrt_postprocess_params pp;
  pp.max_detections = 9;
  yrt_postprocess_params_init(&pp);
  assert_int_equal(pp.struct_size, sizeof pp);
  assert_int_equal(pp.max_detections, 300);
  assert_int_equal(yrt_session_detect(c->s1, &ok, &pp, d, 4, &n, &err), YRT_OK);
  pp.struct_size = 2;
  assert_int_equal(yrt_session_detect(c->s1, &ok, &pp, d, 4, &n, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "struct_size"));
  /* a cancel request stops the next run between nodes, once */
  yrt_session_cancel(NULL);
  yrt_session_cancel(c->s1);
  assert_int_equal(yrt_session_run(c->s1, &err), YRT_ERR_CANCELLED);
  assert_non_null(strstr(err.msg, "cancelled"));
  assert_string_equal(yrt_status_name(YRT_ERR_CANCELLED), "YRT_ERR_CANCELLED");
  assert_int_equal(yrt_session_run(c->s1, &err), YRT_OK);
}

/* The val picture every test here uses (a bedroom: bed, chairs, books, a potted plant). */
static void load_picture(yrt_image *im) {
  char path[1024];
  YT_REQUIRE_DATA(path, "data/coco/val/images/000000000632.jpg");
  yrt_error err = {{0}};
  if (yrt_image_load_jpeg(path, im, &err) != YRT_OK) fail_msg("%s: %s", path, err.msg);
}

/* The JPEG path and an NV12 frame of the same picture find the same objects; 1 and 2 threads
 * give the same input bytes; a crop maps boxes back into frame pixels. */
static void test_nv12_matches_jpeg(void **state) {
  ctx *c = *state;
  if (!c->s1) skip();
  yrt_error err = {{0}};
  yrt_image im;
  load_picture(&im);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(c->m, &info), YRT_OK);

  /* JPEG path: PIL-exact letterbox, run, postprocess */
  void *lbs = malloc(yrt_letterbox_scratch_bytes(im.w, im.h, info.input_w, info.input_h));
  assert_non_null(lbs);
  yrt_letterbox lb;
  assert_int_equal(yrt_letterbox_f32(&im, info.input_w, info.input_h, yrt_session_input_nhwc(c->s1, 0),
                                     yrt_session_input_count(c->s1, 0), lbs, &lb, &err),
                   YRT_OK);
  assert_int_equal(yrt_session_run(c->s1, &err), YRT_OK);
  yrt_tensor_view out;
  assert_int_equal(yrt_session_output(c->s1, 0, &out, &err), YRT_OK);
  yrt_postprocess_params pp;
  yrt_postprocess_defaults(&pp);
  void *pps = malloc(yrt_postprocess_scratch_bytes(out.dims[2], pp.max_detections));
  assert_non_null(pps);
  yrt_detection ref[300], got[300];
  int n_ref = 0, n_got = 0;
  assert_int_equal(yrt_postprocess(out.data, out.dims[1] - 4, out.dims[2], &lb, &pp, pps, ref, 300, &n_ref, &err),
                   YRT_OK);
  assert_true(n_ref > 0);

  /* NV12 frame through yrt_session_detect */
  uint8_t *nv12 = rgb_to_nv12(&im);
  yrt_frame f;
  memset(&f, 0, sizeof f);
  f.format = YRT_PIX_NV12, f.width = im.w, f.height = im.h;
  f.plane[0] = nv12, f.stride[0] = (size_t)im.w;
  f.plane[1] = nv12 + (size_t)im.w * im.h, f.stride[1] = 2 * (size_t)((im.w + 1) / 2);
  assert_int_equal(yrt_session_detect(c->s2, &f, &pp, got, 300, &n_got, &err), YRT_OK);
  int matched = 0, strong = 0;
  for (int i = 0; i < n_ref; i++) {
    if (ref[i].score < 0.5f) continue; /* borderline scores may cross the threshold either way */
    strong++;
    for (int k = 0; k < n_got; k++)
      if (got[k].class_id == ref[i].class_id && iou(&ref[i], &got[k]) > 0.9f) {
        matched++;
        assert_non_null(got[k].name);
        break;
      }
  }
  print_message("jpeg path %d detections (%d >= 0.5), nv12 frame %d, matched %d\n", n_ref, strong, n_got, matched);
  assert_true(strong > 0);
  assert_int_equal(matched, strong);

  /* 1 and 2 threads give the same output */
  const size_t nout = out.count;
  float *o1 = malloc(nout * sizeof(float));
  assert_non_null(o1);
  assert_int_equal(yrt_session_set_frame(c->s1, &f, NULL, &err), YRT_OK);
  assert_int_equal(yrt_session_set_frame(c->s2, &f, NULL, &err), YRT_OK);
  assert_int_equal(yrt_session_run(c->s1, &err), YRT_OK);
  assert_int_equal(yrt_session_run(c->s2, &err), YRT_OK);
  yrt_tensor_view v1, v2;
  assert_int_equal(yrt_session_output(c->s1, 0, &v1, &err), YRT_OK);
  assert_int_equal(yrt_session_output(c->s2, 0, &v2, &err), YRT_OK);
  assert_memory_equal(v1.data, v2.data, nout * sizeof(float));

  /* BGRA of the picture == its RGB */
  yrt_frame rf = rgb_frame(&im);
  assert_int_equal(yrt_session_set_frame(c->s1, &rf, NULL, &err), YRT_OK);
  assert_int_equal(yrt_session_run(c->s1, &err), YRT_OK);
  assert_int_equal(yrt_session_output(c->s1, 0, &v1, &err), YRT_OK);
  memcpy(o1, v1.data, nout * sizeof(float));
  const size_t npx = (size_t)im.w * im.h;
  uint8_t *bgra = malloc(npx * 4);
  assert_non_null(bgra);
  for (size_t i = 0; i < npx; i++) {
    const uint8_t *p = im.rgb + 3 * i;
    bgra[4 * i] = p[2], bgra[4 * i + 1] = p[1], bgra[4 * i + 2] = p[0], bgra[4 * i + 3] = 255;
  }
  yrt_frame bf = rf;
  bf.format = YRT_PIX_BGRA8888, bf.plane[0] = bgra, bf.stride[0] = (size_t)im.w * 4;
  assert_int_equal(yrt_session_set_frame(c->s1, &bf, NULL, &err), YRT_OK);
  assert_int_equal(yrt_session_run(c->s1, &err), YRT_OK);
  assert_int_equal(yrt_session_output(c->s1, 0, &v1, &err), YRT_OK);
  assert_memory_equal(o1, v1.data, nout * sizeof(float));

  /* The frame written straight into the int8 input (the input QUANTIZE skipped) equals the float
   * input v / 255 run through the model: an unscaled crop of the input's size makes the resize
   * the identity, so the float values are known exactly. */
  yrt_frame idf = rf;
  idf.crop_x = 0, idf.crop_y = 0, idf.crop_w = info.input_w, idf.crop_h = info.input_h;
  assert_true(im.w >= info.input_w && im.h >= info.input_h);
  assert_int_equal(yrt_session_set_frame(c->s1, &idf, NULL, &err), YRT_OK);
  assert_int_equal(yrt_session_run(c->s1, &err), YRT_OK);
  assert_int_equal(yrt_session_output(c->s1, 0, &v1, &err), YRT_OK);
  memcpy(o1, v1.data, nout * sizeof(float));
  float *in = yrt_session_input_nhwc(c->s1, 0);
  for (int y = 0; y < info.input_h; y++)
    for (int x = 0; x < 3 * info.input_w; x++)
      in[(size_t)y * 3 * info.input_w + x] = (float)im.rgb[(size_t)y * 3 * im.w + x] / 255.0f;
  assert_int_equal(yrt_session_run(c->s1, &err), YRT_OK);
  assert_int_equal(yrt_session_output(c->s1, 0, &v1, &err), YRT_OK);
  assert_memory_equal(o1, v1.data, nout * sizeof(float));

  /* a crop: boxes come back in frame pixels (offset by the crop origin) */
  yrt_frame cf = f;
  cf.crop_x = 2 * (im.w / 8), cf.crop_y = 2 * (im.h / 8), cf.crop_w = im.w - cf.crop_x, cf.crop_h = im.h - cf.crop_y;
  yrt_letterbox clb;
  assert_int_equal(yrt_session_set_frame(c->s1, &cf, &clb, &err), YRT_OK);
  assert_true(clb.offset_x == (float)cf.crop_x && clb.offset_y == (float)cf.crop_y);
  assert_int_equal(clb.src_w, cf.crop_w);
  assert_int_equal(yrt_session_detect(c->s1, &cf, &pp, got, 300, &n_got, &err), YRT_OK);
  for (int k = 0; k < n_got; k++) {
    assert_true(got[k].x0 >= (float)cf.crop_x && got[k].y0 >= (float)cf.crop_y);
    assert_true(got[k].x1 <= (float)im.w && got[k].y1 <= (float)im.h);
  }
  /* class filter inside the decode */
  const int only = ref[0].class_id;
  pp.classes = &only, pp.num_classes = 1;
  assert_int_equal(yrt_session_detect(c->s2, &f, &pp, got, 300, &n_got, &err), YRT_OK);
  assert_true(n_got > 0);
  for (int k = 0; k < n_got; k++) assert_int_equal(got[k].class_id, only);
  free(o1), free(bgra), free(nv12), free(lbs), free(pps);
  yrt_image_free(&im);
}

/* yrt_session_detect's threshold-aware decode (issue 16 item 4): anchors whose best class score
 * cannot pass conf skip DFL and sigmoid, yet the detections equal a full run + yrt_postprocess
 * bit for bit at every threshold; the undecoded columns of output0 show the skip happened. */
static void test_detect_threshold_aware(void **state) {
  ctx *c = *state;
  if (!c->s1) skip();
  yrt_error err = {{0}};
  yrt_image im;
  load_picture(&im);
  uint8_t *nv12 = rgb_to_nv12(&im);
  yrt_frame f;
  memset(&f, 0, sizeof f);
  f.format = YRT_PIX_NV12, f.width = im.w, f.height = im.h;
  f.plane[0] = nv12, f.stride[0] = (size_t)im.w;
  f.plane[1] = nv12 + (size_t)im.w * im.h, f.stride[1] = 2 * (size_t)((im.w + 1) / 2);
  yrt_tensor_view out;
  assert_int_equal(yrt_session_output(c->s1, 0, &out, &err), YRT_OK);
  void *pps = malloc(yrt_postprocess_scratch_bytes(out.dims[2], 0));
  assert_non_null(pps);
  static yrt_detection ref[1000], got[1000];
  const float confs[] = {0.0f, 0.001f, 0.1f, 0.25f, 0.6f, 0.95f, 1.0f};
  for (size_t t = 0; t < sizeof confs / sizeof *confs; t++) {
    yrt_postprocess_params pp;
    yrt_postprocess_defaults(&pp);
    pp.conf_threshold = confs[t];
    pp.max_detections = 1000;
    int n_ref = 0, n_got = 0;
    yrt_session *ss[2] = {c->s1, c->s2};
    for (int k = 0; k < 2; k++) {
      yrt_letterbox lb;
      assert_int_equal(yrt_session_set_frame(ss[k], &f, &lb, &err), YRT_OK);
      assert_int_equal(yrt_session_run(ss[k], &err), YRT_OK);
      assert_int_equal(yrt_session_output(ss[k], 0, &out, &err), YRT_OK);
      assert_int_equal(yrt_postprocess(out.data, out.dims[1] - 4, out.dims[2], &lb, &pp, pps, ref, 1000, &n_ref, &err),
                       YRT_OK);
      for (size_t i = 0; i < out.count; i++) out.data[i] = NAN; /* what the decode leaves stays NaN */
      assert_int_equal(yrt_session_detect(ss[k], &f, &pp, got, 1000, &n_got, &err), YRT_OK);
      size_t undecoded = 0;
      for (size_t i = 0; i < out.count; i++) undecoded += isnan(out.data[i]);
      print_message("conf %.3f, %d thread(s): %d detections, %zu of %zu output0 values not decoded\n",
                    (double)confs[t], k + 1, n_got, undecoded, out.count);
      assert_int_equal(n_got, n_ref);
      for (int i = 0; i < n_ref; i++) {
        assert_true(got[i].class_id == ref[i].class_id && got[i].score == ref[i].score);
        assert_true(got[i].x0 == ref[i].x0 && got[i].y0 == ref[i].y0 && got[i].x1 == ref[i].x1 &&
                    got[i].y1 == ref[i].y1);
      }
      if (confs[t] >= 0.25f) assert_true(undecoded > out.count / 2);
    }
  }
  free(pps), free(nv12);
  yrt_image_free(&im);
}

/* A sensor mounted sideways: the picture stored turned (90 / 180 / 270) or mirrored, with
 * yrt_frame.orientation saying so, gives the upright frame's detections (the input is the same
 * bytes), boxes in the stored frame's pixels. */
static void test_orientation_real(void **state) {
  ctx *c = *state;
  if (!c->s1) skip();
  yrt_error err = {{0}};
  yrt_image im;
  load_picture(&im);
  yrt_frame up = rgb_frame(&im);
  static yrt_detection ref[300], got[300];
  int n_ref = 0, n_got = 0, compared = 0;
  yrt_postprocess_params pp;
  yrt_postprocess_params_init(&pp);
  pp.conf_threshold = 0.05f; /* more boxes to compare */
  assert_int_equal(yrt_session_detect(c->s2, &up, &pp, ref, 300, &n_ref, &err), YRT_OK);
  assert_true(n_ref > 0);
  for (int o = 1; o < 8; o++) {
    const int rot = o & 3, mir = o >> 2;
    yrt_frame f;
    yrt_frame_init(&f);
    f.format = YRT_PIX_RGB888;
    f.width = rot & 1 ? im.h : im.w, f.height = rot & 1 ? im.w : im.h;
    uint8_t *px = store_turned(im.rgb, im.w, im.h, 3, rot, mir, &f.stride[0]);
    f.plane[0] = px, f.plane_bytes[0] = f.stride[0] * (size_t)f.height, f.orientation = o;
    assert_int_equal(yrt_session_detect(c->s2, &f, &pp, got, 300, &n_got, &err), YRT_OK);
    assert_int_equal(n_got, n_ref);
    for (int i = 0; i < n_ref; i++) {
      const yrt_detection e = box_stored(ref[i], rot, mir, im.w, im.h);
      assert_int_equal(got[i].class_id, e.class_id);
      assert_true(got[i].score == e.score);
      assert_true(fabsf(got[i].x0 - e.x0) < 1e-2f && fabsf(got[i].y0 - e.y0) < 1e-2f);
      assert_true(fabsf(got[i].x1 - e.x1) < 1e-2f && fabsf(got[i].y1 - e.y1) < 1e-2f);
      compared++;
    }
    free(px);
  }
  print_message("%d detections, the same under the 7 other orientations (%d compared)\n", n_ref, compared);
  yrt_image_free(&im);
}

static int setup(void **state) {
  ctx *c = calloc(1, sizeof *c);
  if (!c) return -1;
  *state = c;
  return 0;
}
static int teardown(void **state) {
  close_model(*state);
  free(*state);
  return 0;
}

static void test_open(void **state) { open_model(*state, "models/yolo11n-320.qdq.onnx"); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open),
      cmocka_unit_test(test_bad_frames),
      cmocka_unit_test(test_nv12_matches_jpeg),
      cmocka_unit_test(test_detect_threshold_aware),
      cmocka_unit_test(test_orientation_real),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
