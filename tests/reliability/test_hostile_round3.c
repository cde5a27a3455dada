/* test_hostile_round3.c — issue 40 ("Hostile input, round 3"), the runtime and converter items:
 *   1 every sequence of set_frame / set_input / run / detect / a refused set_input gives, bit for
 *     bit, the outputs a fresh session gives for the last input set (a run after a frame used to
 *     compute on the QUANTIZE output the previous run had reused)
 *   2 output0's rows against META's class count (segment mask coefficients read as classes, an
 *     end-to-end file with its flag cleared)
 *   5 a model file truncated (cp over it) or rewritten while loaded: yrt_model_load_file reads it
 *     into memory, so sessions and runs go on (a mapping raised SIGBUS)
 *   6 converter inputs that gave silent wrong numbers (bad dynamic-quant weight scales, names
 *     lists of the wrong length, outputs listed twice, infinite scales)
 * Models are built here (rel_models.c, onnx_write.h). docs/reliability.md lists each item. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "convert.h"
#include "file_write.h"
#include "ir.h"
#include "onnx_write.h"
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

static yrt_session *new_session(yrt_model *m) {
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 1;
  yrt_session *s = NULL;
  yrt_error err;
  if (yrt_session_create(m, &o, &s, &err) != YRT_OK) fail_msg("session: %s", err.msg);
  return s;
}

/* ------------------------------------------------ 1: call sequences against a fresh session */

typedef struct outs {
  int n;
  size_t count[4];
  float *data[4];
} outs;

static void take_outputs(yrt_session *s, outs *o) {
  yrt_error err;
  o->n = 0;
  for (int i = 0; i < 4; i++) {
    yrt_tensor_view v;
    if (yrt_session_output(s, i, &v, &err) != YRT_OK) break;
    o->count[i] = v.count;
    o->data[i] = malloc(v.count * sizeof(float));
    assert_non_null(o->data[i]);
    memcpy(o->data[i], v.data, v.count * sizeof(float));
    o->n = i + 1;
  }
  assert_true(o->n >= 1);
}

static void free_outputs(outs *o) {
  for (int i = 0; i < o->n; i++) free(o->data[i]);
  o->n = 0;
}

static void expect_outputs(yrt_session *s, const outs *want, const char *what) {
  yrt_error err;
  for (int i = 0; i < want->n; i++) {
    yrt_tensor_view v;
    if (yrt_session_output(s, i, &v, &err) != YRT_OK) fail_msg("%s: output %d: %s", what, i, err.msg);
    assert_int_equal(v.count, want->count[i]);
    if (memcmp(v.data, want->data[i], v.count * sizeof(float)) != 0)
      fail_msg("%s: output %d differs from a fresh session's", what, i);
  }
}

static void make_frame(yrt_frame *f, uint8_t *px, int w, int h, unsigned seed) {
  for (int i = 0; i < w * h * 3; i++) px[i] = (uint8_t)((seed * 2654435761u + (unsigned)i * 40503u) >> 13);
  yrt_frame_init(f);
  f->format = YRT_PIX_RGB888;
  f->width = w;
  f->height = h;
  f->plane[0] = px;
  f->stride[0] = (size_t)w * 3;
}

static void ok(yrt_status st, const yrt_error *err, const char *what) {
  if (st != YRT_OK) fail_msg("%s: %s (%s)", what, yrt_status_name(st), err->msg);
}

static void frame_sequences(rel_model_kind kind) {
  yrt_model *m = load_kind(kind);
  yrt_error err;
  static uint8_t pa[29 * 21 * 3], pb[29 * 21 * 3];
  yrt_frame fa, fb;
  make_frame(&fa, pa, 29, 21, 1);
  make_frame(&fb, pb, 29, 21, 2);
  yrt_session *s = new_session(m);
  const size_t nin = yrt_session_input_count(s, 0);
  assert_true(nin > 0);
  float *x = malloc(nin * sizeof *x);
  assert_non_null(x);
  for (size_t i = 0; i < nin; i++) x[i] = (float)((i * 7919u) % 256u) / 255.0f;
  yrt_session_free(s);

  /* references: each input on a fresh session, one run */
  outs ra, rb, rx, rz;
  s = new_session(m);
  ok(yrt_session_set_frame(s, &fa, NULL, &err), &err, "fresh set_frame A");
  ok(yrt_session_run(s, &err), &err, "fresh run A");
  take_outputs(s, &ra);
  yrt_session_free(s);
  s = new_session(m);
  ok(yrt_session_set_frame(s, &fb, NULL, &err), &err, "fresh set_frame B");
  ok(yrt_session_run(s, &err), &err, "fresh run B");
  take_outputs(s, &rb);
  yrt_session_free(s);
  s = new_session(m);
  ok(yrt_session_set_input(s, 0, x, nin, &err), &err, "fresh set_input");
  ok(yrt_session_run(s, &err), &err, "fresh run X");
  take_outputs(s, &rx);
  yrt_session_free(s);
  s = new_session(m);
  ok(yrt_session_run(s, &err), &err, "fresh run without input");
  take_outputs(s, &rz);
  yrt_session_free(s);
  assert_true(memcmp(ra.data[0], rb.data[0], ra.count[0] * sizeof(float)) != 0); /* the frames differ */

  yrt_detection dets[16];
  int nd = 0;
  s = new_session(m);
  /* run, run: the second run reads the same frame */
  ok(yrt_session_set_frame(s, &fa, NULL, &err), &err, "set_frame A");
  for (int r = 0; r < 3; r++) {
    ok(yrt_session_run(s, &err), &err, "run A");
    expect_outputs(s, &ra, "set_frame A, run x3");
  }
  /* detect B, then run: the full run on B */
  (void)yrt_session_detect(s, &fb, NULL, dets, 16, &nd, &err);
  ok(yrt_session_run(s, &err), &err, "run after detect");
  expect_outputs(s, &rb, "detect B, run");
  ok(yrt_session_run(s, &err), &err, "run after detect, again");
  expect_outputs(s, &rb, "detect B, run, run");
  /* a refused set_input leaves the frame in effect */
  ok(yrt_session_set_frame(s, &fa, NULL, &err), &err, "set_frame A again");
  assert_int_equal(yrt_session_set_input(s, 0, x, nin - 1, &err), YRT_ERR_SHAPE);
  ok(yrt_session_run(s, &err), &err, "run after a refused set_input");
  expect_outputs(s, &ra, "set_frame A, refused set_input, run");
  assert_int_equal(yrt_session_set_input(s, 0, x, nin + 1, &err), YRT_ERR_SHAPE);
  ok(yrt_session_run(s, &err), &err, "run after a refused set_input (2)");
  expect_outputs(s, &ra, "set_frame A, run, refused set_input, run");
  assert_int_equal(yrt_session_set_input(s, 7, x, nin, &err), YRT_ERR_INVALID_ARG);
  ok(yrt_session_run(s, &err), &err, "run after set_input to input 7");
  expect_outputs(s, &ra, "set_input to input 7 refused, run");
  /* set_input after frames: the float input, every run */
  ok(yrt_session_set_input(s, 0, x, nin, &err), &err, "set_input X");
  ok(yrt_session_run(s, &err), &err, "run X");
  expect_outputs(s, &rx, "frames, set_input X, run");
  ok(yrt_session_run(s, &err), &err, "run X again");
  expect_outputs(s, &rx, "frames, set_input X, run, run");
  /* a refused frame leaves X in effect */
  yrt_frame bad = fa;
  bad.stride[0] = 1;
  assert_int_equal(yrt_session_set_frame(s, &bad, NULL, &err), YRT_ERR_INVALID_ARG);
  ok(yrt_session_run(s, &err), &err, "run after a refused frame");
  expect_outputs(s, &rx, "set_input X, refused frame, run");
  /* frame, detect, detect, run */
  (void)yrt_session_detect(s, &fa, NULL, dets, 16, &nd, &err);
  (void)yrt_session_detect(s, &fa, NULL, dets, 16, &nd, &err);
  ok(yrt_session_run(s, &err), &err, "run after two detects");
  expect_outputs(s, &ra, "detect A x2, run");
  ok(yrt_session_set_frame(s, &fb, NULL, &err), &err, "set_frame B");
  ok(yrt_session_set_frame(s, &fa, NULL, &err), &err, "set_frame A");
  ok(yrt_session_run(s, &err), &err, "run A after B");
  expect_outputs(s, &ra, "set_frame B, set_frame A, run");
  yrt_session_free(s);

  /* detect on a used session: the same detections as on a fresh one */
  yrt_detection d1[16], d2[16];
  int n1 = 0, n2 = 0;
  s = new_session(m);
  ok(yrt_session_set_input(s, 0, x, nin, &err), &err, "set_input");
  ok(yrt_session_run(s, &err), &err, "run");
  ok(yrt_session_set_frame(s, &fb, NULL, &err), &err, "set_frame B");
  ok(yrt_session_run(s, &err), &err, "run B");
  const yrt_status st1 = yrt_session_detect(s, &fa, NULL, d1, 16, &n1, &err);
  yrt_session_free(s);
  s = new_session(m);
  const yrt_status st2 = yrt_session_detect(s, &fa, NULL, d2, 16, &n2, &err);
  yrt_session_free(s);
  assert_int_equal(st1, st2);
  assert_int_equal(n1, n2);
  for (int i = 0; i < n1; i++)
    if (d1[i].class_id != d2[i].class_id || memcmp(&d1[i].score, &d2[i].score, sizeof(float)) ||
        memcmp(&d1[i].x0, &d2[i].x0, sizeof(float)) || memcmp(&d1[i].y1, &d2[i].y1, sizeof(float)))
      fail_msg("detection %d differs from a fresh session's", i);

  /* a run without any input: the fresh session's zeros, also after refused calls */
  s = new_session(m);
  assert_int_equal(yrt_session_set_input(s, 0, x, 3, &err), YRT_ERR_SHAPE);
  ok(yrt_session_run(s, &err), &err, "run on zeros");
  expect_outputs(s, &rz, "refused set_input, run");
  yrt_session_free(s);

  free_outputs(&ra);
  free_outputs(&rb);
  free_outputs(&rx);
  free_outputs(&rz);
  free(x);
  yrt_model_free(m);
}

static void test_call_sequences_int8(void **state) {
  (void)state;
  frame_sequences(REL_MODEL_QDQ_YOLO);
}

static void test_call_sequences_f32(void **state) {
  (void)state;
  frame_sequences(REL_MODEL_F32_YOLO);
}

/* ------------------------------------------------ 2: output0's rows against META's classes */

static void reseal(uint8_t *buf, size_t n) {
  yrt_file_header h;
  memcpy(&h, buf, sizeof h);
  h.crc32 = yrt_crc32(0, buf + sizeof h, n - sizeof h);
  memcpy(buf, &h, sizeof h);
}

static void expect_refused(const void *buf, size_t n, const char *msg_part) {
  yrt_model *m = NULL;
  yrt_error err;
  err.msg[0] = 0;
  const yrt_status st = yrt_model_load_memory(buf, n, 1, &m, &err);
  yrt_model_free(m);
  if (st != YRT_ERR_FORMAT) fail_msg("load: %s (%s), want FORMAT", yrt_status_name(st), err.msg);
  if (!strstr(err.msg, msg_part)) fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
}

/* CRC-valid files whose META class count or end-to-end flag disagrees with output0 [1, 6, 64]
 * (2 classes): refused at load, not decoded into class ids past the scores (an end-to-end file
 * with its flag cleared gave class 282, score 665). */
static void test_class_rows(void **state) {
  (void)state;
  void *buf = NULL;
  size_t n = 0;
  yrt_error err;
  if (rel_model_yrt(REL_MODEL_F32_YOLO, &buf, &n, &err) != YRT_OK) fail_msg("%s", err.msg);
  uint8_t *b = buf;
  yrt_file_view im;
  assert_int_equal(yrt_file_map(b, n, &im, NULL), YRT_OK);
  yrt_meta_rec *meta = (yrt_meta_rec *)(uintptr_t)im.meta;
  assert_int_equal(meta->num_classes, 2);
  const uint32_t names = meta->class_names;
  meta->class_names = 0; /* numbered, so the class count alone changes */
  for (uint32_t nc = 1; nc <= 300; nc += 299) {
    meta->num_classes = nc;
    reseal(b, n);
    expect_refused(b, n, "output0 has 6 rows, META says");
  }
  meta->num_classes = 2;
  meta->class_names = names;
  yrt_file_header h;
  memcpy(&h, b, sizeof h);
  h.flags |= YRT_FLAG_END2END;
  memcpy(b, &h, sizeof h);
  reseal(b, n);
  expect_refused(b, n, "end-to-end flag set, but output0 is not [1, K, 6]"); /* a detect model: 6 columns */
  h.flags &= ~(uint32_t)YRT_FLAG_END2END;
  memcpy(b, &h, sizeof h);
  reseal(b, n);
  yrt_model *m = NULL;
  if (yrt_model_load_memory(b, n, 1, &m, &err) != YRT_OK) fail_msg("restored file: %s", err.msg);
  yrt_model_free(m);
  free(buf);
}

/* A names list whose length is not output0's class count: ignored with a warning (it made a
 * 1-class file of a 2-class head). */
static void test_names_wrong_length(void **state) {
  (void)state;
  uint8_t *bytes = NULL;
  size_t n = 0;
  yrt_error err;
  if (rel_model_onnx(REL_MODEL_F32_YOLO, &bytes, &n, &err) != YRT_OK) fail_msg("%s", err.msg);
  const char *lists[] = {"cat", "cat\ndog\ncow"};
  for (int k = 0; k < 2; k++) {
    ir_graph *g = NULL;
    if (onnx_read_memory(bytes, n, &g, &err) != YRT_OK) fail_msg("%s", err.msg);
    free(g->class_names);
    g->class_names = ir_strdup(lists[k]);
    void *yrt = NULL;
    size_t size = 0;
    yrt_convert_report rep;
    if (yrt_convert_graph(g, NULL, &yrt, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
    ir_graph_free(g);
    assert_int_equal(rep.num_classes, 2);
    assert_non_null(strstr(rep.names_note, "names ignored"));
    yrt_model *m = NULL;
    if (yrt_model_load_memory(yrt, size, 1, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
    yrt_model_info info;
    yrt_model_get_info(m, &info);
    assert_int_equal(info.num_classes, 2);
    assert_null(yrt_model_class_name(m, 0));
    yrt_model_free(m);
    free(yrt);
  }
  free(bytes);
}

/* ------------------------------------------------ 6: files the converter's own loader refused */

/* Converts ONNX bytes; the status, and the converter must hand back no file when it refuses. */
static yrt_status convert_bytes(const uint8_t *bytes, size_t n, yrt_error *err) {
  ir_graph *g = NULL;
  yrt_status st = onnx_read_memory(bytes, n, &g, err);
  void *yrt = NULL;
  size_t size = 0;
  if (st == YRT_OK) st = yrt_convert_graph(g, NULL, &yrt, &size, NULL, err);
  ir_graph_free(g);
  if (st != YRT_OK) {
    assert_null(yrt);
    return st;
  }
  yrt_model *m = NULL; /* what it writes, its loader takes */
  if (yrt_model_load_memory(yrt, size, 1, &m, err) != YRT_OK) fail_msg("converted, then refused: %s", err->msg);
  yrt_model_free(m);
  free(yrt);
  return YRT_OK;
}

static void test_convert_refuses_what_load_refuses(void **state) {
  (void)state;
  yrt_error err;
  /* output0 listed twice */
  uint8_t *bytes = NULL;
  size_t n = 0;
  if (rel_model_onnx(REL_MODEL_F32_YOLO, &bytes, &n, &err) != YRT_OK) fail_msg("%s", err.msg);
  Onnx__ModelProto *m = NULL;
  assert_int_equal(onnx_model_load_memory(bytes, n, &m, &err), YRT_OK);
  free(bytes);
  assert_int_equal(onnx_model_add_output(m, m->graph->output[0]->name, IR_F32, -1, NULL), 0);
  assert_int_equal(onnx_model_pack(m, &bytes, &n, &err), YRT_OK);
  onnx_model_free(m);
  err.msg[0] = 0;
  const yrt_status st = convert_bytes(bytes, n, &err);
  print_message("output listed twice: %s (%s)\n", yrt_status_name(st), err.msg);
  assert_int_not_equal(st, YRT_OK);
  assert_non_null(strstr(err.msg, "twice"));
  free(bytes);
  /* an infinite (and a NaN) activation scale in the QDQ model */
  const float bad[] = {INFINITY, NAN, 1e35f};
  for (int k = 0; k < 3; k++) {
    if (rel_model_onnx(REL_MODEL_QDQ_YOLO, &bytes, &n, &err) != YRT_OK) fail_msg("%s", err.msg);
    assert_int_equal(onnx_model_load_memory(bytes, n, &m, &err), YRT_OK);
    free(bytes);
    int changed = 0;
    for (size_t i = 0; i < m->graph->n_initializer; i++) {
      Onnx__TensorProto *t = m->graph->initializer[i];
      if (!strstr(t->name, "_scale") || t->n_dims != 0 || !t->has_raw_data || t->raw_data.len != 4) continue;
      memcpy(t->raw_data.data, &bad[k], 4);
      changed++;
      break;
    }
    assert_int_equal(changed, 1);
    assert_int_equal(onnx_model_pack(m, &bytes, &n, &err), YRT_OK);
    onnx_model_free(m);
    err.msg[0] = 0;
    const yrt_status s2 = convert_bytes(bytes, n, &err);
    print_message("scale %g: %s (%s)\n", (double)bad[k], yrt_status_name(s2), err.msg);
    assert_int_not_equal(s2, YRT_OK);
    free(bytes);
  }
}

/* ------------------------------------------------ 5: the file changes under a loaded model */

static void test_file_truncated_underneath(void **state) {
  (void)state;
  void *buf = NULL;
  size_t n = 0;
  yrt_error err;
  if (rel_model_yrt(REL_MODEL_QDQ_YOLO, &buf, &n, &err) != YRT_OK) fail_msg("%s", err.msg);
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/reliability/tmp_round3_%ld.yrt", YOLORT_BINARY_DIR, (long)getpid());
  if (yrt_write_file_atomic(path, buf, n, &err) != YRT_OK) fail_msg("%s", err.msg);
  yrt_model *m = NULL;
  if (yrt_model_load_file(path, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  yrt_session *s0 = new_session(m);
  ok(yrt_session_run(s0, &err), &err, "run before");
  outs want;
  take_outputs(s0, &want);
  /* truncate, as cp over it does first, then write garbage where the model was */
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
  yrt_session *s1 = new_session(m); /* a mapping: SIGBUS here (packing weights) */
  ok(yrt_session_run(s1, &err), &err, "run after truncation");
  expect_outputs(s1, &want, "run after truncation");
  f = fopen(path, "w");
  assert_non_null(f);
  for (size_t i = 0; i < n; i++) fputc((int)(i * 131u & 0xff), f);
  fclose(f);
  ok(yrt_session_run(s0, &err), &err, "run after a rewrite");
  expect_outputs(s0, &want, "run after a rewrite");
  yrt_session_free(s0);
  yrt_session_free(s1);
  yrt_model_free(m);
  /* the mapped load: same model, same outputs while the file is left alone */
  if (yrt_write_file_atomic(path, buf, n, &err) != YRT_OK) fail_msg("%s", err.msg);
  if (yrt_model_load_file_mapped(path, &m, &err) != YRT_OK) fail_msg("mapped load: %s", err.msg);
  s0 = new_session(m);
  ok(yrt_session_run(s0, &err), &err, "mapped run");
  expect_outputs(s0, &want, "mapped run");
  yrt_session_free(s0);
  yrt_model_free(m);
  /* a file that is too short, or missing, for both */
  assert_int_equal(yrt_model_load_file_mapped("/nonexistent/m.yrt", &m, &err), YRT_ERR_IO);
  f = fopen(path, "w");
  assert_non_null(f);
  fputs("short", f);
  fclose(f);
  assert_int_equal(yrt_model_load_file(path, &m, &err), YRT_ERR_FORMAT);
  assert_int_equal(yrt_model_load_file_mapped(path, &m, &err), YRT_ERR_FORMAT);
  assert_null(m);
  unlink(path);
  free_outputs(&want);
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_call_sequences_int8),
      cmocka_unit_test(test_call_sequences_f32),
      cmocka_unit_test(test_class_rows),
      cmocka_unit_test(test_names_wrong_length),
      cmocka_unit_test(test_file_truncated_underneath),
      cmocka_unit_test(test_convert_refuses_what_load_refuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
