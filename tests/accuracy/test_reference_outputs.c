/* test_reference_outputs.c — yolort against onnxruntime on the reference inputs of ../shared:
 *  - FP32 ONNX (issue 2): output0 within 1e-3 on scores and 0.05 px on boxes;
 *  - QDQ ONNX uint8 (issue 3), where onnxruntime runs integer kernels: with --exact-qdq output0 is
 *    bit-identical to onnxruntime's; with the default float head, scores within 0.02 and boxes
 *    within 1.5 px on 99.5% of the entries and >= 95% of its detections found with IoU > 0.9;
 *  - QDQ ONNX int8: onnxruntime on x86 runs these convs as DQ -> float Conv -> Q, whose float
 *    rounding flips a few int8 values that the box branch amplifies to whole pixels (one input
 *    pixel changed by 1/255 moves onnxruntime's own boxes by 2.1 px on average, 40% of box
 *    entries by > 1.5 px: docs/accuracy.md). So: scores within 0.02 on 99.5% of score entries,
 *    every reference detection found with IoU > 0.5 and >= 85% with IoU > 0.9, and boxes at
 *    least as close to the FP32 model as onnxruntime's;
 *  - the wild YOLOv8n QDQ whose single-scale final Concat gives 0 mAP in onnxruntime: real
 *    detections that agree with the FP32 YOLO11n's on the same images. */
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
#include "yolort.h"

static float *read_f32(const char *path, size_t count) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  float *v = malloc(count * sizeof(float));
  size_t got = v ? fread(v, sizeof(float), count, f) : 0;
  fclose(f);
  if (got != count) {
    free(v);
    return NULL;
  }
  return v;
}

typedef struct ctx {
  yrt_model *m;
  yrt_session *s;
} ctx;

/* no_ties: onnxruntime's arithmetic in the int8 body (the file's own ranges, float-chain Adds). */
static void open_model_ex(ctx *c, const char *rel, int exact, int no_ties) {
  char path[1024];
  YT_REQUIRE_DATA(path, rel);
  yrt_error err = {{0}};
  void *buf = NULL;
  size_t size = 0;
  yrt_convert_options o = {.exact_qdq = exact, .no_ties = no_ties, .float_add = no_ties};
  if (yrt_convert_onnx_file(path, &o, &buf, &size, NULL, &err) != YRT_OK) fail_msg("convert %s: %s", rel, err.msg);
  if (yrt_model_load_memory(buf, size, 1, &c->m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  free(buf);
  yrt_session_options so = {.num_threads = 2};
  if (yrt_session_create(c->m, &so, &c->s, &err) != YRT_OK) fail_msg("session: %s", err.msg);
}

static void open_model(ctx *c, const char *rel) { open_model_ex(c, rel, 0, 0); }

static void close_model(ctx *c) {
  yrt_session_free(c->s);
  yrt_model_free(c->m);
}

/* Runs the reference input of `image` at size S; returns output0 (logical [1,84,N]). */
static const float *run_ref_input(ctx *c, const char *image, int S, size_t *n_anchors) {
  char rel[256], path[1024];
  snprintf(rel, sizeof rel, "reference/%s.%d.input.f32", image, S);
  YT_REQUIRE_DATA(path, rel);
  const size_t nx = (size_t)3 * S * S;
  float *x = read_f32(path, nx);
  assert_non_null(x);
  yrt_error err = {{0}};
  if (yrt_session_set_input(c->s, 0, x, nx, &err) != YRT_OK) fail_msg("input: %s", err.msg);
  free(x);
  if (yrt_session_run(c->s, &err) != YRT_OK) fail_msg("run: %s", err.msg);
  yrt_tensor_view v;
  if (yrt_session_output(c->s, 0, &v, &err) != YRT_OK) fail_msg("output: %s", err.msg);
  assert_int_equal(v.rank, 3);
  assert_int_equal(v.dims[1], 84);
  *n_anchors = (size_t)v.dims[2];
  return v.data;
}

static int detect(const float *out0, size_t na, yrt_detection *d, int cap) {
  yrt_postprocess_params pp;
  yrt_postprocess_defaults(&pp);
  void *scratch = malloc(yrt_postprocess_scratch_bytes((int)na, pp.max_detections));
  assert_non_null(scratch);
  int n = 0;
  yrt_error err = {{0}};
  if (yrt_postprocess(out0, 80, (int)na, NULL, &pp, scratch, d, cap, &n, &err) != YRT_OK)
    fail_msg("postprocess: %s", err.msg);
  free(scratch);
  return n;
}

static float iou(const yrt_detection *a, const yrt_detection *b) {
  const float ix = fminf(a->x1, b->x1) - fmaxf(a->x0, b->x0);
  const float iy = fminf(a->y1, b->y1) - fmaxf(a->y0, b->y0);
  if (ix <= 0 || iy <= 0) return 0;
  const float inter = ix * iy;
  const float ua = (a->x1 - a->x0) * (a->y1 - a->y0) + (b->x1 - b->x0) * (b->y1 - b->y0) - inter;
  return ua > 0 ? inter / ua : 0;
}

/* How many of ref's detections have a same-class match in got with IoU > thr. */
static int matched(const yrt_detection *ref, int nr, const yrt_detection *got, int ng, float thr) {
  int m = 0;
  for (int i = 0; i < nr; i++)
    for (int j = 0; j < ng; j++)
      if (got[j].class_id == ref[i].class_id && iou(&ref[i], &got[j]) > thr) {
        m++;
        break;
      }
  return m;
}

typedef struct ref_case {
  const char *model; /* file under models/ */
  const char *tag;   /* reference output tag */
  int size;
  const char *images[4];
} ref_case;

static const char *const k320[] = {"000000000285", "000000000632", "000000000724", "000000000785"};

enum { MODE_FP32 = 0, MODE_EXACT = 1, MODE_FLOAT_HEAD = 2, MODE_S8 = 3 };

/* MODE_FP32: tight tolerance. MODE_EXACT (--exact-qdq, onnxruntime's own quantized head): the
 * issue's 0.02 / 1.5 px on 99.5% of entries. MODE_FLOAT_HEAD (head in float): boxes may leave
 * onnxruntime's quantized DFL, but must be at least as close to the FP32 model as it is. These
 * compare with onnxruntime's chain, so without the Concat ties and with float-chain Adds
 * (--no-ties --float-add); `tied` (the default conversion: Concat inputs rounded once on the
 * Concat's grid, not twice as onnxruntime does; fixed-point Adds) only has to stay as close to the
 * FP32 model as onnxruntime and find its detections. */
static void compare_case_ex(const ref_case *rc, int mode, int tied) {
  const int int8 = mode != MODE_FP32;
  ctx c;
  char rel[256], path[1024];
  snprintf(rel, sizeof rel, "models/%s", rc->model);
  open_model_ex(&c, rel, mode == MODE_EXACT, !tied);
  const int s8 = mode == MODE_S8;
  double ours_fp = 0, ort_fp = 0; /* box error against FP32 on confident anchors */
  double ours_sc = 0, ort_sc = 0; /* their best class's score error against FP32 */
  int clear_dets = 0, clear_found = 0; /* FP32 detections scoring >= 0.35 (not at the threshold), found */
  size_t n_conf = 0;
  size_t total_entries = 0, bad_entries = 0, bad_boxes = 0, score_entries = 0;
  int found50 = 0;
  int ref_dets = 0, found = 0;
  int fp_dets = 0, ours_of_fp = 0, ort_of_fp = 0; /* FP32 detections each int8 run finds (IoU > 0.5) */
  double max_box = 0, max_score = 0;
  for (int i = 0; i < 4 && rc->images[i]; i++) {
    size_t na;
    const float *got = run_ref_input(&c, rc->images[i], rc->size, &na);
    snprintf(rel, sizeof rel, "reference/%s.%s.output0.f32", rc->images[i], rc->tag);
    YT_REQUIRE_DATA(path, rel);
    float *ref = read_f32(path, 84 * na);
    assert_non_null(ref);
    for (size_t a = 0; a < 84 * na; a++) {
      const double d = fabs((double)got[a] - ref[a]);
      const int is_box = a < 4 * na;
      if (is_box && d > max_box) max_box = d;
      if (!is_box && d > max_score) max_score = d;
      bad_entries += is_box ? d > 1.5 : d > 0.02;
      bad_boxes += is_box && d > 1.5;
      total_entries++;
    }
    if (getenv("YT_DUMP")) {
      char dp[512];
      snprintf(dp, sizeof dp, "%s/%s.%s.yolort.f32", getenv("YT_DUMP"), rc->images[i], rc->tag);
      FILE *df = fopen(dp, "wb");
      if (df) {
        fwrite(got, sizeof(float), 84 * na, df);
        fclose(df);
      }
    }
    if (int8) {
      char base[64];
      snprintf(base, sizeof base, "%s", rc->tag);
      char *dot = strchr(base, '.');
      if (dot) *dot = 0;
      snprintf(rel, sizeof rel, "reference/%s.%s.output0.f32", rc->images[i], base);
      YT_REQUIRE_DATA(path, rel);
      float *fp = read_f32(path, 84 * na);
      assert_non_null(fp);
      for (size_t a = 0; a < na; a++) {
        float best = 0;
        int bk = 4;
        for (int k = 4; k < 84; k++)
          if (fp[(size_t)k * na + a] > best) best = fp[(size_t)k * na + a], bk = k;
        if (best < 0.1f) continue;
        n_conf++;
        ours_sc += fabs((double)got[(size_t)bk * na + a] - best);
        ort_sc += fabs((double)ref[(size_t)bk * na + a] - best);
        for (int k = 0; k < 4; k++) {
          ours_fp += fabs((double)got[(size_t)k * na + a] - fp[(size_t)k * na + a]);
          ort_fp += fabs((double)ref[(size_t)k * na + a] - fp[(size_t)k * na + a]);
        }
      }
      yrt_detection df[300], dq[300];
      const int nf = detect(fp, na, df, 300), nq = detect(got, na, dq, 300), no = detect(ref, na, dq + 150, 150);
      fp_dets += nf;
      ours_of_fp += matched(df, nf, dq, nq < 150 ? nq : 150, 0.5f);
      for (int k = 0; k < nf; k++) {
        const int hit = matched(&df[k], 1, dq, nq < 150 ? nq : 150, 0.5f);
        clear_dets += df[k].score >= 0.35f;
        clear_found += df[k].score >= 0.35f && hit;
        if (!hit)
          print_message("  %s: FP32 detection class %d score %.3f not found (onnxruntime %s)\n", rc->images[i],
                        df[k].class_id, df[k].score, matched(&df[k], 1, dq + 150, no, 0.5f) ? "finds it" : "neither");
      }
      ort_of_fp += matched(df, nf, dq + 150, no, 0.5f);
      free(fp);
    }
    yrt_detection dr[300], dg[300];
    const int nr = detect(ref, na, dr, 300), ng = detect(got, na, dg, 300);
    ref_dets += nr;
    found += matched(dr, nr, dg, ng, 0.9f);
    found50 += matched(dr, nr, dg, ng, 0.5f);
    score_entries += 80 * na;
    print_message("%s %s: %d reference detections, %d ours, %d matched (IoU>0.9)\n", rc->model,
                  rc->images[i], nr, ng, matched(dr, nr, dg, ng, 0.9f));
    free(ref);
  }
  print_message("%s: max |d| boxes %.4f px, scores %.5f; entries out of tolerance %zu/%zu (%zu boxes)\n",
                rc->model, max_box, max_score, bad_entries, total_entries, bad_boxes);
  if (int8)
    print_message("%s: mean box error vs FP32 on %zu confident anchors: yolort %.3f px, onnxruntime %.3f px\n",
                  rc->model, n_conf, ours_fp / (4.0 * (double)n_conf), ort_fp / (4.0 * (double)n_conf));
  print_message("%s%s: %d of %d reference detections matched at IoU > 0.5; of the FP32 model's %d, yolort "
                "finds %d, onnxruntime %d\n",
                rc->model, tied ? " (tied)" : "", found50, ref_dets, fp_dets, ours_of_fp, ort_of_fp);
  if (int8)
    print_message("%s%s: mean best-class score error vs FP32: yolort %.4f, onnxruntime %.4f; FP32 detections over "
                  "0.35 found: %d of %d\n", rc->model, tied ? " (tied)" : "", ours_sc / (double)n_conf,
                  ort_sc / (double)n_conf, clear_found, clear_dets);
  if (tied) { /* no longer onnxruntime's chain: judged against the FP32 model, as onnxruntime is (detections
               * at the 0.25 threshold come and go with any change: only the clear ones must stay) */
    assert_true(ours_fp <= ort_fp * 1.05);
    assert_true(ours_sc <= ort_sc * 1.05);
    assert_true(clear_dets > 0);
    assert_int_equal(clear_found, clear_dets);
  } else if (mode == MODE_FP32) {
    assert_true(max_box < 0.05);
    assert_true(max_score < 1e-3);
  } else if (mode == MODE_EXACT) {
    assert_int_equal(bad_entries, 0);
    assert_true(max_box < 1e-3 && max_score < 1e-4); /* bit-exact but for float head rounding */
  } else if (s8) {
    assert_true((double)(bad_entries - bad_boxes) <= 0.005 * (double)score_entries);
    assert_true(ref_dets > 0);
    assert_int_equal(found50, ref_dets);
    assert_true(found >= 0.85 * ref_dets);
    assert_true(ours_fp <= ort_fp * 1.05);
  } else {
    assert_true((double)bad_entries <= 0.005 * (double)total_entries);
    assert_true(ours_fp <= ort_fp * 1.05);
    assert_true(ref_dets > 0);
    assert_true(found >= 0.95 * ref_dets);
  }
  close_model(&c);
}

static void compare_case(const ref_case *rc, int mode) {
  compare_case_ex(rc, mode, 0);
  if (mode == MODE_S8 || mode == MODE_FLOAT_HEAD) compare_case_ex(rc, mode, 1);
}

static void fp32_320(void **st) {
  (void)st;
  ref_case rc = {"yolo11n-320.onnx", "yolo11n-320", 320, {k320[0], k320[1], k320[2], k320[3]}};
  compare_case(&rc, MODE_FP32);
}
static void fp32_640(void **st) {
  (void)st;
  ref_case rc = {"yolo11n-640.onnx", "yolo11n-640", 640, {k320[0], k320[1], NULL, NULL}};
  compare_case(&rc, MODE_FP32);
}
static void qdq_320(void **st) {
  (void)st;
  ref_case rc = {"yolo11n-320.qdq.onnx", "yolo11n-320.qdq", 320, {k320[0], k320[1], k320[2], k320[3]}};
  compare_case(&rc, MODE_S8);
}
static void qdq_640(void **st) {
  (void)st;
  ref_case rc = {"yolo11n-640.qdq.onnx", "yolo11n-640.qdq", 640, {k320[0], k320[1], NULL, NULL}};
  compare_case(&rc, MODE_S8);
}
static void qdq_u8_640(void **st) {
  (void)st;
  ref_case rc = {"yolo11n-640.qdq-u8.onnx", "yolo11n-640.qdq-u8", 640, {k320[0], k320[1], NULL, NULL}};
  compare_case(&rc, MODE_FLOAT_HEAD);
  compare_case(&rc, MODE_EXACT);
}

/* The wild YOLOv8n: onnxruntime rounds every score to 0; with the head in float we must find the
 * objects the FP32 YOLO11n finds on the same images. */
static void wild_yolov8n(void **st) {
  (void)st;
  ctx w, f;
  open_model(&w, "models/wild/yolov8n-640.qdq-u8-pertensor.onnx");
  open_model(&f, "models/yolo11n-640.onnx");
  int ref_total = 0, found = 0, got_total = 0;
  for (int i = 0; i < 2; i++) {
    size_t na;
    yrt_detection dr[300], dg[300];
    const float *of = run_ref_input(&f, k320[i], 640, &na);
    const int nr = detect(of, na, dr, 300);
    const float *ow = run_ref_input(&w, k320[i], 640, &na);
    const int ng = detect(ow, na, dg, 300);
    int strong = 0, strong_found = 0;
    for (int k = 0; k < nr; k++) {
      if (dr[k].score < 0.5f) continue;
      strong++;
      strong_found += matched(&dr[k], 1, dg, ng, 0.5f);
    }
    print_message("wild yolov8n on %s: %d detections (yolo11n fp32: %d, %d strong, %d of them found)\n",
                  k320[i], ng, nr, strong, strong_found);
    ref_total += strong;
    found += strong_found;
    got_total += ng;
  }
  assert_true(got_total > 0);
  assert_true(ref_total > 0);
  assert_true(found >= (ref_total * 2 + 2) / 3);
  close_model(&w);
  close_model(&f);
}

int main(void) {
  const struct CMUnitTest t[] = {
      cmocka_unit_test(fp32_320), cmocka_unit_test(fp32_640),   cmocka_unit_test(qdq_320),
      cmocka_unit_test(qdq_640),  cmocka_unit_test(qdq_u8_640), cmocka_unit_test(wild_yolov8n),
  };
  return cmocka_run_group_tests(t, NULL, NULL);
}
