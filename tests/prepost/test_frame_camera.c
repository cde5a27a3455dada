/* test_frame_camera.c — issue 38 item 4, what a camera integration needs of yrt_frame, on the
 * tiny float mini-YOLO (tests/reliability/rel_models.c, no shared data):
 *   plane sizes: the textbook w * h * 3 / 2 NV12 buffer of an odd height is refused naming
 *   plane[1] and both sizes; every plane one byte short is refused; exact sizes are accepted with
 *   each plane ending where a PROT_NONE page begins (an over-read faults);
 *   orientation: a frame stored turned (90 / 180 / 270) or mirrored, each plane rewritten here,
 *   gives the network input bit-identical to the upright frame's (RGB, BGRA, NV12, I420, GRAY,
 *   whole and cropped) and yrt_session_detect's boxes equal the upright ones mapped into the
 *   stored frame; odd 4:2:0 sides along a reversed axis and bad orientations are refused. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "rel_models.h"
#include "yt_orient.h"

typedef struct ctx {
  yrt_model *m;
  yrt_session *s;
} ctx;

static int setup(void **state) {
  ctx *c = calloc(1, sizeof *c);
  if (!c) return -1;
  void *buf = NULL;
  size_t n = 0;
  yrt_error err;
  if (rel_model_yrt(REL_MODEL_F32_YOLO, &buf, &n, &err) != YRT_OK) return -1;
  const yrt_status st = yrt_model_load_memory(buf, n, 1, &c->m, &err);
  free(buf);
  if (st != YRT_OK) return -1;
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 1;
  if (yrt_session_create(c->m, &o, &c->s, &err) != YRT_OK) return -1;
  *state = c;
  return 0;
}

static int teardown(void **state) {
  ctx *c = *state;
  yrt_session_free(c->s);
  yrt_model_free(c->m);
  free(c);
  return 0;
}

/* `bytes` of memory ending where a PROT_NONE page begins, filled with a pattern. */
typedef struct fenced {
  unsigned char *map;
  size_t len;
} fenced;

static uint8_t *fence_end(fenced *f, size_t bytes) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t data = (bytes + page - 1) / page * page;
  f->len = data + page;
  f->map = mmap(NULL, f->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(f->map != MAP_FAILED);
  assert_int_equal(mprotect(f->map + data, page, PROT_NONE), 0);
  uint8_t *p = f->map + data - bytes;
  for (size_t i = 0; i < bytes; i++) p[i] = (uint8_t)(i * 37 + 11);
  return p;
}

static void unfence(fenced *f) { munmap(f->map, f->len); }

static void expect_refused(ctx *c, const yrt_frame *f, const char *part) {
  yrt_error err = {{0}};
  assert_int_equal(yrt_session_set_frame(c->s, f, NULL, &err), YRT_ERR_INVALID_ARG);
  if (!strstr(err.msg, part)) fail_msg("message '%s' lacks '%s'", err.msg, part);
}

static void expect_ok(ctx *c, const yrt_frame *f) {
  yrt_error err = {{0}};
  if (yrt_session_set_frame(c->s, f, NULL, &err) != YRT_OK) fail_msg("refused: %s", err.msg);
  int n = 0;
  yrt_detection d[8];
  if (yrt_session_detect(c->s, f, NULL, d, 8, &n, &err) != YRT_OK) fail_msg("detect: %s", err.msg);
}

/* Each plane of f in its own fenced buffer of exactly `bytes[p]`, then run; with each one byte
 * short, refused naming that plane. */
static void check_exact_and_short(ctx *c, yrt_frame f, const size_t *bytes, int planes) {
  fenced fe[3];
  for (int p = 0; p < planes; p++) {
    f.plane[p] = fence_end(&fe[p], bytes[p]);
    f.plane_bytes[p] = bytes[p];
  }
  expect_ok(c, &f);
  for (int p = 0; p < planes; p++) {
    yrt_frame g = f;
    g.plane_bytes[p] = bytes[p] - 1;
    char want[96];
    snprintf(want, sizeof want, "plane[%d] holds %zu bytes, %zu needed", p, bytes[p] - 1, bytes[p]);
    expect_refused(c, &g, want);
  }
  for (int p = 0; p < planes; p++) unfence(&fe[p]);
}

static void test_plane_sizes(void **state) {
  ctx *c = *state;
  yrt_frame f;
  yrt_frame_init(&f);
  /* NV12 17x9 with stride 18: Y 9 rows, UV (9 + 1) / 2 = 5 rows of 2 * 9 = 18 bytes */
  f.format = YRT_PIX_NV12, f.width = 17, f.height = 9, f.stride[0] = 18, f.stride[1] = 18;
  const size_t nv12[2] = {18 * 8 + 17, 18 * 4 + 18};
  check_exact_and_short(c, f, nv12, 2);
  /* the textbook single buffer of w * h * 3 / 2 bytes on an odd height: one chroma row short */
  f.width = 16, f.stride[0] = f.stride[1] = 16;
  const size_t textbook = 16 * 9 * 3 / 2;
  fenced fe;
  uint8_t *buf = fence_end(&fe, textbook);
  f.plane[0] = buf, f.plane_bytes[0] = 16 * 9;
  f.plane[1] = buf + 16 * 9, f.plane_bytes[1] = textbook - 16 * 9;
  expect_refused(c, &f, "plane[1] holds 72 bytes, 80 needed");
  unfence(&fe);
  /* I420 15x7: chroma 8 wide, 4 rows; planes with padded strides */
  yrt_frame_init(&f);
  f.format = YRT_PIX_I420, f.width = 15, f.height = 7, f.stride[0] = 16, f.stride[1] = 9, f.stride[2] = 8;
  const size_t i420[3] = {16 * 6 + 15, 9 * 3 + 8, 8 * 3 + 8};
  check_exact_and_short(c, f, i420, 3);
  /* packed and gray: height rows of width x bytes per pixel, the last without its padding */
  const struct {
    yrt_pixel_format fmt;
    int bpp;
  } packed[] = {{YRT_PIX_RGB888, 3}, {YRT_PIX_BGRA8888, 4}, {YRT_PIX_GRAY8, 1}};
  for (size_t i = 0; i < sizeof packed / sizeof *packed; i++) {
    yrt_frame_init(&f);
    f.format = packed[i].fmt, f.width = 13, f.height = 11;
    f.stride[0] = (size_t)13 * packed[i].bpp + 5;
    const size_t bytes = f.stride[0] * 10 + (size_t)13 * packed[i].bpp;
    for (int o = 0; o < 8; o++) { /* turned and mirrored reads stay inside too */
      f.orientation = o;
      check_exact_and_short(c, f, &bytes, 1);
    }
    f.orientation = 0;
  }
  /* a crop still needs the whole frame's planes (the sizes describe the buffer, not the crop) */
  f.crop_x = 2, f.crop_y = 2, f.crop_w = 4, f.crop_h = 4;
  const size_t gray = f.stride[0] * 10 + 13;
  check_exact_and_short(c, f, &gray, 1);
  /* an even NV12, turned: the chroma plane read backwards ends at the page too */
  yrt_frame_init(&f);
  f.format = YRT_PIX_NV12, f.width = 18, f.height = 10, f.stride[0] = 18, f.stride[1] = 18;
  const size_t nv12e[2] = {18 * 10, 18 * 5};
  for (int o = 1; o < 8; o += 2) {
    f.orientation = o;
    check_exact_and_short(c, f, nv12e, 2);
  }
  /* 0: not given (callers built before plane_bytes), not checked */
  uint8_t px[8 * 8 * 3] = {0};
  yrt_frame_init(&f);
  f.format = YRT_PIX_RGB888, f.width = 8, f.height = 8, f.plane[0] = px, f.stride[0] = 24;
  expect_ok(c, &f);
}

/* ------------------------------------------------------------------------------ orientation */

typedef struct upright {
  yrt_pixel_format fmt;
  int w, h, planes;
  int pw[3], ph[3], pb[3];
  uint8_t *p[3];
} upright;

/* A smooth picture with a few sharp blobs (something for the mini model to score), in fmt. */
static void make_upright(upright *u, yrt_pixel_format fmt, int w, int h) {
  memset(u, 0, sizeof *u);
  u->fmt = fmt, u->w = w, u->h = h;
  const int yuv = fmt == YRT_PIX_NV12 || fmt == YRT_PIX_I420;
  const int bpp = fmt == YRT_PIX_RGB888 ? 3 : fmt == YRT_PIX_BGRA8888 ? 4 : 1;
  u->planes = fmt == YRT_PIX_I420 ? 3 : yuv ? 2 : 1;
  u->pw[0] = w, u->ph[0] = h, u->pb[0] = bpp;
  for (int q = 1; q < u->planes; q++)
    u->pw[q] = (w + 1) / 2, u->ph[q] = (h + 1) / 2, u->pb[q] = fmt == YRT_PIX_NV12 ? 2 : 1;
  for (int q = 0; q < u->planes; q++) {
    const size_t n = (size_t)u->pw[q] * (size_t)u->ph[q] * (size_t)u->pb[q];
    u->p[q] = malloc(n);
    assert_non_null(u->p[q]);
    for (int y = 0; y < u->ph[q]; y++)
      for (int x = 0; x < u->pw[q]; x++)
        for (int c = 0; c < u->pb[q]; c++) {
          int v = (x * (5 + 3 * c) + y * (7 + q)) % 200 + 20 + 30 * c;
          if ((x / 5 + y / 7) % 3 == 0) v = 255 - v; /* blocks: edges the convs see */
          u->p[q][((size_t)y * (size_t)u->pw[q] + (size_t)x) * (size_t)u->pb[q] + (size_t)c] = (uint8_t)v;
        }
  }
}

static void free_upright(upright *u) {
  for (int q = 0; q < 3; q++) free(u->p[q]);
}

/* The frame of u stored turned by o (planes malloc'ed into bufs, tight strides). */
static yrt_frame stored_frame(const upright *u, int o, uint8_t **bufs) {
  yrt_frame f;
  yrt_frame_init(&f);
  const int rot = o & 3, mir = o >> 2;
  f.format = u->fmt;
  f.width = rot & 1 ? u->h : u->w, f.height = rot & 1 ? u->w : u->h;
  for (int q = 0; q < u->planes; q++) {
    bufs[q] = store_turned(u->p[q], u->pw[q], u->ph[q], u->pb[q], rot, mir, &f.stride[q]);
    f.plane[q] = bufs[q];
    f.plane_bytes[q] = f.stride[q] * (size_t)(rot & 1 ? u->pw[q] : u->ph[q]);
  }
  f.orientation = o;
  return f;
}

static void test_orientation(void **state) {
  ctx *c = *state;
  const size_t count = yrt_session_input_count(c->s, 0);
  assert_true(count > 0);
  float *want = malloc(count * sizeof *want);
  assert_non_null(want);
  yrt_postprocess_params pp;
  yrt_postprocess_params_init(&pp);
  pp.conf_threshold = 0.05f;
  static const yrt_pixel_format fmts[] = {YRT_PIX_RGB888, YRT_PIX_BGRA8888, YRT_PIX_NV12, YRT_PIX_I420,
                                          YRT_PIX_GRAY8};
  static const int sizes[][2] = {{40, 24}, {23, 37}, {64, 64}};
  int compared = 0;
  for (size_t fi = 0; fi < sizeof fmts / sizeof *fmts; fi++)
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
      const int yuv = fmts[fi] == YRT_PIX_NV12 || fmts[fi] == YRT_PIX_I420;
      if (yuv && ((sizes[si][0] | sizes[si][1]) & 1)) continue; /* odd 4:2:0 below */
      upright u;
      make_upright(&u, fmts[fi], sizes[si][0], sizes[si][1]);
      uint8_t *ub[3] = {NULL, NULL, NULL};
      const yrt_frame up = stored_frame(&u, 0, ub);
      yrt_error err = {{0}};
      yrt_detection d0[64], d1[64];
      int n0 = 0, n1 = 0;
      if (yrt_session_detect(c->s, &up, &pp, d0, 64, &n0, &err) != YRT_OK) fail_msg("upright: %s", err.msg);
      assert_int_equal(yrt_session_set_frame(c->s, &up, NULL, &err), YRT_OK);
      memcpy(want, yrt_session_input_nhwc(c->s, 0), count * sizeof *want);
      for (int o = 1; o < 8; o++) {
        uint8_t *sb[3] = {NULL, NULL, NULL};
        const yrt_frame f = stored_frame(&u, o, sb);
        if (yrt_session_set_frame(c->s, &f, NULL, &err) != YRT_OK) fail_msg("orientation %d: %s", o, err.msg);
        if (memcmp(want, yrt_session_input_nhwc(c->s, 0), count * sizeof *want) != 0)
          fail_msg("format %d %dx%d orientation %d: input differs from the upright frame's", (int)u.fmt, u.w, u.h, o);
        if (yrt_session_detect(c->s, &f, &pp, d1, 64, &n1, &err) != YRT_OK) fail_msg("detect %d: %s", o, err.msg);
        assert_int_equal(n0, n1);
        for (int i = 0; i < n0; i++) {
          const yrt_detection e = box_stored(d0[i], o & 3, o >> 2, u.w, u.h);
          assert_int_equal(d1[i].class_id, e.class_id);
          assert_true(d1[i].score == e.score);
          if (fabsf(d1[i].x0 - e.x0) > 1e-3f || fabsf(d1[i].y0 - e.y0) > 1e-3f || fabsf(d1[i].x1 - e.x1) > 1e-3f ||
              fabsf(d1[i].y1 - e.y1) > 1e-3f)
            fail_msg("orientation %d box %d: %g,%g,%g,%g, want %g,%g,%g,%g", o, i, (double)d1[i].x0, (double)d1[i].y0,
                     (double)d1[i].x1, (double)d1[i].y1, (double)e.x0, (double)e.y0, (double)e.x1, (double)e.y1);
          compared++;
        }
        for (int q = 0; q < 3; q++) free(sb[q]);
      }
      for (int q = 0; q < 3; q++) free(ub[q]);
      free_upright(&u);
    }
  print_message("%d boxes compared across orientations\n", compared);
  assert_true(compared > 0);
  free(want);
}

/* A crop of the stored frame is a crop of the upright one: the same input as the upright frame
 * cropped where that region lands, boxes back in stored pixels with the crop offset. */
static void test_orientation_crop(void **state) {
  ctx *c = *state;
  const size_t count = yrt_session_input_count(c->s, 0);
  float *want = malloc(count * sizeof *want);
  assert_non_null(want);
  upright u;
  make_upright(&u, YRT_PIX_NV12, 48, 32);
  uint8_t *ub[3] = {NULL, NULL, NULL};
  yrt_frame up = stored_frame(&u, 0, ub);
  yrt_error err = {{0}};
  for (int o = 1; o < 8; o++) {
    const int rot = o & 3, mir = o >> 2;
    /* upright crop [ux, ux + cw) x [uy, uy + ch), even; its stored rectangle by two corners */
    const int ux = 6, uy = 4, cw = 30, ch = 20;
    up.crop_x = ux, up.crop_y = uy, up.crop_w = cw, up.crop_h = ch;
    assert_int_equal(yrt_session_set_frame(c->s, &up, NULL, &err), YRT_OK);
    memcpy(want, yrt_session_input_nhwc(c->s, 0), count * sizeof *want);
    uint8_t *sb[3] = {NULL, NULL, NULL};
    yrt_frame f = stored_frame(&u, o, sb);
    int xa, ya, xb, yb;
    stored_of(rot, mir, u.w, u.h, ux, uy, &xa, &ya);
    stored_of(rot, mir, u.w, u.h, ux + cw - 1, uy + ch - 1, &xb, &yb);
    f.crop_x = xa < xb ? xa : xb, f.crop_y = ya < yb ? ya : yb;
    f.crop_w = abs(xb - xa) + 1, f.crop_h = abs(yb - ya) + 1;
    if (yrt_session_set_frame(c->s, &f, NULL, &err) != YRT_OK) fail_msg("orientation %d: %s", o, err.msg);
    if (memcmp(want, yrt_session_input_nhwc(c->s, 0), count * sizeof *want) != 0)
      fail_msg("orientation %d: the cropped input differs from the upright crop's", o);
    /* a box over the whole upright crop maps onto the stored crop */
    yrt_detection d = {0, 0, (float)cw, (float)ch, 1, 0, NULL};
    assert_int_equal(yrt_frame_map_detections(&f, &d, 1, &err), YRT_OK);
    assert_true(d.x0 == (float)f.crop_x && d.y0 == (float)f.crop_y);
    assert_true(d.x1 == (float)(f.crop_x + f.crop_w) && d.y1 == (float)(f.crop_y + f.crop_h));
    for (int q = 0; q < 3; q++) free(sb[q]);
  }
  /* refusals: an odd 4:2:0 side along a reversed axis, a bad orientation */
  up.crop_x = up.crop_y = up.crop_w = up.crop_h = 0;
  yrt_frame g = up;
  g.height = 31, g.plane_bytes[0] = g.plane_bytes[1] = 0, g.orientation = YRT_ORIENT_180;
  expect_refused(c, &g, "odd side");
  g.orientation = YRT_ORIENT_MIRROR; /* reverses x only: 48 is even */
  yrt_error e2;
  assert_int_equal(yrt_session_set_frame(c->s, &g, NULL, &e2), YRT_OK);
  g.orientation = 8;
  expect_refused(c, &g, "orientation 8");
  g.orientation = -1;
  expect_refused(c, &g, "orientation -1");
  yrt_detection d = {0, 0, 1, 1, 1, 0, NULL};
  assert_int_equal(yrt_frame_map_detections(&g, &d, 1, &e2), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_frame_map_detections(NULL, &d, 1, &e2), YRT_ERR_INVALID_ARG);
  for (int q = 0; q < 3; q++) free(ub[q]);
  free_upright(&u);
  free(want);
}

/* Per-class thresholds through yrt_session_detect (the threshold-aware decode's pre-filter is
 * the lowest of them): equal to filtering a low-threshold run's detections class by class, before
 * NMS; a wrong count refused. */
static void test_class_conf_detect(void **state) {
  ctx *c = *state;
  upright u;
  make_upright(&u, YRT_PIX_RGB888, 64, 48);
  uint8_t *ub[3] = {NULL, NULL, NULL};
  const yrt_frame f = stored_frame(&u, 0, ub);
  yrt_model_info info;
  yrt_error err = {{0}};
  assert_int_equal(yrt_model_get_info(c->m, &info), YRT_OK);
  const int nc = info.num_classes;
  assert_true(nc >= 2 && nc <= 16);
  yrt_postprocess_params pp;
  yrt_postprocess_params_init(&pp);
  pp.iou_threshold = 1.0f; /* no suppression: the sets compare one to one */
  yrt_detection all[256], some[256];
  int na = 0, ns = 0;
  pp.conf_threshold = 0.02f;
  assert_int_equal(yrt_session_detect(c->s, &f, &pp, all, 256, &na, &err), YRT_OK);
  float thr[16];
  /* each class at the mean of its scores (the mini model scores high), the others' below it */
  for (int k = 0; k < nc; k++) {
    double sum = 0;
    int cnt = 0;
    for (int i = 0; i < na; i++)
      if (all[i].class_id == k) sum += all[i].score, cnt++;
    thr[k] = cnt ? (float)(sum / cnt) : 0.02f;
  }
  pp.conf_threshold = 0.9f;                                     /* replaced by class_conf */
  pp.class_conf = thr, pp.num_class_conf = nc;
  assert_int_equal(yrt_session_detect(c->s, &f, &pp, some, 256, &ns, &err), YRT_OK);
  int want = 0;
  for (int i = 0; i < na; i++)
    if (all[i].score > thr[all[i].class_id]) {
      assert_true(want < ns);
      assert_memory_equal(&some[want], &all[i], sizeof all[i]);
      want++;
    }
  assert_int_equal(ns, want);
  print_message("%d of %d detections pass their class's threshold\n", ns, na);
  assert_true(na > ns && ns > 0);
  pp.num_class_conf = nc + 1;
  assert_int_equal(yrt_session_detect(c->s, &f, &pp, some, 256, &ns, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "num_class_conf"));
  for (int q = 0; q < 3; q++) free(ub[q]);
  free_upright(&u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plane_sizes),
      cmocka_unit_test(test_orientation),
      cmocka_unit_test(test_orientation_crop),
      cmocka_unit_test(test_class_conf_detect),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
