/* test_bench_smoke.c — yolort-bench runs end to end on a real model (2 runs, 1 warm-up) and
 * prints well-formed output. No timing assertions. Model: $YOLORT_BENCH_MODEL, else
 * <build>/yolo11n-320.yrt, else the shared QDQ ONNX converted in memory (needs the converter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "test_data.h"

static int exists(const char *p) {
  struct stat st;
  return p && stat(p, &st) == 0;
}

/* Runs cmd, returns its exit status; stdout into out. */
static int run(const char *cmd, char *out, size_t cap) {
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = '\0';
  return pclose(p);
}

/* Cross builds run under qemu-user (toolchains/qemu-run.sh), which sets YOLORT_EMULATOR: the
 * host shell cannot exec an ARM yolort-bench itself, so the command goes through the emulator. */
static const char *emulator(void) {
  const char *e = getenv("YOLORT_EMULATOR");
  return e ? e : "";
}

static void pick_model(char *model, size_t cap) {
  const char *env = getenv("YOLORT_BENCH_MODEL");
  if (env && *env) {
    snprintf(model, cap, "%s", env);
    return;
  }
  snprintf(model, cap, "%s/yolo11n-320.yrt", YOLORT_BINARY_DIR);
  if (exists(model)) return;
#ifdef YOLORT_HAVE_CONVERT
  char buf[1024];
  YT_REQUIRE_DATA(buf, "models/yolo11n-320.qdq.onnx");
  snprintf(model, cap, "%s", buf);
#else
  print_message("skipping: no .yrt model and no converter\n");
  skip();
#endif
}

/* The keys of the first result object of a --json run, in order, comma-separated into keys (its
 * own keys only, not those of nested objects). */
static void first_result_keys(const char *json, char *keys, size_t cap) {
  const char *p = strstr(json, "\"results\":[{");
  if (!p) fail_msg("no results in:\n%s", json);
  p += strlen("\"results\":[{");
  size_t n = 0;
  int depth = 1, in_str = 0, key_start = 1;
  const char *str = NULL;
  keys[0] = '\0';
  for (; *p && depth > 0; p++) {
    if (in_str) {
      if (*p == '\\') p++;
      else if (*p == '"') {
        in_str = 0;
        if (depth == 1 && key_start && p[1] == ':') {
          n += (size_t)snprintf(keys + n, cap - n, "%.*s,", (int)(p - str), str);
          if (n >= cap) fail_msg("too many keys");
        }
      }
    } else if (*p == '"') {
      in_str = 1;
      str = p + 1;
    } else if (*p == '{' || *p == '[') {
      depth++;
    } else if (*p == '}' || *p == ']') {
      depth--;
    }
    if (!in_str && *p != '"') key_start = *p == '{' || *p == ',';
  }
}

/* Issue 38 item 7: the same keys in every mode (a plain run, --profile, --streams), so one reader
 * handles them all. */
static void test_bench_json_same_keys(void **state) {
  (void)state;
  char model[1024], cmd[4096];
  pick_model(model, sizeof model);
  static char out[1 << 16], plain[2048], prof[2048], streams[2048];
  const char *modes[3] = {"", "--profile --top 2", "--streams 2"};
  char *keys[3] = {plain, prof, streams};
  for (int m = 0; m < 3; m++) {
    snprintf(cmd, sizeof cmd, "%s '%s' '%s' --runs 1 --warmup 0 --threads 1 --json %s", emulator(),
             YOLORT_BENCH_EXE, model, modes[m]);
    int rc = run(cmd, out, sizeof out);
    if (rc != 0) fail_msg("%s -> status %d, output:\n%s", cmd, rc, out);
    first_result_keys(out, keys[m], sizeof plain);
  }
  assert_non_null(strstr(plain, "mode,width,height,threads,batch,streams,"));
  assert_non_null(strstr(plain, ",inference,pre,post,total,detections,top1_class,fps,"));
  assert_string_equal(plain, prof);
  assert_string_equal(plain, streams);
}

static void test_bench_json(void **state) {
  (void)state;
  char model[1024], cmd[4096];
  pick_model(model, sizeof model);
  static char out[1 << 16];
  snprintf(cmd, sizeof cmd, "%s '%s' '%s' --runs 2 --warmup 1 --threads 1 --json --profile --top 3",
           emulator(), YOLORT_BENCH_EXE, model);
  int rc = run(cmd, out, sizeof out);
  if (rc != 0) fail_msg("%s -> status %d, output:\n%s", cmd, rc, out);
  assert_non_null(strstr(out, "{\"tool\":\"yolort-bench\""));
  assert_non_null(strstr(out, "\"median_ms\":"));
  assert_non_null(strstr(out, "\"peak_rss_kb\":"));
  assert_non_null(strstr(out, "\"profile\":["));
  assert_non_null(strstr(out, "\"top\":[{\"name\":"));
}

static void test_bench_table_e2e(void **state) {
  (void)state;
  char model[1024], img[1024], cmd[4096];
  pick_model(model, sizeof model);
  YT_REQUIRE_DATA(img, "data/coco/val/images");
  /* any JPEG of the validation set */
  snprintf(cmd, sizeof cmd, "ls '%s' | grep -i '\\.jpg$' | head -n 1", img);
  static char name[512];
  assert_int_equal(run(cmd, name, sizeof name), 0);
  name[strcspn(name, "\n")] = '\0';
  if (!name[0]) skip();
  static char out[1 << 16];
  snprintf(cmd, sizeof cmd, "%s '%s' '%s' --runs 2 --warmup 1 --batch 1,2 --image '%s/%s'",
           emulator(), YOLORT_BENCH_EXE, model, img, name);
  int rc = run(cmd, out, sizeof out);
  if (rc != 0) fail_msg("%s -> status %d, output:\n%s", cmd, rc, out);
  assert_non_null(strstr(out, "JPEG decode+letterbox"));
  assert_non_null(strstr(out, "decode+NMS"));
  assert_non_null(strstr(out, "per image"));
  /* --frame: the camera path, profiled (the frame is written into the int8 input: no quantize work) */
  snprintf(cmd, sizeof cmd, "%s '%s' '%s' --runs 2 --warmup 1 --image '%s/%s' --frame --profile",
           emulator(), YOLORT_BENCH_EXE, model, img, name);
  rc = run(cmd, out, sizeof out);
  if (rc != 0) fail_msg("%s -> status %d, output:\n%s", cmd, rc, out);
  assert_non_null(strstr(out, "frame -> detections"));
  assert_non_null(strstr(out, "of which letterbox"));
  assert_non_null(strstr(out, "profile (mean of 2 runs"));
}

/* --streams: two sessions side by side and two sharing one pool; frames/s for each. */
static void test_bench_streams(void **state) {
  (void)state;
  char model[1024], cmd[4096];
  pick_model(model, sizeof model);
  static char out[1 << 16];
  snprintf(cmd, sizeof cmd, "%s '%s' '%s' --runs 2 --warmup 1 --threads 1,2 --streams 1,2 --json",
           emulator(), YOLORT_BENCH_EXE, model);
  int rc = run(cmd, out, sizeof out);
  if (rc != 0) fail_msg("%s -> status %d, output:\n%s", cmd, rc, out);
  assert_non_null(strstr(out, "\"mode\":\"streams\""));
  assert_non_null(strstr(out, "\"threads\":1,\"batch\":1,\"streams\":1,"));
  assert_non_null(strstr(out, "\"threads\":2,\"batch\":1,\"streams\":2,"));
  snprintf(cmd, sizeof cmd, "%s '%s' '%s' --streams 0 2>&1", emulator(), YOLORT_BENCH_EXE, model);
  assert_int_not_equal(run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "bad value '0' for --streams"));
}

static void test_bench_bad_model(void **state) {
  (void)state;
  char cmd[2048];
  static char out[4096];
  snprintf(cmd, sizeof cmd, "%s '%s' /nonexistent/model.yrt --runs 1 2>&1", emulator(),
           YOLORT_BENCH_EXE);
  int rc = run(cmd, out, sizeof out);
  assert_int_not_equal(rc, 0);
  assert_non_null(strstr(out, "yolort-bench"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bench_bad_model),
      cmocka_unit_test(test_bench_json),
      cmocka_unit_test(test_bench_json_same_keys),
      cmocka_unit_test(test_bench_table_e2e),
      cmocka_unit_test(test_bench_streams),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
