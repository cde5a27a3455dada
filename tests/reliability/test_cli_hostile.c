/* test_cli_hostile.c — issue 40 ("Hostile input, round 3"), the command-line items, through the
 * programs on generated models and images (rel_models.c, yrt_image_save_jpeg):
 *   3 FIFOs and other non-regular files given as a model, an image, a calibration JPEG or a label
 *     file: a clear error naming the path, never a hang in open()
 *   4 an output that is the same file as an input (or as another output), by any name (a hard
 *     link, a symlink): refused with exit 2 before anything is written, the input intact
 *   6 yolort-eval with a labels folder that does not exist (mAP 0.0000, exit 0 before), matches no image, or whose
 *     path is longer than the 1,200-byte buffer that cut it (the same)
 *   7 class names and paths with invalid UTF-8 or control bytes: valid JSON (U+FFFD, escapes, no
 *     inf / nan), and no raw control byte on the terminal; results written to a closed stdout, a
 *     full device or a path that cannot be created: a non-zero exit naming the failure, every program
 * Each program runs under timeout(1) so a regression fails the test instead of hanging ctest;
 * no assertion is made on the time itself. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "file_write.h"
#include "onnx_write.h"
#include "ir.h"
#include "convert.h"
#include "rel_models.h"
#include "text_out.h"
#include "yolort_image.h"

static const char *emulator(void) {
  const char *e = getenv("YOLORT_EMULATOR");
  return e ? e : "";
}

/* Runs "EXE ARGS" (stderr merged into out, then redir applied) under a 120 s hang guard; the exit status, -1 on a
 * signal, 124 when the guard fired. */
static int run_tool_redir(const char *exe, const char *args, const char *redir, char *out, size_t cap) {
  char cmd[8300];
  snprintf(cmd, sizeof cmd, "timeout 120 %s '%s' %s 2>&1 %s", emulator(), exe, args, redir);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = '\0';
  const int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run_tool(const char *exe, const char *args, char *out, size_t cap) {
  return run_tool_redir(exe, args, "", out, cap);
}

/* The program must fail (not hang, not succeed) and say msg_part. */
static void expect_fails(const char *exe, const char *args, const char *msg_part) {
  static char out[1 << 15];
  const int rc = run_tool(exe, args, out, sizeof out);
  if (rc == 124) fail_msg("%s %s hung (killed by the guard)", exe, args);
  if (rc == 0 || rc < 0) fail_msg("%s %s -> exit %d, want a failure; output:\n%s", exe, args, rc, out);
  if (msg_part && !strstr(out, msg_part)) fail_msg("%s %s: output lacks '%s':\n%s", exe, args, msg_part, out);
}

static void expect_ok(const char *exe, const char *args, char *out, size_t cap) {
  const int rc = run_tool(exe, args, out, cap);
  if (rc != 0) fail_msg("%s %s -> exit %d, want 0; output:\n%s", exe, args, rc, out);
}

/* A scratch folder of its own: model.yrt, model.onnx, imgs/a.jpg, labels/a.txt, calib/a.jpg. */
typedef struct scratch {
  char dir[1024];
} scratch;

static void path_in(const scratch *s, const char *name, char *out, size_t cap) {
  snprintf(out, cap, "%s/%s", s->dir, name);
}

static void write_jpeg(const char *path) {
  uint8_t px[40 * 30 * 3];
  for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i * 7);
  yrt_image im = {40, 30, px};
  yrt_error err;
  if (yrt_image_save_jpeg(&im, path, 90, &err) != YRT_OK) fail_msg("%s", err.msg);
}

static void scratch_make(scratch *s, const char *tag) {
  snprintf(s->dir, sizeof s->dir, "%s/tests/reliability/tmp_clih_%ld_%s", YOLORT_BINARY_DIR, (long)getpid(), tag);
  char p[1200], cmd[4400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/imgs' '%s/labels' '%s/calib'", s->dir, s->dir, s->dir, s->dir);
  assert_int_equal(system(cmd), 0);
  void *buf = NULL;
  size_t n = 0;
  yrt_error err;
  assert_int_equal(rel_model_yrt(REL_MODEL_F32_YOLO, &buf, &n, &err), YRT_OK);
  path_in(s, "model.yrt", p, sizeof p);
  assert_int_equal(yrt_write_file_atomic(p, buf, n, &err), YRT_OK);
  free(buf);
  uint8_t *ob = NULL;
  assert_int_equal(rel_model_onnx(REL_MODEL_F32_YOLO, &ob, &n, &err), YRT_OK);
  path_in(s, "model.onnx", p, sizeof p);
  assert_int_equal(yrt_write_file_atomic(p, ob, n, &err), YRT_OK);
  free(ob);
  path_in(s, "imgs/a.jpg", p, sizeof p);
  write_jpeg(p);
  path_in(s, "calib/a.jpg", p, sizeof p);
  write_jpeg(p);
  path_in(s, "labels/a.txt", p, sizeof p);
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs("0 0.5 0.5 0.2 0.2\n", f);
  fclose(f);
}

static void scratch_free(const scratch *s) {
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
  if (system(cmd) != 0) print_message("could not remove %s\n", s->dir);
}

static int link_file_or_fail(const char *from, const char *to) { return link(from, to); }

static void make_fifo(const scratch *s, const char *name, char *out, size_t cap) {
  path_in(s, name, out, cap);
  unlink(out);
  if (mkfifo(out, 0600) != 0) fail_msg("mkfifo %s", out);
}

/* ------------------------------------------------ 3: FIFOs never block open() */

static void test_fifo_inputs(void **state) {
  (void)state;
  scratch s;
  scratch_make(&s, "fifo");
  char model[1200], onnx[1200], img[1200], fifo[1200], args[6000];
  path_in(&s, "model.yrt", model, sizeof model);
  path_in(&s, "model.onnx", onnx, sizeof onnx);
  path_in(&s, "imgs/a.jpg", img, sizeof img);
  static char out[1 << 15];
  /* the scratch files work */
  snprintf(args, sizeof args, "'%s' '%s'", model, img);
  expect_ok(YOLORT_DETECT_EXE, args, out, sizeof out);
  /* a model that is a FIFO: .yrt (mapped) and .onnx (read) */
  make_fifo(&s, "fifo.yrt", fifo, sizeof fifo);
  snprintf(args, sizeof args, "'%s' '%s'", fifo, img);
  expect_fails(YOLORT_DETECT_EXE, args, "fifo.yrt is not a regular file (a FIFO)");
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels'", fifo, s.dir, s.dir);
  expect_fails(YOLORT_EVAL_EXE, args, "fifo.yrt is not a regular file");
  snprintf(args, sizeof args, "'%s'", fifo);
  expect_fails(YOLORT_INSPECT_EXE, args, "fifo.yrt is not a regular file");
  make_fifo(&s, "fifo.onnx", fifo, sizeof fifo);
  snprintf(args, sizeof args, "'%s' -o '%s/out.yrt'", fifo, s.dir);
  expect_fails(YOLORT_CONVERT_EXE, args, "fifo.onnx is not a regular file (a FIFO)");
  snprintf(args, sizeof args, "'%s' '%s'", fifo, img);
  expect_fails(YOLORT_DETECT_EXE, args, "fifo.onnx is not a regular file");
  snprintf(args, sizeof args, "'%s' '%s/calib' -o '%s/q.onnx'", fifo, s.dir, s.dir);
  expect_fails(YOLORT_QUANTIZE_EXE, args, "fifo.onnx is not a regular file");
  /* an image that is a FIFO */
  make_fifo(&s, "fifo.jpg", fifo, sizeof fifo);
  snprintf(args, sizeof args, "'%s' '%s'", model, fifo);
  expect_fails(YOLORT_DETECT_EXE, args, "fifo.jpg is not a regular file (a FIFO)");
  /* a calibration JPEG that is a FIFO */
  char cal[1200];
  make_fifo(&s, "calib/b.jpg", cal, sizeof cal);
  snprintf(args, sizeof args, "'%s' '%s/calib' -o '%s/q.onnx'", onnx, s.dir, s.dir);
  expect_fails(YOLORT_QUANTIZE_EXE, args, "calib/b.jpg is not a regular file");
  /* an evaluation image, then a label file, that is a FIFO */
  char ev[1200];
  make_fifo(&s, "imgs/b.jpg", ev, sizeof ev);
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels'", model, s.dir, s.dir);
  expect_fails(YOLORT_EVAL_EXE, args, "is not a regular file");
  unlink(ev);
  make_fifo(&s, "labels/a.txt", ev, sizeof ev);
  expect_fails(YOLORT_EVAL_EXE, args, "labels/a.txt is not a regular file (a FIFO)");
  /* an output FIFO nobody reads: an error, not a wait (a pipe with a reader is written as before) */
  make_fifo(&s, "out.yrt", fifo, sizeof fifo);
  snprintf(args, sizeof args, "'%s' -o '%s'", onnx, fifo);
  expect_fails(YOLORT_CONVERT_EXE, args, "a FIFO that no process reads");
  /* a directory and a character device as a model */
  snprintf(args, sizeof args, "'%s/imgs' '%s'", s.dir, img);
  expect_fails(YOLORT_DETECT_EXE, args, "is not a regular file (a directory)");
  snprintf(args, sizeof args, "/dev/null '%s'", img);
  expect_fails(YOLORT_DETECT_EXE, args, "/dev/null is not a regular file (a character device)");
  scratch_free(&s);
}

/* ------------------------------------------------ 4: outputs that name an input */

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot read %s", path);
  uint8_t *b = malloc(1 << 20);
  assert_non_null(b);
  *n = fread(b, 1, 1 << 20, f);
  fclose(f);
  return b;
}

/* The program refuses with exit 2, names the clash, and `victim` is unchanged. */
static void expect_clash(const char *exe, const char *args, const char *victim) {
  size_t n0 = 0, n1 = 0;
  uint8_t *before = slurp(victim, &n0);
  static char out[1 << 15];
  const int rc = run_tool(exe, args, out, sizeof out);
  if (rc != 2) fail_msg("%s %s -> exit %d, want 2; output:\n%s", exe, args, rc, out);
  if (!strstr(out, "is the same file as")) fail_msg("%s %s: no clash named:\n%s", exe, args, out);
  uint8_t *after = slurp(victim, &n1);
  if (n0 != n1 || memcmp(before, after, n0)) fail_msg("%s %s: %s was changed", exe, args, victim);
  free(before);
  free(after);
}

static void test_same_file(void **state) {
  (void)state;
  scratch s;
  scratch_make(&s, "same");
  char model[1200], onnx[1200], img[1200], link[1200], sym[1200], lab[1200], args[8000];
  path_in(&s, "model.yrt", model, sizeof model);
  path_in(&s, "model.onnx", onnx, sizeof onnx);
  path_in(&s, "imgs/a.jpg", img, sizeof img);
  path_in(&s, "labels/a.txt", lab, sizeof lab);
  path_in(&s, "hard.onnx", link, sizeof link);
  path_in(&s, "sym.yrt", sym, sizeof sym);
  assert_int_equal(link_file_or_fail(onnx, link), 0);
  assert_int_equal(symlink(model, sym), 0);
  /* the unit */
  assert_true(yrt_same_file(onnx, link));
  assert_true(yrt_same_file(model, sym));
  assert_false(yrt_same_file(model, onnx));
  assert_false(yrt_same_file(model, "/nonexistent/x"));
  assert_false(yrt_same_file(NULL, model));
  /* yolort-convert */
  snprintf(args, sizeof args, "'%s' -o '%s'", onnx, onnx);
  expect_clash(YOLORT_CONVERT_EXE, args, onnx);
  snprintf(args, sizeof args, "'%s' -o '%s'", onnx, link);
  expect_clash(YOLORT_CONVERT_EXE, args, onnx);
  snprintf(args, sizeof args, "'%s' -o '%s/./model.onnx'", onnx, s.dir);
  expect_clash(YOLORT_CONVERT_EXE, args, onnx);
  /* yolort-quantize: each output against the model, a calibration image and the other outputs */
  const char *flags[] = {"--yrt", "--float-out", "--report"};
  snprintf(args, sizeof args, "'%s' '%s/calib' -o '%s'", onnx, s.dir, onnx);
  expect_clash(YOLORT_QUANTIZE_EXE, args, onnx);
  for (int k = 0; k < 3; k++) {
    snprintf(args, sizeof args, "'%s' '%s/calib' -o '%s/q.onnx' %s '%s'", onnx, s.dir, s.dir, flags[k], link);
    expect_clash(YOLORT_QUANTIZE_EXE, args, onnx);
  }
  char cal[1200];
  path_in(&s, "calib/a.jpg", cal, sizeof cal);
  snprintf(args, sizeof args, "'%s' '%s/calib' -o '%s'", onnx, s.dir, cal);
  expect_clash(YOLORT_QUANTIZE_EXE, args, cal);
  snprintf(args, sizeof args, "'%s' '%s/calib' -o '%s' --yrt '%s'", onnx, s.dir, model, sym);
  expect_clash(YOLORT_QUANTIZE_EXE, args, model);
  /* yolort-detect -o: the model (by a symlink too) or the image */
  snprintf(args, sizeof args, "'%s' '%s' -o '%s'", model, img, model);
  expect_clash(YOLORT_DETECT_EXE, args, model);
  snprintf(args, sizeof args, "'%s' '%s' -o '%s'", model, img, sym);
  expect_clash(YOLORT_DETECT_EXE, args, model);
  snprintf(args, sizeof args, "'%s' '%s' -o '%s'", model, img, img);
  expect_clash(YOLORT_DETECT_EXE, args, img);
  /* yolort-eval --dets / --json: the model, the --compare model, an image, a label file */
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels' --dets '%s'", model, s.dir, s.dir, sym);
  expect_clash(YOLORT_EVAL_EXE, args, model);
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels' --compare '%s' --json '%s'", model, s.dir, s.dir, onnx, onnx);
  expect_clash(YOLORT_EVAL_EXE, args, onnx);
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels' --json '%s'", model, s.dir, s.dir, img);
  expect_clash(YOLORT_EVAL_EXE, args, img);
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels' --dets '%s'", model, s.dir, s.dir, lab);
  expect_clash(YOLORT_EVAL_EXE, args, lab);
  /* yolort-inspect -o */
  snprintf(args, sizeof args, "'%s' -o '%s'", onnx, link);
  expect_clash(YOLORT_INSPECT_EXE, args, onnx);
  /* distinct outputs still work */
  static char out[1 << 15];
  snprintf(args, sizeof args, "'%s' -o '%s/new.yrt'", onnx, s.dir);
  expect_ok(YOLORT_CONVERT_EXE, args, out, sizeof out);
  snprintf(args, sizeof args, "'%s' '%s' -o '%s/annotated.jpg'", model, img, s.dir);
  expect_ok(YOLORT_DETECT_EXE, args, out, sizeof out);
  scratch_free(&s);
}

/* ------------------------------------------------ 6: labels folders eval silently missed */

/* Lines of the --dets file that start with "G " (ground-truth boxes the evaluation read). */
static int gt_lines(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("no --dets file %s", path);
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f)) n += line[0] == 'G' && line[1] == ' ';
  fclose(f);
  return n;
}

static void test_eval_labels_folder(void **state) {
  (void)state;
  scratch s;
  scratch_make(&s, "labels");
  char model[1200], args[8000], dets[1200];
  path_in(&s, "model.yrt", model, sizeof model);
  path_in(&s, "dets.txt", dets, sizeof dets);
  static char out[1 << 15];
  /* the short path: one ground-truth box read */
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels' -q --dets '%s'", model, s.dir, s.dir, dets);
  expect_ok(YOLORT_EVAL_EXE, args, out, sizeof out);
  assert_int_equal(gt_lines(dets), 1);
  /* a folder that does not exist, and a file given as the folder */
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/no-such-labels' -q", model, s.dir, s.dir);
  expect_fails(YOLORT_EVAL_EXE, args, "no-such-labels");
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s' -q", model, s.dir, model);
  expect_fails(YOLORT_EVAL_EXE, args, "is not a directory");
  /* a folder that exists but holds no label of any image (another split's): an error, not mAP 0 */
  char other[1300];
  snprintf(other, sizeof other, "%s/other-labels", s.dir);
  if (mkdir(other, 0700) != 0) fail_msg("mkdir %s", other);
  char cp[3000];
  snprintf(cp, sizeof cp, "cp '%s/labels/a.txt' '%s/zz-not-an-image.txt'", s.dir, other);
  assert_int_equal(system(cp), 0);
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s' -q", model, s.dir, other);
  expect_fails(YOLORT_EVAL_EXE, args, "a label file for none of the");
  /* a labels path of ~1,500 characters (nested folders of 100): the same box, nothing cut */
  char deep[2048];
  snprintf(deep, sizeof deep, "%s", s.dir);
  char seg[101];
  memset(seg, 'd', 100);
  seg[100] = 0;
  while (strlen(deep) < 1500) {
    strcat(deep, "/");
    strcat(deep, seg);
    if (mkdir(deep, 0700) != 0) fail_msg("mkdir %s", deep);
  }
  char cmd[6000];
  snprintf(cmd, sizeof cmd, "cp '%s/labels/a.txt' '%s/a.txt'", s.dir, deep);
  assert_int_equal(system(cmd), 0);
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s' -q --dets '%s'", model, s.dir, deep, dets);
  expect_ok(YOLORT_EVAL_EXE, args, out, sizeof out);
  assert_int_equal(gt_lines(dets), 1);
  scratch_free(&s);
}

/* ------------------------------------------------ 7: JSON and terminal text from hostile names */

static void test_text_out_units(void **state) {
  (void)state;
  char buf[256];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  assert_non_null(f);
  json_put_string(f, "a\"b\\c\n\x1b\x7f\xff\xc3\xa9\xe2\x82\xac\xed\xa0\x80\xc0\xaf\xf4\x90\x80\x80\xf0\x9f\x98\x80");
  fputc(' ', f);
  json_put_number(f, "%.5f", INFINITY);
  fputc(' ', f);
  json_put_number(f, "%.5f", NAN);
  fputc(' ', f);
  json_put_number(f, "%.2f", 0.5);
  fputc(' ', f);
  json_put_string(f, NULL);
  fclose(f);
  assert_string_equal(buf,
                      "\"a\\\"b\\\\c\\u000a\\u001b\\u007f\\ufffd\xc3\xa9\xe2\x82\xac\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
                      "\\ufffd\\ufffd\\ufffd\\ufffd\xf0\x9f\x98\x80\" null null 0.50 null");
  assert_string_equal(term_escape("ok\x1b]0;pwned\x07\xc2\x9b\xff\xc3\xa9", buf, sizeof buf),
                      "ok\\x1b]0;pwned\\x07\\u009b\\xff\xc3\xa9");
  assert_string_equal(term_escape("\x1b\x1b\x1b", buf, 9), "\\x1b\\x1b"); /* cut at a whole escape */
  assert_string_equal(term_escape(NULL, buf, sizeof buf), "");
}

/* Output must be valid UTF-8, with no control byte but '\n' (and no "inf" / "nan" numbers). */
static void expect_clean(const char *out, const char *what) {
  for (const unsigned char *p = (const unsigned char *)out; *p;) {
    if ((*p < 0x20 && *p != '\n') || *p == 0x7f) fail_msg("%s: control byte 0x%02x in:\n%s", what, *p, out);
    const int n = utf8_seq_len(p);
    if (!n) fail_msg("%s: invalid UTF-8 byte 0x%02x", what, *p);
    p += n;
  }
  if (strstr(out, ": inf") || strstr(out, ": nan") || strstr(out, ": -inf")) fail_msg("%s: non-finite number:\n%s", what, out);
}

static void test_hostile_names(void **state) {
  (void)state;
  scratch s;
  scratch_make(&s, "names");
  /* a 2-class model named "\x1b[2Jcat\xff" and "d\x07og\xc0" */
  uint8_t *bytes = NULL;
  size_t n = 0;
  yrt_error err;
  assert_int_equal(rel_model_onnx(REL_MODEL_F32_YOLO, &bytes, &n, &err), YRT_OK);
  ir_graph *g = NULL;
  assert_int_equal(onnx_read_memory(bytes, n, &g, &err), YRT_OK);
  free(bytes);
  free(g->class_names);
  g->class_names = ir_strdup("\x1b[2Jcat\xff\nd\x07og\xc0");
  void *yrt = NULL;
  size_t size = 0;
  if (yrt_convert_graph(g, NULL, &yrt, &size, NULL, &err) != YRT_OK) fail_msg("%s", err.msg);
  ir_graph_free(g);
  char model[1200], img[1200], args[6000];
  path_in(&s, "names.yrt", model, sizeof model);
  assert_int_equal(yrt_write_file_atomic(model, yrt, size, &err), YRT_OK);
  free(yrt);
  path_in(&s, "imgs/b\xff\x1b.jpg", img, sizeof img); /* a path with invalid UTF-8 and ESC */
  write_jpeg(img);
  static char out[1 << 16];
  snprintf(args, sizeof args, "'%s' '%s' --json --conf 0.001", model, img);
  expect_ok(YOLORT_DETECT_EXE, args, out, sizeof out);
  expect_clean(out, "detect --json");
  assert_non_null(strstr(out, "\\ufffd"));
  if (!strstr(out, "\"d\\u0007og\\ufffd\"") || !strstr(out, "b\\ufffd\\u001b.jpg"))
    fail_msg("detect --json:\n%s", out);
  snprintf(args, sizeof args, "'%s' '%s' --conf 0.001", model, img);
  expect_ok(YOLORT_DETECT_EXE, args, out, sizeof out);
  expect_clean(out, "detect (text)");
  if (!strstr(out, "d\\x07og\\xc0") || !strstr(out, "b\\xff\\x1b.jpg")) fail_msg("detect:\n%s", out);
  /* eval --json of the same model */
  char json[1200];
  path_in(&s, "eval.json", json, sizeof json);
  snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels' -q --json '%s'", model, s.dir, s.dir, json);
  expect_ok(YOLORT_EVAL_EXE, args, out, sizeof out);
  expect_clean(out, "eval (text)");
  FILE *f = fopen(json, "r");
  assert_non_null(f);
  n = fread(out, 1, sizeof out - 1, f);
  out[n] = '\0';
  fclose(f);
  expect_clean(out, "eval --json");
  assert_non_null(strstr(out, "\"name\": \"\\u001b[2Jcat\\ufffd\""));
  scratch_free(&s);
}

/* ------------------------------------------------ 7: results lost with exit 0 */

/* The unit: a streamed output commits by rename, reports a full device, and leaves no temporary
 * file behind either way. */
static void test_out_file_units(void **state) {
  (void)state;
  scratch s;
  scratch_make(&s, "outunit");
  char p[1200], cmd[1400];
  path_in(&s, "streamed.txt", p, sizeof p);
  yrt_out_file *o = NULL;
  FILE *f = NULL;
  yrt_error err;
  assert_int_equal(yrt_out_open(p, &o, &f, &err), YRT_OK);
  fputs("old\n", f);
  assert_int_equal(yrt_out_commit(o, &err), YRT_OK);
  /* dropped: the old content stays */
  assert_int_equal(yrt_out_open(p, &o, &f, &err), YRT_OK);
  fputs("new\n", f);
  yrt_out_abort(o);
  size_t n = 0;
  uint8_t *b = slurp(p, &n);
  assert_int_equal(n, 4);
  assert_memory_equal(b, "old\n", 4);
  free(b);
  /* a full device: the error is reported at commit (the bytes sat in the buffer), naming it */
  assert_int_equal(yrt_out_open("/dev/full", &o, &f, &err), YRT_OK);
  fputs("lost\n", f);
  assert_int_equal(yrt_out_commit(o, &err), YRT_ERR_IO);
  assert_non_null(strstr(err.msg, "/dev/full"));
  assert_int_equal(yrt_write_file_atomic("/dev/full", "x", 1, &err), YRT_ERR_IO);
  /* a path under a regular file cannot be created */
  path_in(&s, "streamed.txt/x", p, sizeof p);
  assert_int_equal(yrt_out_open(p, &o, &f, &err), YRT_ERR_IO);
  assert_null(o);
  assert_null(f);
  assert_int_equal(yrt_out_open(NULL, &o, &f, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_out_commit(NULL, &err), YRT_ERR_INVALID_ARG);
  yrt_out_abort(NULL);
  snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '\\.tmp\\.' >/dev/null", s.dir);
  assert_int_not_equal(system(cmd), 0); /* no temporary file left */
  scratch_free(&s);
}

/* EXE ARGS with standard output redirected by `redir` (">&-", ">/dev/full", after stderr went to
 * our pipe): must fail, saying the results are lost. */
static void expect_stdout_lost(const char *exe, const char *args, const char *redir) {
  static char out[1 << 15];
  const int rc = run_tool_redir(exe, args, redir, out, sizeof out);
  if (rc == 0 || rc < 0 || rc == 124) fail_msg("%s %s %s -> exit %d, want a failure; output:\n%s", exe, args, redir, rc, out);
  if (!strstr(out, "writing to standard output failed"))
    fail_msg("%s %s %s: no word of the lost output:\n%s", exe, args, redir, out);
}

/* Every program, every way results reach stdout or a file: a closed stdout, a full device, a
 * file that cannot be created. Each must exit non-zero and name what failed. */
static void test_results_lost(void **state) {
  (void)state;
  scratch s;
  scratch_make(&s, "lost");
  char model[1200], onnx[1200], img[1200], args[8000], bad[1200], yrt[1200];
  path_in(&s, "model.yrt", model, sizeof model);
  path_in(&s, "model.onnx", onnx, sizeof onnx);
  path_in(&s, "imgs/a.jpg", img, sizeof img);
  path_in(&s, "model.yrt/cannot", bad, sizeof bad); /* ENOTDIR, root or not */
  path_in(&s, "out.yrt", yrt, sizeof yrt);
  static char out[1 << 15];
  const char *redirs[2] = {">&-", ">/dev/full"};
  /* under qemu-user the emulator's own files take a closed descriptor 1 before the program runs:
   * the closed-stdout case is native only (/dev/full is checked everywhere) */
  for (int r = *emulator() ? 1 : 0; r < 2; r++) {
    snprintf(args, sizeof args, "'%s' '%s'", model, img);
    expect_stdout_lost(YOLORT_DETECT_EXE, args, redirs[r]);
    snprintf(args, sizeof args, "'%s' '%s' --json", model, img);
    expect_stdout_lost(YOLORT_DETECT_EXE, args, redirs[r]);
    snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels'", model, s.dir, s.dir);
    expect_stdout_lost(YOLORT_EVAL_EXE, args, redirs[r]);
    snprintf(args, sizeof args, "'%s'", onnx);
    expect_stdout_lost(YOLORT_INSPECT_EXE, args, redirs[r]);
    snprintf(args, sizeof args, "'%s' '%s/calib' -o '%s/q.onnx' -q --threads 1", onnx, s.dir, s.dir);
    expect_stdout_lost(YOLORT_QUANTIZE_EXE, args, redirs[r]);
    snprintf(args, sizeof args, "'%s/gen' -n 1", s.dir);
    expect_stdout_lost(YOLORT_GEN_IMAGES_EXE, args, redirs[r]);
    unlink(yrt);
    snprintf(args, sizeof args, "'%s' -o '%s'", onnx, yrt);
    expect_stdout_lost(YOLORT_CONVERT_EXE, args, redirs[r]);
    /* the summary went nowhere, and not into the output file (a closed descriptor 1 is parked so
     * the file cannot take its number) */
    yrt_model *m = NULL;
    yrt_error err;
    if (yrt_model_load_file(yrt, &m, &err) != YRT_OK) fail_msg("%s after %s: %s", yrt, redirs[r], err.msg);
    yrt_model_free(m);
    const char *exes[6] = {YOLORT_DETECT_EXE, YOLORT_EVAL_EXE, YOLORT_INSPECT_EXE, YOLORT_QUANTIZE_EXE,
                           YOLORT_CONVERT_EXE, YOLORT_GEN_IMAGES_EXE};
    for (int k = 0; k < 6; k++) {
      expect_stdout_lost(exes[k], "--version", redirs[r]);
      if (k != 1 && k != 2) expect_stdout_lost(exes[k], "--help", redirs[r]); /* eval, inspect: no --help */
    }
  }
  /* the same programs with stdout intact succeed (the cases above fail for the stdout alone) */
  snprintf(args, sizeof args, "'%s' '%s' --json", model, img);
  expect_ok(YOLORT_DETECT_EXE, args, out, sizeof out);
  snprintf(args, sizeof args, "'%s' '%s/calib' -o '%s/q.onnx' -q --threads 1", onnx, s.dir, s.dir);
  expect_ok(YOLORT_QUANTIZE_EXE, args, out, sizeof out);
  /* output files on a full device, or where no file can be created */
  const char *targets[2] = {"/dev/full", bad};
  for (int t = 0; t < 2; t++) {
    const char *o = targets[t];
    snprintf(args, sizeof args, "'%s' '%s' -o '%s'", model, img, o);
    expect_fails(YOLORT_DETECT_EXE, args, o);
    snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels' -q --dets '%s'", model, s.dir, s.dir, o);
    expect_fails(YOLORT_EVAL_EXE, args, o);
    snprintf(args, sizeof args, "'%s' '%s/imgs' '%s/labels' -q --json '%s'", model, s.dir, s.dir, o);
    expect_fails(YOLORT_EVAL_EXE, args, o);
    snprintf(args, sizeof args, "'%s' -o '%s'", onnx, o);
    expect_fails(YOLORT_CONVERT_EXE, args, o);
    snprintf(args, sizeof args, "'%s' '%s/calib' -q --threads 1 -o '%s'", onnx, s.dir, o);
    expect_fails(YOLORT_QUANTIZE_EXE, args, o);
    const char *qflags[3] = {"--yrt", "--report", "--float-out"};
    for (int k = 0; k < 3; k++) {
      snprintf(args, sizeof args, "'%s' '%s/calib' -q --threads 1 -o '%s/q.onnx' %s '%s'", onnx, s.dir, s.dir,
               qflags[k], o);
      expect_fails(YOLORT_QUANTIZE_EXE, args, o);
    }
  }
  snprintf(args, sizeof args, "'%s' -n 1", bad);
  expect_fails(YOLORT_GEN_IMAGES_EXE, args, "cannot");
#ifdef YOLORT_BENCH_EXE
  expect_stdout_lost(YOLORT_BENCH_EXE, "--version", ">/dev/full");
  snprintf(args, sizeof args, "'%s' --dump-convs -", model);
  expect_stdout_lost(YOLORT_BENCH_EXE, args, ">/dev/full");
  snprintf(args, sizeof args, "'%s' --dump-convs /dev/full", model);
  expect_fails(YOLORT_BENCH_EXE, args, "/dev/full");
#endif
  /* nothing half-written left: no temporary file in the folder */
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '\\.tmp\\.' >/dev/null", s.dir);
  assert_int_not_equal(system(cmd), 0);
  scratch_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fifo_inputs),
      cmocka_unit_test(test_same_file),
      cmocka_unit_test(test_eval_labels_folder),
      cmocka_unit_test(test_text_out_units),
      cmocka_unit_test(test_hostile_names),
      cmocka_unit_test(test_out_file_units),
      cmocka_unit_test(test_results_lost),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
