/* test_preprocess_model.c — the converter's side of a model's preprocessing: --preprocess SPEC
 * parsing (good specs, and every kind of bad word refused naming it), the summary saying what
 * was stored and why, and the shared yolo11n-320 converted with "bgr,scale=1,topleft" taking an
 * input that is the default model's input moved to the top-left, its channels reversed and
 * times 255 (the same resized pixels: levels), from both the JPEG and the frame path; the
 * default conversion keeps the default; a SPEC recorded in the ONNX metadata (yolort.preprocess,
 * what yolort-quantize --preprocess writes) is read, a bad one refused, and --preprocess wins. */
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
#include "ir_preprocess.h"
#include "onnx_write.h"
#include "test_data.h"
#include "yolort_image.h"

static void test_parse(void **state) {
  (void)state;
  ir_preprocess p;
  char msg[256];
  assert_int_equal(ir_preprocess_parse("bgr,scale=1,topleft,pad=114", &p, msg, sizeof msg), 0);
  assert_true(p.set && p.bgr && p.top_left && p.scale == 1.0f && p.pad == 114.0f && p.resize == IR_RESIZE_LETTERBOX);
  assert_string_equal(p.why, "--preprocess");
  assert_int_equal(ir_preprocess_parse("rgb,scale=1/255,center,crop,mean=0.485:0.456:0.406,std=0.229:0.224:0.225", &p,
                                       msg, sizeof msg),
                   0);
  assert_true(!p.bgr && !p.top_left && p.scale == 1.0f / 255.0f && p.resize == IR_RESIZE_CROP);
  assert_true(p.mean[1] == 0.456f && p.std[2] == 0.225f && p.pad == 114.0f);
  assert_int_equal(ir_preprocess_parse("stretch", &p, msg, sizeof msg), 0);
  assert_true(p.resize == IR_RESIZE_STRETCH && p.scale == 1.0f / 255.0f && p.std[0] == 1.0f);
  yrt_preprocess r;
  assert_int_equal(ir_preprocess_resolve(&p, &r, msg, sizeof msg), 0);
  char d[160];
  ir_preprocess_describe(&r, d, sizeof d);
  assert_string_equal(d, "RGB, scale 1/255, stretch, pad 114");
  struct {
    const char *spec, *needle;
  } bad[] = {{"bgr,foo", "'foo'"},          {"", "empty"},           {"rgb,bgr", "'bgr'"},
             {"scale=0", "'scale=0'"},      {"scale=abc", "scale"},  {"scale=1/0", "scale"},
             {"pad=256", "'pad=256'"},      {"pad=1.5", "pad"},      {"pad=-1", "pad"},
             {"mean=1:2", "mean"},          {"std=1:0:1", "std"},    {"std=1:2:3:4", "std"},
             {"center,topleft", "topleft"}, {"crop,stretch", "stretch"}, {"BGR", "'BGR'"},
             {"bgr,,scale=1", "''"}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    msg[0] = '\0';
    if (ir_preprocess_parse(bad[k].spec, &p, msg, sizeof msg) == 0) fail_msg("'%s' accepted", bad[k].spec);
    if (!strstr(msg, bad[k].needle)) fail_msg("'%s': message '%s' does not name %s", bad[k].spec, msg, bad[k].needle);
  }
  /* unset fields resolve to the defaults; values the runtime refuses are refused here */
  ir_preprocess u;
  memset(&u, 0, sizeof u);
  u.set = 1, u.bgr = 1, u.pad = 114.0f;
  assert_int_equal(ir_preprocess_resolve(&u, &r, msg, sizeof msg), 0);
  assert_true(r.bgr && r.scale == 1.0f / 255.0f && r.std[0] == 1.0f && r.std[2] == 1.0f);
  u.pad = 300.0f;
  snprintf(u.why, sizeof u.why, "family X");
  assert_int_equal(ir_preprocess_resolve(&u, &r, msg, sizeof msg), -1);
  assert_non_null(strstr(msg, "family X"));
}

typedef struct conv {
  yrt_model *m;
  yrt_session *s;
  yrt_convert_report rep;
} conv;

static void convert(const char *path, const char *spec, conv *c) {
  yrt_error err = {{0}};
  void *buf = NULL;
  size_t size = 0;
  yrt_convert_options o;
  memset(&o, 0, sizeof o);
  ir_preprocess p;
  char msg[256];
  if (spec) {
    if (ir_preprocess_parse(spec, &p, msg, sizeof msg) != 0) fail_msg("%s", msg);
    o.preprocess = &p;
  }
  if (yrt_convert_onnx_file(path, &o, &buf, &size, &c->rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  if (yrt_model_load_memory(buf, size, 1, &c->m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  free(buf);
  yrt_session_options so = {.num_threads = 1};
  if (yrt_session_create(c->m, &so, &c->s, &err) != YRT_OK) fail_msg("session: %s", err.msg);
}

static void test_yolo11n_bgr_topleft(void **state) {
  (void)state;
  char path[1024], jpg[1024];
  YT_REQUIRE_DATA(path, "models/yolo11n-320.onnx");
  YT_REQUIRE_DATA(jpg, "data/coco/val/images/000000000632.jpg");
  conv a, b;
  convert(path, NULL, &a);
  convert(path, "bgr,scale=1,topleft", &b);
  print_message("default: %s (%s)\n--preprocess: %s (%s)\n", a.rep.preprocess, a.rep.preprocess_why, b.rep.preprocess,
                b.rep.preprocess_why);
  assert_string_equal(a.rep.preprocess, "RGB, scale 1/255, centred letterbox, pad 114");
  assert_string_equal(a.rep.preprocess_why, "default");
  assert_string_equal(b.rep.preprocess, "BGR, scale 1, top-left letterbox, pad 114");
  assert_string_equal(b.rep.preprocess_why, "--preprocess");
  yrt_preprocess pa, pb;
  assert_int_equal(yrt_model_get_preprocess(a.m, &pa), YRT_OK);
  assert_int_equal(yrt_model_get_preprocess(b.m, &pb), YRT_OK);
  assert_true(!pa.bgr && !pa.top_left && pa.scale == 1.0f / 255.0f);
  assert_true(pb.bgr && pb.top_left && pb.scale == 1.0f && pb.pad == 114.0f);

  yrt_error err = {{0}};
  yrt_image im;
  assert_int_equal(yrt_image_load_jpeg(jpg, &im, &err), YRT_OK);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(a.m, &info), YRT_OK);
  const int W = info.input_w, H = info.input_h;
  const size_t n = (size_t)W * H * 3;
  void *scratch = malloc(yrt_letterbox_scratch_bytes(im.w, im.h, W, H));
  float *ia = malloc(n * sizeof(float)), *ib = malloc(n * sizeof(float));
  assert_non_null(scratch);
  assert_non_null(ia);
  assert_non_null(ib);
  yrt_letterbox la, lb;
  for (int path_kind = 0; path_kind < 2; path_kind++) { /* 0: JPEG path, 1: frame path */
    if (path_kind == 0) {
      assert_int_equal(yrt_preprocess_f32(&im, &pa, W, H, ia, n, scratch, &la, &err), YRT_OK);
      assert_int_equal(yrt_preprocess_f32(&im, &pb, W, H, ib, n, scratch, &lb, &err), YRT_OK);
    } else {
      yrt_frame f;
      yrt_frame_init(&f);
      f.format = YRT_PIX_RGB888, f.width = im.w, f.height = im.h, f.plane[0] = im.rgb, f.stride[0] = (size_t)im.w * 3;
      assert_int_equal(yrt_session_set_frame(a.s, &f, &la, &err), YRT_OK);
      assert_int_equal(yrt_session_set_frame(b.s, &f, &lb, &err), YRT_OK);
      assert_int_equal(yrt_session_input_count(a.s, 0), n); /* the float model: the frame writes the float input */
      memcpy(ia, yrt_session_input_nhwc(a.s, 0), n * sizeof(float));
      memcpy(ib, yrt_session_input_nhwc(b.s, 0), n * sizeof(float));
    }
    /* same resize, moved: the default's pads, none for the top-left one */
    assert_true(la.ratio == lb.ratio && lb.pad_left == 0.0f && lb.pad_top == 0.0f);
    assert_true(la.pad_left + la.pad_top > 0.0f);
    const int pl = (int)la.pad_left, pt = (int)la.pad_top;
    const double r = fmin((double)W / im.w, (double)H / im.h); /* Ultralytics' letterbox, computed here */
    const int nw = (int)rint(im.w * r), nh = (int)rint(im.h * r);
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int c = 0; c < 3; c++) {
          const float got = ib[((size_t)y * W + x) * 3 + c];
          float want = 114.0f; /* right and bottom padding: level 114 at scale 1 */
          if (x < nw && y < nh) want = (float)lrintf(ia[((size_t)(y + pt) * W + (x + pl)) * 3 + (2 - c)] * 255.0f);
          if (got != want)
            fail_msg("%s path: (%d,%d) ch %d = %g, want %g", path_kind ? "frame" : "JPEG", x, y, c, (double)got,
                     (double)want);
        }
  }
  free(scratch), free(ia), free(ib);
  yrt_image_free(&im);
  yrt_session_free(a.s), yrt_session_free(b.s);
  yrt_model_free(a.m), yrt_model_free(b.m);
}

/* yolo11n-320 with metadata_props yolort.preprocess = spec, converted (with --preprocess opt) */
static yrt_status convert_with_meta(const char *path, const char *spec, const char *opt, yrt_convert_report *rep,
                                    yrt_preprocess *pp, yrt_error *err) {
  Onnx__ModelProto *m = NULL;
  uint8_t *bytes = NULL;
  size_t size = 0;
  ir_graph *g = NULL;
  void *yrt = NULL;
  size_t ysize = 0;
  ir_preprocess p;
  char msg[256];
  yrt_convert_options o;
  memset(&o, 0, sizeof o);
  if (opt) {
    assert_int_equal(ir_preprocess_parse(opt, &p, msg, sizeof msg), 0);
    o.preprocess = &p;
  }
  yrt_status st = onnx_model_load_file(path, &m, err);
  if (!st) assert_int_equal(onnx_model_set_metadata(m, "yolort.preprocess", spec), 0);
  if (!st) st = onnx_model_pack(m, &bytes, &size, err);
  if (!st) st = onnx_read_memory(bytes, size, &g, err);
  if (!st) st = yrt_convert_graph(g, &o, &yrt, &ysize, rep, err);
  yrt_model *ym = NULL;
  if (!st) st = yrt_model_load_memory(yrt, ysize, 1, &ym, err);
  if (!st) st = yrt_model_get_preprocess(ym, pp);
  yrt_model_free(ym);
  free(yrt);
  ir_graph_free(g);
  free(bytes);
  onnx_model_free(m);
  return st;
}

static void test_metadata_key(void **state) {
  (void)state;
  char path[1024];
  YT_REQUIRE_DATA(path, "models/yolo11n-320.onnx");
  yrt_error err = {{0}};
  yrt_convert_report rep;
  yrt_preprocess pp;
  assert_int_equal(convert_with_meta(path, "bgr,scale=1,topleft", NULL, &rep, &pp, &err), YRT_OK);
  assert_true(pp.bgr && pp.top_left && pp.scale == 1.0f);
  assert_string_equal(rep.preprocess_why, "metadata yolort.preprocess");
  assert_int_equal(convert_with_meta(path, "bgr,scale=1,topleft", "rgb,stretch", &rep, &pp, &err), YRT_OK);
  assert_true(!pp.bgr && !pp.top_left && pp.resize == YRT_RESIZE_STRETCH && pp.scale == 1.0f / 255.0f);
  assert_string_equal(rep.preprocess_why, "--preprocess");
  assert_int_equal(convert_with_meta(path, "bgr,sideways", NULL, &rep, &pp, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "yolort.preprocess"));
  assert_non_null(strstr(err.msg, "'sideways'"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse),
      cmocka_unit_test(test_yolo11n_bgr_topleft),
      cmocka_unit_test(test_metadata_key),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
