/* test_cli_args.c — the command-line tools on hostile arguments and outputs (issue 19 items 3, 7,
 * 8): strict number parsing (tools/app/cli_num.h) as a unit and through the programs, --threads
 * bounds, and output files written through a temporary file + rename() (tools/io/file_write.h):
 * never interleaved by concurrent writers, never removing a device node. Models and images are
 * generated here (rel_models.c, yrt_image_save_jpeg). */
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

#include "cli_num.h"
#include "file_write.h"
#include "onnx_write.h"
#include "rel_models.h"
#include "yolort_image.h"

/* Cross builds run the programs through qemu-user (YOLORT_EMULATOR, see toolchains/qemu-run.sh). */
static const char *emulator(void) {
  const char *e = getenv("YOLORT_EMULATOR");
  return e ? e : "";
}

/* Runs "EXE ARGS" with stderr merged into out; returns the exit status (-1 on a signal). */
static int run_tool(const char *exe, const char *args, char *out, size_t cap) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s '%s' %s 2>&1", emulator(), exe, args);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = '\0';
  const int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_refused(const char *exe, const char *args, const char *msg_part) {
  static char out[1 << 14];
  const int rc = run_tool(exe, args, out, sizeof out);
  if (rc != 2) fail_msg("%s %s -> exit %d, want 2; output:\n%s", exe, args, rc, out);
  if (msg_part && !strstr(out, msg_part)) fail_msg("%s %s: output lacks '%s':\n%s", exe, args, msg_part, out);
}

static void tmp_path(char *out, size_t cap, const char *what) {
  snprintf(out, cap, "%s/tests/reliability/tmp_cli_%ld_%s", YOLORT_BINARY_DIR, (long)getpid(), what);
}

/* ------------------------------------------------------------ cli_num units */

static void test_parse_int(void **state) {
  (void)state;
  int v = 7;
  assert_true(cli_parse_int("t", "-n", "12", 1, 100, &v));
  assert_int_equal(v, 12);
  assert_true(cli_parse_int("t", "-n", "-3", -5, 5, &v));
  assert_int_equal(v, -3);
  const char *bad[] = {"", "abc", "3x", "1.5", " ", "0x10", "101", "0", "99999999999999999999", "-1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    v = 7;
    if (cli_parse_int("t", "-n", bad[i], 1, 100, &v)) fail_msg("'%s' accepted", bad[i]);
    assert_int_equal(v, 7);
  }
  assert_false(cli_parse_int("t", "-n", NULL, 1, 100, &v));
}

static void test_parse_float(void **state) {
  (void)state;
  float f = 0.5f;
  assert_true(cli_parse_float("t", "--conf", "0.25", 0, 1, &f));
  assert_true(f == 0.25f);
  assert_true(cli_parse_float("t", "--conf", "1e-3", 0, 1, &f));
  assert_true(cli_parse_float("t", "--conf", "1", 0, 1, &f));
  const char *bad[] = {"2.0", "-1", "abc", "", "nan", "inf", "0.5x", "1e999", "-0.0001"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    f = 0.5f;
    if (cli_parse_float("t", "--conf", bad[i], 0, 1, &f)) fail_msg("'%s' accepted", bad[i]);
    assert_true(f == 0.5f);
  }
}

static void test_parse_threads(void **state) {
  (void)state;
  int n = 0;
  const int cpus = cli_online_cpus();
  assert_true(cpus >= 1);
  assert_true(cli_parse_threads("t", "--threads", "1", &n));
  assert_int_equal(n, 1);
  assert_true(cli_parse_threads("t", "--threads", "256", &n)); /* capped, with a note */
  assert_int_equal(n, cpus);
  const char *bad[] = {"abc", "0", "-1", "100000", "257", "", "2 "};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (cli_parse_threads("t", "--threads", bad[i], &n)) fail_msg("'%s' accepted", bad[i]);
}

/* ------------------------------------------------------- through the CLIs */

static void test_detect_args(void **state) {
  (void)state;
  /* issue 19 item 8: these ran with 0 or 300 detections and exit 0 */
  expect_refused(YOLORT_DETECT_EXE, "m.yrt i.jpg --conf 2.0", "--conf");
  expect_refused(YOLORT_DETECT_EXE, "m.yrt i.jpg --conf -1", "--conf");
  expect_refused(YOLORT_DETECT_EXE, "m.yrt i.jpg --conf abc", "--conf");
  expect_refused(YOLORT_DETECT_EXE, "m.yrt i.jpg --iou nan", "--iou");
  /* item 3: --threads abc was 0, 100000 blocked in pthreadpool_create */
  expect_refused(YOLORT_DETECT_EXE, "m.yrt i.jpg --threads abc", "--threads");
  expect_refused(YOLORT_DETECT_EXE, "m.yrt i.jpg --threads 100000", "--threads");
  expect_refused(YOLORT_DETECT_EXE, "m.yrt i.jpg --threads 0", "--threads");
}

static void test_eval_quantize_inspect_args(void **state) {
  (void)state;
  expect_refused(YOLORT_EVAL_EXE, "m.yrt imgs labels -n -5", "-n");
  expect_refused(YOLORT_EVAL_EXE, "m.yrt imgs labels -n 0", "-n");
  expect_refused(YOLORT_EVAL_EXE, "m.yrt imgs labels --conf 1.5", "--conf");
  expect_refused(YOLORT_EVAL_EXE, "m.yrt imgs labels --max-det x", "--max-det");
  expect_refused(YOLORT_INSPECT_EXE, "m.onnx --threads 2x", "--threads");
  expect_refused(YOLORT_QUANTIZE_EXE, "a.onnx dir -o b.onnx --percentile abc", "--percentile");
  expect_refused(YOLORT_QUANTIZE_EXE, "a.onnx dir -o b.onnx -n 0", "-n");
  /* --help: the usage with exit 0 (issue 16); it once leaked the exclusion list, which
   * LeakSanitizer turns into a non-zero exit under ASan */
  static char out[1 << 14];
  const int rc = run_tool(YOLORT_QUANTIZE_EXE, "--help", out, sizeof out);
  if (rc != 0 || !strstr(out, "usage") || !strstr(out, "--bias-correct-wave"))
    fail_msg("yolort-quantize --help -> exit %d, want 0 and the usage:\n%s", rc, out);
}

/* --threads above the online CPUs runs, capped, on a generated model and image. */
static void test_detect_threads_capped(void **state) {
  (void)state;
  char model[1024], img[1024], args[3072];
  tmp_path(model, sizeof model, "m.yrt");
  tmp_path(img, sizeof img, "i.jpg");
  void *buf = NULL;
  size_t n = 0;
  yrt_error err;
  assert_int_equal(rel_model_yrt(REL_MODEL_F32_YOLO, &buf, &n, &err), YRT_OK);
  assert_int_equal(yrt_write_file_atomic(model, buf, n, &err), YRT_OK);
  free(buf);
  uint8_t px[40 * 30 * 3];
  for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i * 7);
  yrt_image im = {40, 30, px};
  assert_int_equal(yrt_image_save_jpeg(&im, img, 90, &err), YRT_OK);
  static char out[1 << 14];
  snprintf(args, sizeof args, "'%s' '%s' --threads 256", model, img);
  const int rc = run_tool(YOLORT_DETECT_EXE, args, out, sizeof out);
  if (rc != 0) fail_msg("exit %d:\n%s", rc, out);
  if (cli_online_cpus() < 256) assert_non_null(strstr(out, "capped at the"));
  unlink(model);
  unlink(img);
}

/* ------------------------------------------------------------ output files */

static void fill(uint8_t *p, size_t n, uint8_t v) { memset(p, v, n); }

/* issue 19 item 7: two writers of one path. With fopen("wb") + fwrite, the file could end up a mix
 * of both (4 in 200 yolort-convert pairs); with temp + rename() it is always one whole write. */
static void test_concurrent_writers(void **state) {
  (void)state;
  char path[1024];
  tmp_path(path, sizeof path, "race.bin");
  const size_t n = 1 << 20;
  uint8_t *a = malloc(n);
  assert_non_null(a);
  for (int round = 0; round < 10; round++) {
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
      kids[k] = fork();
      assert_true(kids[k] >= 0);
      if (kids[k] == 0) {
        fill(a, n, (uint8_t)('A' + k));
        yrt_error e;
        for (int r = 0; r < 5; r++)
          if (yrt_write_file_atomic(path, a, k ? n / 2 : n, &e) != YRT_OK) _exit(1);
        _exit(0);
      }
    }
    for (int k = 0; k < 2; k++) {
      int st = 0;
      assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
      assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    const size_t got = fread(a, 1, n, f);
    fclose(f);
    assert_true(got == n || got == n / 2);
    const uint8_t want = got == n ? 'A' : 'B';
    for (size_t i = 0; i < got; i++)
      if (a[i] != want) fail_msg("round %d: byte %zu of %zu is '%c', want '%c' (interleaved)", round, i, got, a[i], want);
  }
  free(a);
  unlink(path);
  /* no temporary file left behind */
  char cmd[1200], out[64];
  snprintf(cmd, sizeof cmd, "ls '%s/tests/reliability' | grep -c 'tmp_cli_%ld_race.bin.tmp' ; true",
           YOLORT_BINARY_DIR, (long)getpid());
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t m = fread(out, 1, sizeof out - 1, p);
  out[m] = 0;
  pclose(p);
  assert_int_equal(atoi(out), 0);
}

static void test_write_targets(void **state) {
  (void)state;
  yrt_error err;
  const uint8_t data[4096] = {1, 2, 3};
  struct stat st;
  /* a device node is written in place, and never removed on failure (the converter called
   * remove(path): as root, -o /dev/full deleted /dev/full) */
  if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
    err.msg[0] = 0;
    assert_int_equal(yrt_write_file_atomic("/dev/full", data, sizeof data, &err), YRT_ERR_IO);
    assert_non_null(strstr(err.msg, "/dev/full"));
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
  }
  if (stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode)) {
    assert_int_equal(yrt_write_file_atomic("/dev/null", data, sizeof data, &err), YRT_OK);
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
  }
  /* a directory, a missing directory */
  assert_int_equal(yrt_write_file_atomic(YOLORT_BINARY_DIR, data, 3, &err), YRT_ERR_IO);
  assert_int_equal(yrt_write_file_atomic("/nonexistent-dir/x.yrt", data, 3, &err), YRT_ERR_IO);
  /* an existing file keeps its permissions */
  char path[1024];
  tmp_path(path, sizeof path, "mode.bin");
  assert_int_equal(yrt_write_file_atomic(path, data, 3, &err), YRT_OK);
  assert_int_equal(chmod(path, 0640), 0);
  assert_int_equal(yrt_write_file_atomic(path, data, 5, &err), YRT_OK);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0640);
  assert_int_equal(st.st_size, 5);
  unlink(path);
}

/* yolort-convert -o /dev/full: an error, exit 1, and /dev/full is still there. */
static void test_convert_to_device(void **state) {
  (void)state;
  struct stat st;
  if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) skip();
  char onnx[1024], args[2048];
  tmp_path(onnx, sizeof onnx, "m.onnx");
  uint8_t *bytes = NULL;
  size_t n = 0;
  yrt_error err;
  assert_int_equal(rel_model_onnx(REL_MODEL_F32_YOLO, &bytes, &n, &err), YRT_OK);
  assert_int_equal(yrt_write_file_atomic(onnx, bytes, n, &err), YRT_OK);
  free(bytes);
  static char out[1 << 14];
  snprintf(args, sizeof args, "'%s' -o /dev/full", onnx);
  const int rc = run_tool(YOLORT_CONVERT_EXE, args, out, sizeof out);
  if (rc != 1) fail_msg("exit %d, want 1:\n%s", rc, out);
  assert_non_null(strstr(out, "/dev/full"));
  assert_int_equal(stat("/dev/full", &st), 0);
  assert_true(S_ISCHR(st.st_mode));
  unlink(onnx);
}

/* yolort-quantize on a tiny graph whose output is an observed activation, with two generated
 * calibration images: it failed with "plan lists output tensor N twice" (the observer added
 * output0 as an output again). */
static void test_quantize_tiny_graph(void **state) {
  (void)state;
  char dir[512], onnx[512], out[600], yrt[600], path[700], args[4096];
  tmp_path(dir, sizeof dir, "calib");
  tmp_path(onnx, sizeof onnx, "tiny.onnx");
  snprintf(out, sizeof out, "%s.qdq.onnx", onnx);
  snprintf(yrt, sizeof yrt, "%s.yrt", onnx);
  assert_int_equal(mkdir(dir, 0755), 0);
  yrt_error err;
  for (int k = 0; k < 2; k++) {
    uint8_t px[24 * 20 * 3];
    for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i * (k + 3));
    yrt_image im = {24, 20, px};
    snprintf(path, sizeof path, "%s/c%d.jpg", dir, k);
    assert_int_equal(yrt_image_save_jpeg(&im, path, 90, &err), YRT_OK);
  }
  /* images -> Conv -> Conv -> output0: the last observed activation is the graph output */
  Onnx__ModelProto *mp = onnx_model_new(13);
  assert_non_null(mp);
  const int64_t xd[4] = {1, 3, 16, 16}, yd[4] = {1, 4, 16, 16}, w1d[4] = {4, 3, 3, 3}, w2d[4] = {4, 4, 3, 3};
  float w1[4 * 3 * 9], w2[4 * 4 * 9];
  for (int i = 0; i < 4 * 3 * 9; i++) w1[i] = (float)((i * 7) % 11 - 5) / 20.0f;
  for (int i = 0; i < 4 * 4 * 9; i++) w2[i] = (float)((i * 5) % 13 - 6) / 30.0f;
  assert_int_equal(onnx_model_add_input(mp, "images", IR_F32, 4, xd), 0);
  assert_int_equal(onnx_model_add_initializer(mp, "w1", IR_F32, 4, w1d, w1), 0);
  assert_int_equal(onnx_model_add_initializer(mp, "w2", IR_F32, 4, w2d, w2), 0);
  const int64_t pads[4] = {1, 1, 1, 1};
  const char *i1[2] = {"images", "w1"}, *o1[1] = {"c1"}, *i2[2] = {"c1", "w2"}, *o2[1] = {"output0"};
  Onnx__NodeProto *c1 = onnx_model_add_node(mp, "Conv", "conv1", i1, 2, o1, 1);
  Onnx__NodeProto *c2 = onnx_model_add_node(mp, "Conv", "conv2", i2, 2, o2, 1);
  assert_true(c1 && c2);
  assert_int_equal(onnx_node_attr_ints(c1, "pads", pads, 4), 0);
  assert_int_equal(onnx_node_attr_ints(c2, "pads", pads, 4), 0);
  assert_int_equal(onnx_model_add_output(mp, "output0", IR_F32, 4, yd), 0);
  uint8_t *bytes = NULL;
  size_t n = 0;
  assert_int_equal(onnx_model_pack(mp, &bytes, &n, &err), YRT_OK);
  onnx_model_free(mp);
  assert_int_equal(yrt_write_file_atomic(onnx, bytes, n, &err), YRT_OK);
  free(bytes);
  static char log[1 << 15];
  snprintf(args, sizeof args, "'%s' '%s' -o '%s' --yrt '%s' -q --threads 1", onnx, dir, out, yrt);
  const int rc = run_tool(YOLORT_QUANTIZE_EXE, args, log, sizeof log);
  if (rc != 0) fail_msg("yolort-quantize on a tiny graph: exit %d\n%s", rc, log);
  yrt_model *m = NULL;
  assert_int_equal(yrt_model_load_file(yrt, &m, &err), YRT_OK);
  yrt_model_free(m);
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/c%d.jpg", dir, k);
    unlink(path);
  }
  rmdir(dir);
  unlink(onnx);
  unlink(out);
  unlink(yrt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_int),
      cmocka_unit_test(test_parse_float),
      cmocka_unit_test(test_parse_threads),
      cmocka_unit_test(test_detect_args),
      cmocka_unit_test(test_eval_quantize_inspect_args),
      cmocka_unit_test(test_detect_threads_capped),
      cmocka_unit_test(test_concurrent_writers),
      cmocka_unit_test(test_write_targets),
      cmocka_unit_test(test_convert_to_device),
      cmocka_unit_test(test_quantize_tiny_graph),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
