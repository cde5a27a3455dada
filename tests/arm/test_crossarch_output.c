/* test_crossarch_output.c — the same .yrt must give bit-identical output0 on every architecture.
 *
 * Runs yolo11n-320.qdq on the reference 320x320 inputs and writes, under
 * <build>/crossarch/: the .yrt it used and <image>.output0.f32 for each input. With env
 * YOLORT_CROSSARCH_REF=<dir> (another architecture's crossarch/ directory, e.g. the x86-64 build's
 * when this is the aarch64 build under qemu) it runs that directory's .yrt instead of converting,
 * and requires every output byte to equal that directory's outputs.
 * .ci/arm/build-and-test.sh sets YOLORT_CROSSARCH_REF to build/crossarch when it exists. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "convert.h"
#include "test_data.h"
#include "yolort.h"

#define IMG_S 320
#define N_ANCHORS 2100
#define N_OUT (84 * N_ANCHORS)
static const char *const k_images[] = {"000000000285", "000000000632", "000000000724",
                                       "000000000785"};

/* Whole file into a malloc'd buffer; NULL when missing or unreadable. */
static void *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  void *buf = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    const long n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
      if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
      } else {
        *size = (size_t)n;
      }
    }
  }
  fclose(f);
  return buf;
}

static void write_all(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) fail_msg("cannot write %s: %s", path, strerror(errno));
  const size_t w = fwrite(data, 1, size, f);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(w, size);
}

/* Identical garbage would pass the comparison: the best class score of the image must be
 * within 0.05 of onnxruntime's for the same QDQ model (its int8 rounding may differ by 1 LSB). */
static void check_plausible(const char *image, const float *out) {
  char rel[256], path[1024];
  snprintf(rel, sizeof rel, "reference/%s.yolo11n-320.qdq.output0.f32", image);
  YT_REQUIRE_DATA(path, rel);
  size_t size = 0;
  float *ort = read_all(path, &size);
  assert_non_null(ort);
  assert_int_equal(size, (size_t)N_OUT * sizeof(float));
  float best = 0, best_ort = 0;
  for (size_t k = 4 * N_ANCHORS; k < N_OUT; k++) {
    best = out[k] > best ? out[k] : best;
    best_ort = ort[k] > best_ort ? ort[k] : best_ort;
  }
  free(ort);
  if (fabsf(best - best_ort) > 0.05f)
    fail_msg("%s: best class score %.4f, onnxruntime %.4f: output0 is not plausible", image,
             (double)best, (double)best_ort);
}

static void output0_matches_across_arches(void **state) {
  (void)state;
  char onnx[1024], in_path[1024], path[1200];
  YT_REQUIRE_DATA(onnx, "models/yolo11n-320.qdq.onnx");
  const char *ref = getenv("YOLORT_CROSSARCH_REF");
  if (ref && !*ref) ref = NULL;

  char outdir[1024];
  snprintf(outdir, sizeof outdir, "%s/crossarch", YOLORT_BINARY_DIR);
  if (mkdir(outdir, 0777) != 0 && errno != EEXIST) fail_msg("mkdir %s: %s", outdir, strerror(errno));

  yrt_error err = {{0}};
  yrt_model *model = NULL;
  void *yrt = NULL;
  size_t yrt_size = 0;
  if (ref) {
    snprintf(path, sizeof path, "%s/yolo11n-320.qdq.yrt", ref);
    yrt = read_all(path, &yrt_size);
    if (!yrt) fail_msg("YOLORT_CROSSARCH_REF is set but %s cannot be read", path);
    /* The runtime wants a 64-byte aligned image; copy == 1 makes its own. */
    assert_int_equal(yrt_model_load_memory(yrt, yrt_size, 1, &model, &err), YRT_OK);
  } else {
    yrt_status st = yrt_convert_onnx_file(onnx, NULL, &yrt, &yrt_size, NULL, &err);
    if (st != YRT_OK) fail_msg("convert %s: %s", onnx, err.msg);
    st = yrt_model_load_memory(yrt, yrt_size, 1, &model, &err);
    if (st != YRT_OK) fail_msg("load converted model: %s", err.msg);
  }
  snprintf(path, sizeof path, "%s/yolo11n-320.qdq.yrt", outdir);
  write_all(path, yrt, yrt_size);

  yrt_session_options opts = {.num_threads = 1, .arena = NULL, .arena_bytes = 0};
  yrt_session *s = NULL;
  if (yrt_session_create(model, &opts, &s, &err) != YRT_OK) fail_msg("session: %s", err.msg);

  int checked = 0;
  for (size_t i = 0; i < sizeof k_images / sizeof k_images[0]; i++) {
    char rel[256];
    snprintf(rel, sizeof rel, "reference/%s.%d.input.f32", k_images[i], IMG_S);
    YT_REQUIRE_DATA(in_path, rel);
    size_t in_size = 0;
    float *in = read_all(in_path, &in_size);
    assert_non_null(in);
    assert_int_equal(in_size, (size_t)3 * IMG_S * IMG_S * sizeof(float));
    if (yrt_session_set_input(s, 0, in, (size_t)3 * IMG_S * IMG_S, &err) != YRT_OK)
      fail_msg("set_input %s: %s", k_images[i], err.msg);
    free(in);
    if (yrt_session_run(s, &err) != YRT_OK) fail_msg("run %s: %s", k_images[i], err.msg);
    yrt_tensor_view out;
    if (yrt_session_output(s, 0, &out, &err) != YRT_OK) fail_msg("output0: %s", err.msg);
    assert_int_equal(out.count, (size_t)N_OUT);
    for (size_t k = 0; k < out.count; k++)
      if (!isfinite(out.data[k])) fail_msg("%s: output0[%zu] is not finite", k_images[i], k);

    snprintf(path, sizeof path, "%s/%s.output0.f32", outdir, k_images[i]);
    write_all(path, out.data, out.count * sizeof(float));
    if (ref) {
      snprintf(path, sizeof path, "%s/%s.output0.f32", ref, k_images[i]);
      size_t ref_size = 0;
      float *want = read_all(path, &ref_size);
      if (!want) fail_msg("reference output %s cannot be read", path);
      assert_int_equal(ref_size, out.count * sizeof(float));
      if (memcmp(want, out.data, ref_size) != 0) {
        size_t ndiff = 0, first = 0;
        double maxd = 0;
        for (size_t k = 0; k < out.count; k++)
          if (memcmp(&want[k], &out.data[k], sizeof(float)) != 0) {
            if (!ndiff) first = k;
            ndiff++;
            const double d = fabs((double)want[k] - (double)out.data[k]);
            maxd = d > maxd ? d : maxd;
          }
        free(want);
        fail_msg("%s: output0 differs from %s in %zu of %zu values (first at %zu, max |diff| %g)",
                 k_images[i], ref, ndiff, out.count, first, maxd);
      }
      free(want);
      checked++;
    }
    check_plausible(k_images[i], out.data);
  }
  if (ref) print_message("output0 bit-identical with %s for %d inputs\n", ref, checked);
  yrt_session_free(s);
  yrt_model_free(model);
  free(yrt);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(output0_matches_across_arches)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
