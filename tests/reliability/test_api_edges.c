/* test_api_edges.c — issue 40 ("Hostile input, round 3") items 8 and 9, the API edges:
 *   8a a garbage struct_size (yrt_session_options, yrt_frame, yrt_postprocess_params) is refused
 *      (over YRT_STRUCT_SIZE_MAX) without reading past the library's own struct: each struct sits
 *      at the end of a page whose next page is PROT_NONE
 *   8b an INT_MAX-wide image: yrt_letterbox_scratch_bytes returns 0 (it wrapped to 128 bytes),
 *      yrt_letterbox_f32 / yrt_preprocess_f32 refuse it before touching memory
 *   8c a frame stride of 2^62 (plane 0, or a chroma plane) is refused naming stride[i]
 *   8d the .yrt header's unknown flag bits (UNSUPPORTED) and reserved words, and the section
 *      records' reserved word (FORMAT), are checked on load
 *   9  yrt_write_file_atomic interrupted by SIGTERM / SIGINT, or failing, leaves no temporary file:
 *      a child is stopped at the write by RLIMIT_FSIZE, whose SIGXFSZ handler raises the signal
 *      (no timing), and the folder is listed after it died
 * docs/reliability.md lists each item. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "file_write.h"
#include "rel_models.h"
#include "yolort_format.h"

static yrt_model *load_kind(rel_model_kind k) {
  void *buf = NULL;
  size_t n = 0;
  yrt_error err;
  if (rel_model_yrt(k, &buf, &n, &err) != YRT_OK) fail_msg("rel_model_yrt(%s): %s", rel_model_name(k), err.msg);
  yrt_model *m = NULL;
  if (yrt_model_load_memory(buf, n, 1, &m, &err) != YRT_OK) fail_msg("load %s: %s", rel_model_name(k), err.msg);
  free(buf);
  return m;
}

static void expect_msg(yrt_status st, yrt_status want, const yrt_error *err, const char *part) {
  assert_int_equal(st, want);
  if (!strstr(err->msg, part)) fail_msg("message '%s' lacks '%s'", err->msg, part);
}

/* ----------------------------------------------------------------- 8a: struct_size */

/* Two pages, the second PROT_NONE: a struct of `bytes` placed to end where the first page ends. */
typedef struct fenced {
  unsigned char *map;
  size_t page;
} fenced;

static void *fence_at_end(fenced *f, size_t bytes) {
  f->page = (size_t)sysconf(_SC_PAGESIZE);
  f->map = mmap(NULL, 2 * f->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(f->map != MAP_FAILED);
  assert_int_equal(mprotect(f->map + f->page, f->page, PROT_NONE), 0);
  /* sizeof of these structs is a multiple of their alignment */
  return f->map + f->page - bytes;
}

static void unfence(fenced *f) { munmap(f->map, 2 * f->page); }

static const size_t garbage_sizes[] = {YRT_STRUCT_SIZE_MAX + 1, SIZE_MAX / 4, SIZE_MAX}; /* 32-bit size_t too */

static void test_struct_size_garbage(void **state) {
  (void)state;
  yrt_model *m = load_kind(REL_MODEL_F32_YOLO);
  yrt_error err;
  for (size_t i = 0; i < sizeof garbage_sizes / sizeof *garbage_sizes; i++) {
    fenced f;
    char want[64];
    snprintf(want, sizeof want, "struct_size %zu is over", garbage_sizes[i]);

    yrt_session_options *o = fence_at_end(&f, sizeof *o);
    yrt_session_options_init(o);
    o->num_threads = 1;
    o->struct_size = garbage_sizes[i];
    yrt_session *s = NULL;
    expect_msg(yrt_session_create(m, o, &s, &err), YRT_ERR_INVALID_ARG, &err, want);
    assert_null(s);
    assert_non_null(strstr(err.msg, "options"));
    unfence(&f);

    yrt_session_options ok;
    yrt_session_options_init(&ok);
    ok.num_threads = 1;
    assert_int_equal(yrt_session_create(m, &ok, &s, &err), YRT_OK);
    static uint8_t px[16 * 16 * 3];
    yrt_frame *fr = fence_at_end(&f, sizeof *fr);
    yrt_frame_init(fr);
    fr->format = YRT_PIX_RGB888;
    fr->width = fr->height = 16;
    fr->plane[0] = px;
    fr->stride[0] = 48;
    assert_int_equal(yrt_session_set_frame(s, fr, NULL, &err), YRT_OK); /* the fenced struct is fine */
    fr->struct_size = garbage_sizes[i];
    expect_msg(yrt_session_set_frame(s, fr, NULL, &err), YRT_ERR_INVALID_ARG, &err, want);
    assert_non_null(strstr(err.msg, "frame"));
    fr->struct_size = sizeof *fr;
    const yrt_frame good = *fr;
    unfence(&f);

    yrt_detection dets[4];
    int nd = -1;
    fenced g;
    yrt_postprocess_params *p = fence_at_end(&g, sizeof *p);
    yrt_postprocess_params_init(p);
    p->struct_size = garbage_sizes[i];
    expect_msg(yrt_session_detect(s, &good, p, dets, 4, &nd, &err), YRT_ERR_INVALID_ARG, &err, want);
    assert_non_null(strstr(err.msg, "params"));
    float out0[6 * 64] = {0};
    yrt_letterbox lb;
    memset(&lb, 0, sizeof lb);
    lb.ratio = 1.0f;
    lb.src_w = lb.src_h = lb.dst_w = lb.dst_h = 16;
    expect_msg(yrt_postprocess(out0, 2, 64, &lb, p, NULL, dets, 4, &nd, &err), YRT_ERR_INVALID_ARG, &err, want);
    unfence(&g);
    yrt_session_free(s);
  }
  yrt_model_free(m);
}

/* The largest size still taken reads the unknown tail (zero), the smallest refused does not. */
static void test_struct_size_limit(void **state) {
  (void)state;
  yrt_model *m = load_kind(REL_MODEL_F32_YOLO);
  yrt_error err;
  unsigned char *big = calloc(1, YRT_STRUCT_SIZE_MAX);
  assert_non_null(big);
  yrt_session_options *o = (yrt_session_options *)(void *)big;
  yrt_session_options_init(o);
  o->num_threads = 1;
  o->struct_size = YRT_STRUCT_SIZE_MAX;
  yrt_session *s = NULL;
  assert_int_equal(yrt_session_create(m, o, &s, &err), YRT_OK);
  yrt_session_free(s);
  big[YRT_STRUCT_SIZE_MAX - 1] = 1; /* a field this library does not know */
  s = NULL;
  expect_msg(yrt_session_create(m, o, &s, &err), YRT_ERR_INVALID_ARG, &err, "does not know");
  free(big);
  yrt_model_free(m);
}

/* Issue 38 item 5: the growable output structs (yrt_model_info, yrt_tensor_view). An older
 * caller's smaller struct (its first version, fenced by a PROT_NONE page) gets exactly its
 * fields; a newer caller's larger struct gets its unknown tail zeroed; a size below the first
 * version or over YRT_STRUCT_SIZE_MAX is refused before anything is written. */
static void test_output_struct_sizes(void **state) {
  (void)state;
  yrt_model *m = load_kind(REL_MODEL_F32_YOLO);
  yrt_model_info ref;
  assert_int_equal(yrt_model_get_info(m, &ref), YRT_OK);
  const size_t info_v1 = offsetof(yrt_model_info, file_bytes) + sizeof(size_t);
  fenced f;
  yrt_model_info *old = fence_at_end(&f, info_v1);
  assert_int_equal(yrt_model_get_info_sized(m, old, info_v1), YRT_OK);
  assert_memory_equal(old, &ref, info_v1);
  unfence(&f);
  unsigned char *big = malloc(sizeof ref + 64);
  assert_non_null(big);
  memset(big, 0xA5, sizeof ref + 64);
  assert_int_equal(yrt_model_get_info_sized(m, (yrt_model_info *)(void *)big, sizeof ref + 64), YRT_OK);
  assert_memory_equal(big, &ref, sizeof ref);
  for (size_t i = sizeof ref; i < sizeof ref + 64; i++) assert_int_equal(big[i], 0);
  memset(big, 0xA5, sizeof ref + 64);
  assert_int_equal(yrt_model_get_info_sized(m, (yrt_model_info *)(void *)big, info_v1 - 1), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_model_get_info_sized(m, (yrt_model_info *)(void *)big, YRT_STRUCT_SIZE_MAX + 1),
                   YRT_ERR_INVALID_ARG);
  assert_int_equal(big[0], 0xA5); /* nothing written */
  /* yrt_tensor_view through yrt_session_output_sized */
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 1;
  yrt_session *s = NULL;
  yrt_error err;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
  const size_t view_v1 = offsetof(yrt_tensor_view, count) + sizeof(size_t);
  yrt_tensor_view *vold = fence_at_end(&f, view_v1);
  assert_int_equal(yrt_session_output_sized(s, 0, vold, view_v1, &err), YRT_OK);
  assert_memory_equal(vold, &v, view_v1);
  unfence(&f);
  expect_msg(yrt_session_output_sized(s, 0, &v, 8, &err), YRT_ERR_INVALID_ARG, &err, "size 8 is outside");
  /* yrt_letterbox: filled by the size the caller passes, read back with a newer caller's unknown
   * tail refused unless zero */
  const size_t lb_v1 = offsetof(yrt_letterbox, ratio_y) + sizeof(float);
  unsigned char lbig[sizeof(yrt_letterbox) + 16];
  memset(lbig, 0xA5, sizeof lbig);
  yrt_frame fr;
  yrt_frame_init(&fr);
  static uint8_t rgb[48 * 32 * 3];
  fr.format = YRT_PIX_RGB888;
  fr.width = 48;
  fr.height = 32;
  fr.plane[0] = rgb;
  fr.stride[0] = 48 * 3;
  yrt_letterbox lb;
  assert_int_equal(yrt_session_set_frame(s, &fr, &lb, &err), YRT_OK);
  assert_int_equal(yrt_session_set_frame_sized(s, &fr, (yrt_letterbox *)(void *)lbig, sizeof lbig, &err), YRT_OK);
  assert_memory_equal(lbig, &lb, sizeof lb);
  for (size_t i = sizeof lb; i < sizeof lbig; i++) assert_int_equal(lbig[i], 0);
  expect_msg(yrt_session_set_frame_sized(s, &fr, &lb, lb_v1 - 4, &err), YRT_ERR_INVALID_ARG, &err, "yrt_letterbox: size");
  float out0[4 + 80];
  memset(out0, 0, sizeof out0);
  yrt_detection dets[4];
  int nd = -1;
  assert_int_equal(yrt_postprocess_sized(out0, 80, 1, (yrt_letterbox *)(void *)lbig, sizeof lbig, NULL, NULL, dets, 4,
                                         &nd, &err),
                   YRT_ERR_INVALID_ARG); /* scratch NULL: refused after the letterbox was read */
  lbig[sizeof lb + 3] = 1; /* a field this library does not know */
  expect_msg(yrt_postprocess_sized(out0, 80, 1, (yrt_letterbox *)(void *)lbig, sizeof lbig, NULL, NULL, dets, 4, &nd,
                                   &err),
             YRT_ERR_INVALID_ARG, &err, "does not know");
  free(big);
  yrt_session_free(s);
  yrt_model_free(m);
}

/* ------------------------------------------------------------- 8b: letterbox sizes */

static void test_letterbox_huge_image(void **state) {
  (void)state;
  assert_int_equal(yrt_letterbox_scratch_bytes(INT_MAX, 480, 640, 640), 0);
  assert_int_equal(yrt_letterbox_scratch_bytes(480, INT_MAX, 640, 640), 0);
  assert_int_equal(yrt_letterbox_scratch_bytes(INT_MAX, INT_MAX, INT_MAX, INT_MAX), 0);
  assert_int_equal(yrt_letterbox_scratch_bytes(65537, 1, 640, 640), 0);
  assert_int_equal(yrt_letterbox_scratch_bytes(640, 640, 65537, 1), 0);
  assert_int_equal(yrt_letterbox_scratch_bytes(-1, 480, 640, 640), 0);
  assert_true(yrt_letterbox_scratch_bytes(65536, 1, 640, 640) > (size_t)640 * 3); /* the limit itself */
  assert_true(yrt_letterbox_scratch_bytes(640, 480, 640, 640) > 0);

  uint8_t px[3] = {1, 2, 3};
  float dst[4 * 4 * 3];
  uint64_t scratch[64]; /* far too small for anything: must not be touched */
  yrt_image img = {INT_MAX, 1, px};
  yrt_letterbox lb;
  yrt_error err;
  expect_msg(yrt_letterbox_f32(&img, 4, 4, dst, 48, scratch, &lb, &err), YRT_ERR_INVALID_ARG, &err,
             "over 65536 pixels per side");
  img.w = 1, img.h = INT_MAX;
  yrt_preprocess pp;
  yrt_preprocess_default(&pp);
  expect_msg(yrt_preprocess_f32(&img, &pp, 4, 4, dst, 48, scratch, &lb, &err), YRT_ERR_INVALID_ARG, &err,
             "yrt_preprocess_f32: image 1x2147483647");
}

/* ------------------------------------------------------------------ 8c: frame strides */

static void test_frame_stride_huge(void **state) {
  (void)state;
  yrt_model *m = load_kind(REL_MODEL_F32_YOLO);
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 1;
  yrt_session *s = NULL;
  yrt_error err;
  assert_int_equal(yrt_session_create(m, &o, &s, &err), YRT_OK);
  static uint8_t px[64 * 64 * 4];
  yrt_frame fr;
  yrt_frame_init(&fr);
  fr.format = YRT_PIX_RGB888;
  fr.width = fr.height = 16;
  fr.plane[0] = px;
  fr.stride[0] = SIZE_MAX / 2;
  expect_msg(yrt_session_set_frame(s, &fr, NULL, &err), YRT_ERR_INVALID_ARG, &err, "stride[0] = ");
  fr.stride[0] = SIZE_MAX;
  expect_msg(yrt_session_set_frame(s, &fr, NULL, &err), YRT_ERR_INVALID_ARG, &err, "stride[0]");
  fr.stride[0] = ((size_t)1 << 30) + 1;
  expect_msg(yrt_session_set_frame(s, &fr, NULL, &err), YRT_ERR_INVALID_ARG, &err, "stride[0]");
  fr.stride[0] = 48;
  assert_int_equal(yrt_session_set_frame(s, &fr, NULL, &err), YRT_OK);

  fr.format = YRT_PIX_NV12; /* the chroma plane's stride */
  fr.plane[1] = px;
  fr.stride[0] = 16;
  fr.stride[1] = SIZE_MAX / 2;
  expect_msg(yrt_session_set_frame(s, &fr, NULL, &err), YRT_ERR_INVALID_ARG, &err, "stride[1]");
  fr.stride[1] = 16;
  assert_int_equal(yrt_session_set_frame(s, &fr, NULL, &err), YRT_OK);
  fr.format = YRT_PIX_I420;
  fr.plane[2] = px;
  fr.stride[1] = 8;
  fr.stride[2] = SIZE_MAX / 2;
  expect_msg(yrt_session_set_frame(s, &fr, NULL, &err), YRT_ERR_INVALID_ARG, &err, "stride[2]");
  yrt_session_free(s);
  yrt_model_free(m);
}

/* ------------------------------------------------- 8d: reserved words and header flags */

static yrt_status load_edited(void (*edit)(uint8_t *img, size_t n), yrt_error *err) {
  void *buf = NULL;
  size_t n = 0;
  if (rel_model_yrt(REL_MODEL_F32_YOLO, &buf, &n, err) != YRT_OK) fail_msg("rel_model_yrt: %s", err->msg);
  edit(buf, n);
  yrt_model *m = NULL;
  const yrt_status st = yrt_model_load_memory(buf, n, 1, &m, err);
  yrt_model_free(m);
  free(buf);
  return st;
}

static void edit_none(uint8_t *img, size_t n) { (void)img, (void)n; }
static void edit_flag_bit20(uint8_t *img, size_t n) {
  (void)n;
  yrt_file_header h;
  memcpy(&h, img, sizeof h);
  h.flags |= 1u << 20;
  memcpy(img, &h, sizeof h);
}
static void edit_flag_bit6(uint8_t *img, size_t n) { /* the lowest bit no runtime knows yet */
  (void)n;
  yrt_file_header h;
  memcpy(&h, img, sizeof h);
  h.flags |= 1u << 6;
  memcpy(img, &h, sizeof h);
}
static void edit_flag_packed(uint8_t *img, size_t n) { /* PACKED said, no such section */
  (void)n;
  yrt_file_header h;
  memcpy(&h, img, sizeof h);
  h.flags |= YRT_FLAG_PACKED;
  memcpy(img, &h, sizeof h);
}
static void edit_header_reserved3(uint8_t *img, size_t n) {
  (void)n;
  yrt_file_header h;
  memcpy(&h, img, sizeof h);
  h.reserved[3] = 7;
  memcpy(img, &h, sizeof h);
}
static void edit_section_reserved(uint8_t *img, size_t n) {
  yrt_file_header h;
  memcpy(&h, img, sizeof h);
  yrt_section_rec r;
  const size_t at = (size_t)h.section_table_offset + 2 * sizeof r; /* the third record */
  memcpy(&r, img + at, sizeof r);
  r.reserved = 1;
  memcpy(img + at, &r, sizeof r);
  yrt_file_seal(img, n); /* the table is under the CRC: only the reserved word is wrong */
}

static void test_format_reserved_and_flags(void **state) {
  (void)state;
  yrt_error err;
  assert_int_equal(load_edited(edit_none, &err), YRT_OK);
  expect_msg(load_edited(edit_flag_bit20, &err), YRT_ERR_UNSUPPORTED, &err, "(0x100000)");
  expect_msg(load_edited(edit_flag_bit6, &err), YRT_ERR_UNSUPPORTED, &err, "(0x40)");
  expect_msg(load_edited(edit_flag_packed, &err), YRT_ERR_FORMAT, &err, "flag PACKED is 1 but the file lacks");
  expect_msg(load_edited(edit_header_reserved3, &err), YRT_ERR_FORMAT, &err, "header reserved[3] = 0x7");
  expect_msg(load_edited(edit_section_reserved, &err), YRT_ERR_FORMAT, &err, "section 2");
  assert_non_null(strstr(err.msg, "reserved = 0x1"));

  /* what the converter writes: every reserved word 0, only known flags */
  for (int k = 0; k < REL_MODEL_COUNT; k++) {
    void *buf = NULL;
    size_t n = 0;
    if (rel_model_yrt((rel_model_kind)k, &buf, &n, &err) != YRT_OK) fail_msg("rel_model_yrt: %s", err.msg);
    yrt_file_header h;
    memcpy(&h, buf, sizeof h);
    assert_int_equal(h.flags & ~(uint32_t)YRT_FLAG_KNOWN_, 0);
    for (int i = 0; i < 7; i++) assert_int_equal(h.reserved[i], 0);
    for (uint32_t i = 0; i < h.n_sections; i++) {
      yrt_section_rec r;
      memcpy(&r, (uint8_t *)buf + h.section_table_offset + i * sizeof r, sizeof r);
      assert_int_equal(r.reserved, 0);
    }
    free(buf);
  }
}

/* ------------------------------------------------------ 9: no temporary file left behind */

static void make_dir(char *dir, size_t cap) {
  snprintf(dir, cap, "%s/yrt_edges_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  assert_non_null(mkdtemp(dir));
}

/* Entries of dir other than . and .., their names into names (for the message). */
static int count_entries(const char *dir, char *names, size_t cap) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  names[0] = '\0';
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    n++;
    strncat(names, e->d_name, cap - strlen(names) - 2);
    strncat(names, " ", cap - strlen(names) - 1);
  }
  closedir(d);
  return n;
}

static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char p[4200];
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  closedir(d);
  rmdir(dir);
}

/* The signal to raise when the write hits the file size limit (0: SIGXFSZ ignored, the write fails). */
static int child_raise;
static void on_xfsz(int sig) {
  (void)sig;
  raise(child_raise);
}

/* Child: a 4 MiB atomic write stopped at 64 KiB by RLIMIT_FSIZE; exits 3 if the write returned. */
static void child_write(const char *path, int sig) {
  struct rlimit rl = {65536, 65536};
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(10);
  child_raise = sig;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = sig ? on_xfsz : SIG_IGN;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGXFSZ, &sa, NULL) != 0) _exit(11);
  const size_t n = (size_t)4 << 20;
  uint8_t *data = malloc(n);
  if (!data) _exit(12);
  memset(data, 0x5a, n);
  yrt_error err;
  const yrt_status st = yrt_write_file_atomic(path, data, n, &err);
  free(data);
  if (st == YRT_ERR_IO && strstr(err.msg, path)) _exit(3); /* failed, named the path */
  _exit(st == YRT_OK ? 4 : 5);
}

static void run_interrupted(int sig, int existing) {
  char dir[4096], path[4200], names[1024];
  make_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/out.yrt", dir);
  if (existing) {
    yrt_error err;
    assert_int_equal(yrt_write_file_atomic(path, "old", 3, &err), YRT_OK);
  }
  const pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) child_write(path, sig);
  int status = 0;
  pid_t w;
  do w = waitpid(pid, &status, 0);
  while (w < 0 && errno == EINTR);
  assert_int_equal(w, pid);
  if (sig) {
    if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
      fail_msg("child: %s %d, want killed by signal %d", WIFSIGNALED(status) ? "signal" : "exit",
               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), sig);
  } else {
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 3);
  }
  const int n = count_entries(dir, names, sizeof names);
  if (n != existing) {
    remove_dir(dir); /* not left in TMPDIR by a failing run either */
    fail_msg("left in %s: %s(want %d entries)", dir, names, existing);
  }
  if (existing) { /* the old file intact */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char b[8] = {0};
    assert_int_equal(fread(b, 1, sizeof b, f), 3);
    fclose(f);
    assert_memory_equal(b, "old", 3);
  }
  remove_dir(dir);
}

static void test_atomic_write_sigterm(void **state) {
  (void)state;
  run_interrupted(SIGTERM, 0);
  run_interrupted(SIGTERM, 1);
}

static void test_atomic_write_sigint(void **state) {
  (void)state;
  run_interrupted(SIGINT, 0);
  run_interrupted(SIGHUP, 1);
}

static void test_atomic_write_failure(void **state) {
  (void)state;
  run_interrupted(0, 0);
  run_interrupted(0, 1);
}

/* A write that succeeds puts the caller's handlers and signal mask back. */
static void on_term_noop(int sig) { (void)sig; }
static void test_atomic_write_restores_handlers(void **state) {
  (void)state;
  struct sigaction mine, before, after;
  memset(&mine, 0, sizeof mine);
  mine.sa_handler = on_term_noop;
  sigemptyset(&mine.sa_mask);
  assert_int_equal(sigaction(SIGTERM, &mine, &before), 0);
  sigset_t m0, m1;
  sigprocmask(SIG_SETMASK, NULL, &m0);
  char dir[4096], path[4200], names[256];
  make_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/x.bin", dir);
  yrt_error err;
  assert_int_equal(yrt_write_file_atomic(path, "abc", 3, &err), YRT_OK);
  assert_int_equal(sigaction(SIGTERM, &before, &after), 0);
  assert_ptr_equal((void *)after.sa_handler, (void *)on_term_noop);
  sigprocmask(SIG_SETMASK, NULL, &m1);
  assert_int_equal(sigismember(&m1, SIGTERM), sigismember(&m0, SIGTERM));
  assert_int_equal(sigismember(&m1, SIGINT), sigismember(&m0, SIGINT));
  assert_int_equal(count_entries(dir, names, sizeof names), 1);
  remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_struct_size_garbage),
      cmocka_unit_test(test_struct_size_limit),
      cmocka_unit_test(test_output_struct_sizes),
      cmocka_unit_test(test_letterbox_huge_image),
      cmocka_unit_test(test_frame_stride_huge),
      cmocka_unit_test(test_format_reserved_and_flags),
      cmocka_unit_test(test_atomic_write_sigterm),
      cmocka_unit_test(test_atomic_write_sigint),
      cmocka_unit_test(test_atomic_write_failure),
      cmocka_unit_test(test_atomic_write_restores_handlers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
