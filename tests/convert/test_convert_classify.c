/* test_convert_classify.c — a small classifier graph (x[1,3,4,4] -> GlobalAveragePool -> Flatten
 * -> Gemm(transB) [-> Softmax]) converted and run: task 'classify' from the metadata or from the
 * shape alone, the logits flag when the graph has no Softmax, yrt_session_classify_output's top-k
 * (order, probabilities against a double softmax, ties, caps, names), the frame path
 * (yrt_session_classify), the refusals of detect calls on a classifier and class names given at
 * conversion (--names). */
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
#include "yolort.h"
#include "yrt_view.h"

enum { K = 3, NC = 5, S = 4 };

/* W [NC, K] (Gemm transB = 1) and bias; class 2 and 3 tie on a grey image (equal rows). */
static const float k_w[NC * K] = {0.5f, -1.0f, 0.25f, 1.0f, 1.0f, 1.0f, 2.0f, 0.0f, 1.0f,
                                  2.0f, 0.0f, 1.0f, -1.0f, 0.5f, 0.0f};
static const float k_b[NC] = {0.1f, -0.2f, 0.0f, 0.0f, 0.3f};

static ir_graph *graph(int softmax, const char *task) {
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  if (task) g->task = ir_strdup(task);
  g->class_names = ir_strdup("a\nb\nc\nd\ne");
  const int64_t xd[4] = {1, 3, S, S}, pd[4] = {1, K, 1, 1}, fd[2] = {1, K}, wd[2] = {NC, K}, bd[1] = {NC},
                yd[2] = {1, NC};
  const int x = tb_act(g, "images", 4, xd), p = tb_act(g, "pool", 4, pd), f = tb_act(g, "flat", 2, fd);
  const int w = tb_const(g, "linear.weight", 2, wd, k_w), b = tb_const(g, "linear.bias", 1, bd, k_b);
  const int l = tb_act(g, softmax ? "logits" : "output0", 2, yd);
  ir_add_node(g, "pool", "GlobalAveragePool", &x, 1, &p, 1);
  ir_add_node(g, "flatten", "Flatten", &p, 1, &f, 1);
  const int gin[3] = {f, w, b};
  const int gemm = ir_add_node(g, "linear", "Gemm", gin, 3, &l, 1);
  ir_set_attr_int(g, gemm, "transB", 1);
  int y = l;
  if (softmax) {
    y = tb_act(g, "output0", 2, yd);
    const int sm = ir_add_node(g, "softmax", "Softmax", &l, 1, &y, 1);
    ir_set_attr_int(g, sm, "axis", 1);
  }
  ir_graph_add_input(g, x);
  ir_graph_add_output(g, y);
  return g;
}

typedef struct loaded {
  void *buf;
  yrt_model *m;
  yrt_session *s;
  yrt_convert_report rep;
} loaded;

static void load(loaded *L, int softmax, const char *task) {
  ir_graph *g = graph(softmax, task);
  size_t size = 0;
  yrt_error err;
  memset(L, 0, sizeof *L);
  yrt_status st = yrt_convert_graph(g, NULL, &L->buf, &size, &L->rep, &err);
  if (st) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(st, YRT_OK);
  ir_graph_free(g);
  assert_int_equal(yrt_model_load_memory(L->buf, size, 0, &L->m, &err), YRT_OK);
  assert_int_equal(yrt_session_create(L->m, NULL, &L->s, &err), YRT_OK);
}

static void unload(loaded *L) {
  yrt_session_free(L->s);
  yrt_model_free(L->m);
  free(L->buf);
}

/* The reference probabilities of an image whose channel means are mean[3]. */
static void reference(const float *mean, double *p) {
  double z[NC], mx = -1e30, sum = 0;
  for (int c = 0; c < NC; c++) {
    z[c] = k_b[c];
    for (int k = 0; k < K; k++) z[c] += (double)k_w[c * K + k] * mean[k];
    mx = z[c] > mx ? z[c] : mx;
  }
  for (int c = 0; c < NC; c++) sum += exp(z[c] - mx);
  for (int c = 0; c < NC; c++) p[c] = exp(z[c] - mx) / sum;
}

/* Runs a constant image of channel values v through set_input, checks the full top-5. */
static void check_topk(loaded *L, const float *v) {
  float x[3 * S * S];
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < S * S; i++) x[c * S * S + i] = v[c];
  yrt_error err;
  assert_int_equal(yrt_session_set_input(L->s, 0, x, 3 * S * S, &err), YRT_OK);
  assert_int_equal(yrt_session_run(L->s, &err), YRT_OK);
  double p[NC];
  reference(v, p);
  yrt_class_prob top[NC];
  int n = -1;
  assert_int_equal(yrt_session_classify_output(L->s, NC, top, NC, &n, &err), YRT_OK);
  assert_int_equal(n, NC);
  double total = 0;
  for (int i = 0; i < n; i++) {
    const int c = top[i].class_id;
    assert_true(c >= 0 && c < NC);
    assert_true(fabs(top[i].prob - p[c]) < 1e-5);
    assert_non_null(top[i].name);
    assert_int_equal(top[i].name[0], 'a' + c);
    if (i) { /* sorted; ties by class id */
      assert_true(top[i - 1].prob >= top[i].prob);
      if (top[i - 1].prob == top[i].prob) assert_true(top[i - 1].class_id < c);
    }
    total += top[i].prob;
  }
  assert_true(fabs(total - 1.0) < 1e-5);
  /* cap and top_k below the class count: the same first entries */
  yrt_class_prob two[2];
  assert_int_equal(yrt_session_classify_output(L->s, 5, two, 2, &n, &err), YRT_OK);
  assert_int_equal(n, 2);
  assert_int_equal(two[0].class_id, top[0].class_id);
  assert_int_equal(two[1].class_id, top[1].class_id);
  assert_int_equal(yrt_session_classify_output(L->s, 1, two, 2, &n, &err), YRT_OK);
  assert_int_equal(n, 1);
  assert_int_equal(two[0].class_id, top[0].class_id);
}

static void classify(int softmax, const char *task) {
  loaded L;
  load(&L, softmax, task);
  assert_int_equal(L.rep.classify, 1);
  assert_int_equal(L.rep.class_logits, !softmax);
  assert_int_equal(L.rep.n_gemm, 1);
  assert_string_equal(yrt_model_task(L.m), "classify");
  yrt_model_info info;
  yrt_model_get_info(L.m, &info);
  assert_int_equal(info.num_classes, NC);
  const float grey[3] = {0.5f, 0.5f, 0.5f}, v1[3] = {0.9f, 0.1f, 0.3f}, v2[3] = {0.0f, 1.0f, 0.2f};
  check_topk(&L, grey);
  check_topk(&L, v1);
  check_topk(&L, v2);
  /* rows 2 and 3 are equal: on any image they tie, class 2 listed first */
  yrt_class_prob top[NC];
  int n = 0;
  yrt_error err;
  assert_int_equal(yrt_session_classify_output(L.s, NC, top, NC, &n, &err), YRT_OK);
  for (int i = 0; i + 1 < n; i++)
    if (top[i].class_id == 3) assert_true(top[i + 1].class_id != 2);
  /* the frame path: a grey RGB frame (the letterbox keeps it grey) */
  uint8_t rgb[8 * 6 * 3];
  memset(rgb, 128, sizeof rgb);
  yrt_frame fr;
  yrt_frame_init(&fr);
  fr.format = YRT_PIX_RGB888;
  fr.width = 8;
  fr.height = 6;
  fr.plane[0] = rgb;
  fr.stride[0] = 8 * 3;
  assert_int_equal(yrt_session_classify(L.s, &fr, 3, top, NC, &n, &err), YRT_OK);
  assert_int_equal(n, 3);
  const float g128[3] = {128.0f / 255.0f, 128.0f / 255.0f, 128.0f / 255.0f};
  double p[NC];
  reference(g128, p);
  for (int i = 0; i < n; i++) assert_true(fabs(top[i].prob - p[top[i].class_id]) < 2e-3);
  /* refusals */
  yrt_detection dets[4];
  assert_int_equal(yrt_session_detect(L.s, &fr, NULL, dets, 4, &n, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "classifier"));
  assert_int_equal(yrt_session_classify_output(L.s, 0, top, NC, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_session_classify_output(L.s, 5, NULL, 5, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_session_classify_output(NULL, 5, top, 5, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_session_classify_output(L.s, 5, NULL, 0, &n, &err), YRT_OK);
  assert_int_equal(n, 0);
  unload(&L);
}

static void test_classify_softmax_meta(void **state) {
  (void)state;
  classify(1, "classify");
}

static void test_classify_logits_meta(void **state) {
  (void)state;
  classify(0, "classify");
}

static void test_classify_by_shape(void **state) { /* no task in the metadata */
  (void)state;
  classify(1, NULL);
  classify(0, NULL);
}

/* task 'classify' with an output that is not [1, nc]: refused naming the output */
static void test_classify_bad_output(void **state) {
  (void)state;
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  g->task = ir_strdup("classify");
  const int64_t xd[4] = {1, 3, S, S}, pd[4] = {1, 3, 2, 2}, wd[4] = {3, 1, 1, 1};
  const float w[3] = {1, 1, 1};
  const int x = tb_act(g, "images", 4, xd), y = tb_act(g, "output0", 4, pd), wt = tb_const(g, "w", 4, wd, w);
  const int in[2] = {x, wt};
  const int c = ir_add_node(g, "conv", "Conv", in, 2, &y, 1);
  const int64_t k[2] = {1, 1}, st2[2] = {2, 2};
  ir_set_attr_ints(g, c, "kernel_shape", k, 2);
  ir_set_attr_ints(g, c, "strides", st2, 2);
  ir_set_attr_int(g, c, "group", 3);
  ir_graph_add_input(g, x);
  ir_graph_add_output(g, y);
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  assert_int_equal(yrt_convert_graph(g, NULL, &buf, &size, NULL, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "'classify'"));
  assert_non_null(strstr(err.msg, "output0"));
  ir_graph_free(g);
}

/* Class names: yolort-convert --names (options.class_names) replaces the metadata's and is
 * stored; a file without names is reported (rep.no_names); names of another count than the
 * classes are an error naming --names, never dropped. */
static void convert_names(const char *meta, const char *names, yrt_status want, yrt_convert_report *rep, char *first,
                          size_t cap) {
  ir_graph *g = graph(1, "classify");
  free(g->class_names);
  g->class_names = meta ? ir_strdup(meta) : NULL;
  yrt_convert_options o;
  memset(&o, 0, sizeof o);
  o.class_names = names;
  void *buf = NULL;
  size_t size = 0;
  yrt_error err = {{0}};
  const yrt_status st = yrt_convert_graph(g, &o, &buf, &size, rep, &err);
  ir_graph_free(g);
  if (st != want) fail_msg("names '%s': status %d (%s), want %d", names ? names : "(none)", (int)st, err.msg, (int)want);
  if (st != YRT_OK) {
    assert_null(buf);
    assert_non_null(strstr(err.msg, "--names gives 4 class names, the model has 5 classes"));
    return;
  }
  yrt_model *m = NULL;
  assert_int_equal(yrt_model_load_memory(buf, size, 0, &m, &err), YRT_OK);
  const char *n0 = yrt_model_class_name(m, 0);
  snprintf(first, cap, "%s|%s", n0 ? n0 : "", yrt_model_class_name(m, 4) ? yrt_model_class_name(m, 4) : "");
  yrt_model_free(m);
  free(buf);
}

static void test_classify_names(void **state) {
  (void)state;
  yrt_convert_report rep;
  char got[64];
  convert_names(NULL, NULL, YRT_OK, &rep, got, sizeof got);
  assert_int_equal(rep.no_names, 1);
  convert_names(NULL, "apple\nbanana pie\nc\nd\nzucchini", YRT_OK, &rep, got, sizeof got);
  assert_int_equal(rep.no_names, 0);
  assert_string_equal(got, "apple|zucchini");
  convert_names("a\nb\nc\nd\ne", "v\nw\nx\ny\nz", YRT_OK, &rep, got, sizeof got); /* replaces the metadata's */
  assert_string_equal(got, "v|z");
  convert_names("a\nb\nc\nd\ne", NULL, YRT_OK, &rep, got, sizeof got);
  assert_int_equal(rep.no_names, 0);
  assert_string_equal(got, "a|e");
  convert_names(NULL, "v\nw\nx\ny", YRT_ERR_INVALID_ARG, &rep, got, sizeof got);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_classify_softmax_meta),
      cmocka_unit_test(test_classify_logits_meta),
      cmocka_unit_test(test_classify_by_shape),
      cmocka_unit_test(test_classify_bad_output),
      cmocka_unit_test(test_classify_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
