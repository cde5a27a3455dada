/* test_frame_camera.c — issue 38 item 4, what a camera integration needs of yrt_frame, on the
 * tiny float mini-YOLO (tests/reliability/rel_models.c, no shared data):
 *   plane sizes: the textbook w * h * 3 / 2 NV12 buffer of an odd height is refused naming
 *   plane[1] and both sizes; every plane one byte short is refused; exact sizes are accepted with
 *   each plane ending where a PROT_NONE page begins (an over-read faults). */
#define _GNU_SOURCE
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
    check_exact_and_short(c, f, &bytes, 1);
  }
  /* a crop still needs the whole frame's planes (the sizes describe the buffer, not the crop) */
  f.crop_x = 2, f.crop_y = 2, f.crop_w = 4, f.crop_h = 4;
  const size_t gray = f.stride[0] * 10 + 13;
  check_exact_and_short(c, f, &gray, 1);
  /* 0: not given (callers built before plane_bytes), not checked */
  uint8_t px[8 * 8 * 3] = {0};
  yrt_frame_init(&f);
  f.format = YRT_PIX_RGB888, f.width = 8, f.height = 8, f.plane[0] = px, f.stride[0] = 24;
  expect_ok(c, &f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plane_sizes),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
