/* test_detect_fuse.c — the Detect head fusion (tools/lower/fuse_detect_head.c + the runtime's
 * detect_decode): the same model converted with and without the fusion gives the same output0,
 * on a synthetic three-scale head built here (float and int8 logits, no data needed) and on the
 * real models of ../shared; the matcher refuses heads whose constants or wiring differ.
 *
 * Bounds: the fused op computes what the graph computes, in float, in nearly the same order
 * (scores: the very same sigmoid on the same float inputs or a table of its 256 int8 results, so
 * they agree to a few ulp, < 1e-5). Boxes differ only by float rounding: the softmax exponent is
 * s*(q - qmax) instead of (q-zp)*s - (qmax-zp)*s (a few ulp of |x| <= ~30), and the projection is
 * summed as sum(w*e)/sum(e) instead of sum(w*(e/sum)); relative error ~1e-6 on distances of at most
 * reg_max*stride (480 px at 640) gives < 1e-3 px. */
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
#include "yrt_view.h"

enum { IMG = 64, R = 16, NC = 5, NS = 3, N = 64 + 16 + 4 };
static const int STR[NS] = {8, 16, 32};

typedef struct spec {
  int quant;       /* int8 convs with int8 logits */
  int bad_anchor;  /* one anchor 0.25 off the grid */
  int bad_dfl;     /* a DFL weight that is not arange */
  int extra_use;   /* an intermediate is also a graph output (fused, its nodes kept) */
  int bad_slice;   /* the second slice takes channels 1..3 */
  int swap_wh;     /* rows (w, h, cx, cy) instead of (cx, cy, w, h) */
  int masks;       /* > 0: a segment head's mask coefficients, rows after the scores */
} spec;

static int act(ir_graph *g, const char *name) { return ir_add_tensor(g, name, IR_F32); }

static int node(ir_graph *g, const char *name, const char *op, const int *in, int n_in, int out) {
  int nd = ir_add_node(g, name, op, in, n_in, &out, 1);
  assert_true(nd >= 0);
  return nd;
}

static int reshape(ir_graph *g, const char *name, int x, int n, const int64_t *shape) {
  char cn[64];
  snprintf(cn, sizeof cn, "%s_shape", name);
  int in[2] = {x, tb_const_i64(g, cn, n, shape)}, y = act(g, name);
  node(g, name, "Reshape", in, 2, y);
  return y;
}

static int slice(ir_graph *g, const char *name, int x, int64_t from, int64_t to) {
  char b[64];
  const int64_t ax = 1;
  snprintf(b, sizeof b, "%s_s", name);
  int s = tb_const_i64(g, b, 1, &from);
  snprintf(b, sizeof b, "%s_e", name);
  int e = tb_const_i64(g, b, 1, &to);
  snprintf(b, sizeof b, "%s_a", name);
  int a = tb_const_i64(g, b, 1, &ax);
  int in[4] = {x, s, e, a}, y = act(g, name);
  node(g, name, "Slice", in, 4, y);
  return y;
}

/* images[1,3,64,64] -> per stride s: Conv(k=s, stride s) box logits [1,64,64/s,64/s] and class
 * logits [1,5,..], then the Ultralytics Detect decode exactly as exported (opset 13). */
static ir_graph *head_graph(const spec *sp) {
  ir_graph *g = ir_graph_new();
  g->opset = 13;
  const int64_t xd[4] = {1, 3, IMG, IMG};
  int x = tb_act(g, "images", 4, xd);
  ir_graph_add_input(g, x);
  if (sp->quant) tb_quant(g, x, 1.0f / 255.0f, -128);
  int rb[NS], rc[NS], rm[NS];
  for (int s = 0; s < NS; s++) {
    const int k = STR[s], gh = IMG / k;
    for (int br = 0; br < (sp->masks ? 3 : 2); br++) {
      const int co = br == 2 ? sp->masks : br ? NC : 4 * R;
      const int64_t wd[4] = {co, 3, k, k}, bd[1] = {co}, yd[4] = {1, co, gh, gh};
      const size_t nw = (size_t)co * 3 * (size_t)k * (size_t)k;
      float *w = malloc(sizeof(float) * nw), b[4 * R];
      for (size_t i = 0; i < nw; i++) w[i] = (float)((int)((i * 2654435761u) >> 7) % 201 - 100) / (60.0f * (float)(k * k));
      for (int i = 0; i < co; i++) b[i] = 0.05f * (float)(i % 7) - 0.1f;
      char nm[64];
      snprintf(nm, sizeof nm, "/model.23/cv%d.%d/Conv_w", br + 2, s);
      int wt = tb_const(g, nm, 4, wd, w);
      snprintf(nm, sizeof nm, "/model.23/cv%d.%d/Conv_b", br + 2, s);
      int bt = tb_const(g, nm, 1, bd, b);
      free(w);
      snprintf(nm, sizeof nm, "/model.23/cv%d.%d/Conv", br + 2, s);
      int y = tb_act(g, nm, 4, yd);
      int in[3] = {x, wt, bt};
      int cv = node(g, nm, "Conv", in, 3, y);
      const int64_t ks[2] = {k, k};
      ir_set_attr_ints(g, cv, "kernel_shape", ks, 2);
      ir_set_attr_ints(g, cv, "strides", ks, 2);
      if (sp->quant) {
        tb_quant_weights(g, wt);
        tb_quant(g, y, br ? 0.06f : 0.045f, br ? -20 : 7);
      }
      const int64_t shape[3] = {1, co, -1};
      snprintf(nm, sizeof nm, "/model.23/Reshape_%d", br * 3 + s);
      (br == 2 ? rm : br ? rc : rb)[s] = reshape(g, nm, y, 3, shape);
    }
  }
  int bcat = act(g, "/model.23/Concat");
  ir_set_attr_int(g, node(g, "/model.23/Concat", "Concat", rb, NS, bcat), "axis", -1);
  const int64_t s4[4] = {1, 4, R, N}, s3[3] = {1, 4, N};
  int d = reshape(g, "/model.23/dfl/Reshape", bcat, 4, s4);
  int t0 = act(g, "/model.23/dfl/Transpose");
  const int64_t p0[4] = {0, 3, 1, 2}, p1[4] = {0, 3, 2, 1};
  ir_set_attr_ints(g, node(g, "/model.23/dfl/Transpose", "Transpose", &d, 1, t0), "perm", p0, 4);
  int sm = act(g, "/model.23/dfl/Softmax");
  ir_set_attr_int(g, node(g, "/model.23/dfl/Softmax", "Softmax", &t0, 1, sm), "axis", 3);
  int t1 = act(g, "/model.23/dfl/Transpose_1");
  ir_set_attr_ints(g, node(g, "/model.23/dfl/Transpose_1", "Transpose", &sm, 1, t1), "perm", p1, 4);
  float proj[R];
  for (int j = 0; j < R; j++) proj[j] = (float)j;
  if (sp->bad_dfl) proj[3] = 3.5f;
  const int64_t wd[4] = {1, R, 1, 1};
  int dc = act(g, "/model.23/dfl/conv/Conv");
  int din[2] = {t1, tb_const(g, "model.23.dfl.conv.weight", 4, wd, proj)};
  const int64_t k1[2] = {1, 1};
  ir_set_attr_ints(g, node(g, "/model.23/dfl/conv/Conv", "Conv", din, 2, dc), "kernel_shape", k1, 2);
  int dist = reshape(g, "/model.23/dfl/Reshape_1", dc, 3, s3);
  int lt = slice(g, "/model.23/Slice", dist, 0, 2);
  int rbx = sp->bad_slice ? slice(g, "/model.23/Slice_1", dist, 1, 3) : slice(g, "/model.23/Slice_1", dist, 2, 4);
  static float anch[2 * N], strides[N];
  int a = 0;
  for (int s = 0; s < NS; s++)
    for (int yy = 0; yy < IMG / STR[s]; yy++)
      for (int xx = 0; xx < IMG / STR[s]; xx++, a++) {
        anch[a] = (float)xx + 0.5f;
        anch[N + a] = (float)yy + 0.5f;
        strides[a] = (float)STR[s];
      }
  if (sp->bad_anchor) anch[N + 70] += 0.25f;
  const int64_t ad[3] = {1, 2, N}, sd[2] = {1, N};
  int x1y1 = act(g, "/model.23/Sub"), x2y2 = act(g, "/model.23/Add_1");
  int in2[2] = {tb_const(g, "anchors0", 3, ad, anch), lt};
  node(g, "/model.23/Sub", "Sub", in2, 2, x1y1);
  int in3[2] = {tb_const(g, "anchors1", 3, ad, anch), rbx};
  node(g, "/model.23/Add_1", "Add", in3, 2, x2y2);
  int sum = act(g, "/model.23/Add_2"), wh = act(g, "/model.23/Sub_1"), cxy = act(g, "/model.23/Div_1");
  int in4[2] = {x1y1, x2y2};
  node(g, "/model.23/Add_2", "Add", in4, 2, sum);
  int in5[2] = {x2y2, x1y1};
  node(g, "/model.23/Sub_1", "Sub", in5, 2, wh);
  const float two = 2.0f;
  int in6[2] = {sum, tb_const(g, "two", 0, NULL, &two)};
  node(g, "/model.23/Div_1", "Div", in6, 2, cxy);
  int db = act(g, "/model.23/Concat_2");
  int in7[2] = {sp->swap_wh ? wh : cxy, sp->swap_wh ? cxy : wh};
  ir_set_attr_int(g, node(g, "/model.23/Concat_2", "Concat", in7, 2, db), "axis", 1);
  int box = act(g, "/model.23/Mul_2");
  int in8[2] = {db, tb_const(g, "strides", 2, sd, strides)};
  node(g, "/model.23/Mul_2", "Mul", in8, 2, box);
  int ccat = act(g, "/model.23/Concat_1"), sc = act(g, "/model.23/Sigmoid"), out = act(g, "output0");
  ir_set_attr_int(g, node(g, "/model.23/Concat_1", "Concat", rc, NS, ccat), "axis", -1);
  node(g, "/model.23/Sigmoid", "Sigmoid", &ccat, 1, sc);
  int in9[3] = {box, sc, -1};
  if (sp->masks) {
    in9[2] = act(g, "/model.23/Concat_mc");
    ir_set_attr_int(g, node(g, "/model.23/Concat_mc", "Concat", rm, NS, in9[2]), "axis", -1);
  }
  ir_set_attr_int(g, node(g, "/model.23/Concat_3", "Concat", in9, sp->masks ? 3 : 2, out), "axis", 1);
  ir_graph_add_output(g, out);
  if (sp->extra_use) ir_graph_add_output(g, wh);
  return g;
}

/* Converts (fused or not), runs on x, copies output 0 into a new buffer. */
static float *convert_run(ir_graph *g, int fuse, const float *x, size_t nx, size_t *nout, yrt_convert_report *rep) {
  yrt_convert_options o;
  memset(&o, 0, sizeof o);
  o.no_fuse_head = !fuse;
  o.no_ties = 1; /* unfused, the head's per-scale Concat is int8 and would be tied: not the fusion's effect */
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  err.msg[0] = 0;
  if (yrt_convert_graph(g, &o, &buf, &size, rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  yv v;
  assert_int_equal(yv_open(&v, buf, size), 0);
  assert_int_equal(yv_count_op(&v, YRT_OP_DETECT_DECODE), rep->head_fused);
  yrt_model *m = NULL;
  yrt_session *s = NULL;
  yrt_session_options so;
  memset(&so, 0, sizeof so);
  so.num_threads = 2;
  if (yrt_model_load_memory(buf, size, 0, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  if (yrt_session_create(m, &so, &s, &err) != YRT_OK) fail_msg("session: %s", err.msg);
  if (yrt_session_set_input(s, 0, x, nx, &err) != YRT_OK) fail_msg("input: %s", err.msg);
  if (yrt_session_run(s, &err) != YRT_OK) fail_msg("run: %s", err.msg);
  yrt_tensor_view tv;
  if (yrt_session_output(s, 0, &tv, &err) != YRT_OK) fail_msg("output: %s", err.msg);
  float *out = malloc(sizeof(float) * tv.count);
  assert_non_null(out);
  memcpy(out, tv.data, sizeof(float) * tv.count);
  *nout = tv.count;
  yrt_session_free(s);
  yrt_model_free(m);
  free(buf);
  return out;
}

/* Max |fused - unfused| over box rows (first 4*na) and score rows. */
static void diff(const float *a, const float *b, size_t n, size_t na, double *box, double *score) {
  *box = *score = 0;
  for (size_t i = 0; i < n; i++) {
    const double d = fabs((double)a[i] - b[i]);
    double *m = i < 4 * na ? box : score;
    if (d > *m || d != d) *m = d != d ? INFINITY : d;
  }
}

static void synthetic_spec(const spec *spp) {
  const spec sp = *spp;
  const int quant = sp.quant;
  float x[3 * IMG * IMG];
  for (int i = 0; i < 3 * IMG * IMG; i++) x[i] = (float)((i * 29 + (i / 64) * 7) % 256) / 255.0f;
  yrt_convert_report r1, r0;
  size_t n1, n0;
  ir_graph *g = head_graph(&sp);
  float *fused = convert_run(g, 1, x, sizeof x / sizeof x[0], &n1, &r1);
  ir_graph_free(g);
  g = head_graph(&sp);
  float *plain = convert_run(g, 0, x, sizeof x / sizeof x[0], &n0, &r0);
  ir_graph_free(g);
  print_message("fused: %s\n", r1.head_note);
  assert_int_equal(r1.head_fused, 1);
  if (!sp.extra_use) assert_int_equal(r1.head_fused_nodes, 25);
  else assert_true(r1.head_fused_nodes > 0 && r1.head_fused_nodes < 25); /* the extra output's nodes stay */
  assert_int_equal(r0.head_fused, 0);
  assert_true(r1.n_nodes < r0.n_nodes);
  assert_int_equal(n1, (size_t)(4 + NC) * N);
  assert_int_equal(n0, n1);
  double db, ds;
  diff(fused, plain, n1, N, &db, &ds);
  print_message("synthetic %s: max |fused - unfused| boxes %.3g px, scores %.3g\n", quant ? "int8" : "f32", db, ds);
  assert_true(db < 1e-3);
  assert_true(ds < 1e-5);
  free(fused);
  free(plain);
}

static void synthetic(int quant) {
  spec sp = {quant, 0, 0, 0, 0, 0, 0};
  synthetic_spec(&sp);
}

static void test_synthetic_f32(void **state) {
  (void)state;
  synthetic(0);
}
static void test_synthetic_i8(void **state) {
  (void)state;
  synthetic(1);
}

/* Each deviation leaves the graph unfused, with the reason in the report. */
static void refused(const spec *sp, const char *why) {
  ir_graph *g = head_graph(sp);
  yrt_convert_report rep;
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  print_message("not fused: %s\n", rep.head_note);
  assert_int_equal(rep.head_fused, 0);
  assert_int_equal(rep.n_fp32[YRT_OP_DETECT_DECODE], 0);
  assert_non_null(strstr(rep.head_note, why));
  free(buf);
  ir_graph_free(g);
}

static void test_refuses_bad_heads(void **state) {
  (void)state;
  spec a = {0, 1, 0, 0, 0, 0, 0}, b = {0, 0, 1, 0, 0, 0, 0}, c = {0, 0, 0, 1, 0, 0, 0}, d = {0, 0, 0, 0, 1, 0, 0},
       e = {0, 0, 0, 0, 0, 1, 0};
  refused(&a, "computes something else");
  /* an intermediate that is also a graph output (Ultralytics 8.0's raw head maps): fused, the
   * nodes making that output kept, output0 as unfused */
  synthetic_spec(&c);
  refused(&d, "computes something else");
  refused(&e, "computes something else");
  /* DFL weights other than arange: the decode uses the graph's own weights, so it fuses and
   * gives the same output. */
  synthetic_spec(&b);
  spec ok = {1, 0, 0, 0, 0, 0, 0};
  ir_graph *g = head_graph(&ok);
  yrt_convert_options o;
  memset(&o, 0, sizeof o);
  o.exact_qdq = 1;
  yrt_convert_report rep;
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  if (yrt_convert_graph(g, &o, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  assert_int_equal(rep.head_fused, 0);
  assert_non_null(strstr(rep.head_note, "exact-qdq"));
  free(buf);
  ir_graph_free(g);
}

/* --keep-fp32 naming a node the fusion replaced is satisfied (it runs in float inside
 * detect_decode); an unknown name is still an error. */
static void test_keep_fp32_names(void **state) {
  (void)state;
  spec ok = {1, 0, 0, 0, 0, 0, 0};
  const char *const keep[] = {"/model.23/dfl/Softmax", "/model.23/cv3.1/Conv", NULL};
  const char *const unknown[] = {"/model.23/nothing", NULL};
  yrt_convert_options o;
  memset(&o, 0, sizeof o);
  o.keep_fp32 = keep;
  yrt_convert_report rep;
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  ir_graph *g = head_graph(&ok);
  if (yrt_convert_graph(g, &o, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  assert_int_equal(rep.head_fused, 1);
  assert_true(rep.n_fp32[YRT_OP_CONV2D] >= 1); /* cv3.1 kept in float */
  free(buf);
  ir_graph_free(g);
  g = head_graph(&ok);
  o.keep_fp32 = unknown;
  assert_int_equal(yrt_convert_graph(g, &o, &buf, &size, &rep, &err), YRT_ERR_INVALID_ARG);
  ir_graph_free(g);
}

/* A real model: fused vs --no-fuse-head on the same synthetic-looking image. */
static void real(const char *rel, int size, double box_tol, double score_tol) {
  char path[1024];
  YT_REQUIRE_DATA(path, rel);
  const size_t nx = 3 * (size_t)size * (size_t)size;
  float *x = malloc(sizeof(float) * nx);
  assert_non_null(x);
  for (size_t i = 0; i < nx; i++) {
    const size_t p = i % ((size_t)size * (size_t)size), yy = p / (size_t)size, xx = p % (size_t)size;
    x[i] = (float)(((xx / 40 + yy / 56) % 3) * 90 + (i / ((size_t)size * (size_t)size)) * 30 + (xx * yy) % 17) / 255.0f;
  }
  yrt_convert_report r1, r0;
  size_t n1, n0;
  ir_graph *g = NULL;
  yrt_error err;
  if (onnx_read_file(path, &g, &err) != YRT_OK) fail_msg("%s: %s", rel, err.msg);
  float *fused = convert_run(g, 1, x, nx, &n1, &r1);
  ir_graph_free(g);
  if (onnx_read_file(path, &g, &err) != YRT_OK) fail_msg("%s: %s", rel, err.msg);
  float *plain = convert_run(g, 0, x, nx, &n0, &r0);
  ir_graph_free(g);
  print_message("%s: %s\n", rel, r1.head_note);
  assert_int_equal(r1.head_fused, 1);
  assert_int_equal(n0, n1);
  const size_t na = n1 / (size_t)(4 + r1.num_classes);
  double db, ds;
  diff(fused, plain, n1, na, &db, &ds);
  print_message("%s: %d -> %d nodes; max |fused - unfused| boxes %.3g px, scores %.3g\n", rel, r0.n_nodes, r1.n_nodes,
                db, ds);
  assert_true(db < box_tol);
  assert_true(ds < score_tol);
  free(fused);
  free(plain);
  free(x);
}

static void test_fp32_320(void **state) {
  (void)state;
  real("models/yolo11n-320.onnx", 320, 1e-3, 1e-5);
}
static void test_qdq_320(void **state) {
  (void)state;
  real("models/yolo11n-320.qdq.onnx", 320, 1e-3, 1e-5);
}
static void test_qdq_u8_640(void **state) {
  (void)state;
  real("models/yolo11n-640.qdq-u8.onnx", 640, 1e-3, 1e-5);
}
static void test_wild_conv_only(void **state) {
  (void)state;
  real("models/wild/yolov8n-640.qdq-conv-only.onnx", 640, 1e-3, 1e-5);
}
/* Its QDQ graph quantized one anchor constant (u8 step 0.31 grid cells) and the strides (8.03
 * for 8): the fused op uses the exact grid, so boxes move by up to half a step times the stride
 * (5 px at stride 32) plus 0.4% of the box. */
static void test_wild_u8(void **state) {
  (void)state;
  real("models/wild/yolov8n-640.qdq-u8-pertensor.onnx", 640, 8.0, 1e-5);
}

/* Ultralytics 8.3 export (Split instead of Slice, DFL transpose [0,2,1,3] and softmax on axis 1),
 * one class, onnxruntime uint8 QDQ with quantized anchors (hence the box tolerance, as above).
 * Scores: unfused, the class logits pass the per-scale Concat of box and class logits in int8,
 * with the scale that Concat shares with the box logits; fused, detect_decode reads the class
 * conv's own (finer) int8 output, so they differ by up to that Concat's step (0.1% of a score). */
static void test_wild_split_head(void **state) {
  (void)state;
  real("models/wild/yolo11n-320.face1cls.qdq-u8.onnx", 320, 8.0, 5e-3);
}

/* Ultralytics metadata: a task yolort does not decode is refused naming it; "segment" / "detect"
 * are stored and read back; dynamic input axes take --size (or imgsz), and the error names the
 * flag. */
static void test_metadata_task_size(void **state) {
  (void)state;
  spec ok = {0, 0, 0, 0, 0, 0, 0};
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  yrt_convert_report rep;
  ir_graph *g = head_graph(&ok);
  g->task = ir_strdup("pose");
  g->kpt_shape[0] = 17;
  g->kpt_shape[1] = 3;
  assert_int_equal(yrt_convert_graph(g, NULL, &buf, &size, &rep, &err), YRT_ERR_UNSUPPORTED);
  print_message("pose: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "'pose'"));
  ir_graph_free(g);
  g = head_graph(&ok);
  g->task = ir_strdup("obb");
  assert_int_equal(yrt_convert_graph(g, NULL, &buf, &size, &rep, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "'obb'"));
  ir_graph_free(g);
  g = head_graph(&ok);
  g->task = ir_strdup("segment");
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  yrt_model *m = NULL;
  if (yrt_model_load_memory(buf, size, 0, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  assert_string_equal(yrt_model_task(m), "segment");
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  assert_int_equal(info.num_classes, NC);
  yrt_model_free(m);
  free(buf);
  ir_graph_free(g);
  /* dynamic height / width */
  const int64_t dyn[4] = {1, 3, -1, -1};
  g = head_graph(&ok);
  ir_tensor_set_shape(&g->tensors[g->inputs[0]], 4, dyn);
  assert_int_equal(yrt_convert_graph(g, NULL, &buf, &size, &rep, &err), YRT_ERR_UNSUPPORTED);
  print_message("dynamic: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "--size"));
  ir_graph_free(g);
  yrt_convert_options o;
  memset(&o, 0, sizeof o);
  o.input_h = o.input_w = IMG;
  g = head_graph(&ok);
  ir_tensor_set_shape(&g->tensors[g->inputs[0]], 4, dyn);
  if (yrt_convert_graph(g, &o, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert --size: %s", err.msg);
  assert_int_equal(rep.head_fused, 1);
  assert_int_equal(rep.input_w, IMG);
  free(buf);
  ir_graph_free(g);
  g = head_graph(&ok);
  ir_tensor_set_shape(&g->tensors[g->inputs[0]], 4, dyn);
  g->imgsz_h = g->imgsz_w = IMG;
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert imgsz: %s", err.msg);
  assert_int_equal(rep.input_h, IMG);
  free(buf);
  ir_graph_free(g);
  /* a fixed input and another --size: refused */
  o.input_h = 2 * IMG;
  g = head_graph(&ok);
  assert_int_equal(yrt_convert_graph(g, &o, &buf, &size, &rep, &err), YRT_ERR_INVALID_ARG);
  ir_graph_free(g);
}

/* An Ultralytics nms=True export: output0 -> Transpose -> boxes / scores -> NonMaxSuppression ->
 * selected indices. The NMS and what follows it are cut: output0 becomes the decoded rows again,
 * the head fuses, the graph's thresholds are kept (IoU 0.7, score 0.25, class-agnostic: no class
 * offset reaches the boxes); the float preparation yolort-quantize uses cuts it too. An NMS whose
 * operands do not come from one transposed tensor is refused naming the node. */
static ir_graph *nms_graph(void) {
  spec ok = {0, 0, 0, 0, 0, 0, 0};
  ir_graph *g = head_graph(&ok);
  const int out = g->outputs[0];
  int tr = act(g, "/nms/Transpose");
  const int64_t perm[3] = {0, 2, 1};
  ir_set_attr_ints(g, node(g, "/nms/Transpose", "Transpose", &out, 1, tr), "perm", perm, 3);
  const int64_t ax2 = 2, s0 = 0, e4 = 4, e_all = 4 + NC;
  int bin[4] = {tr, tb_const_i64(g, "nms_s0", 1, &s0), tb_const_i64(g, "nms_e4", 1, &e4),
                tb_const_i64(g, "nms_ax", 1, &ax2)};
  int boxes = act(g, "/nms/boxes");
  node(g, "/nms/Slice", "Slice", bin, 4, boxes);
  int sin[4] = {out, tb_const_i64(g, "nms_s4", 1, &e4), tb_const_i64(g, "nms_e", 1, &e_all),
                tb_const_i64(g, "nms_ax1", 1, (const int64_t[]){1})};
  int scores = act(g, "/nms/scores");
  node(g, "/nms/Slice_1", "Slice", sin, 4, scores);
  const int64_t maxo = 100;
  const float iou = 0.7f, conf = 0.25f;
  int nin[5] = {boxes, scores, tb_const_i64(g, "nms_max", 1, &maxo), tb_const(g, "nms_iou", 0, NULL, &iou),
                tb_const(g, "nms_conf", 0, NULL, &conf)};
  int sel = ir_add_tensor(g, "/nms/selected", IR_I64);
  node(g, "/nms/NonMaxSuppression", "NonMaxSuppression", nin, 5, sel);
  g->tensors[out].is_output = 0;
  g->outputs[0] = sel;
  g->tensors[sel].is_output = 1;
  return g;
}

/* A segment head: output0 = boxes, scores, then mask coefficients. With the task recorded it
 * converts with NC classes and the decode never reads a mask row as a class; without it, the rows
 * past the scores are refused (issue 40: ids 80..111 on an 80-class model). The loader refuses a
 * META class count that disagrees with output0's rows. */
static void test_segment_rows(void **state) {
  (void)state;
  spec sp = {0};
  sp.masks = 7;
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  yrt_convert_report rep;
  ir_graph *g = head_graph(&sp);
  err.msg[0] = 0;
  assert_int_equal(yrt_convert_graph(g, NULL, &buf, &size, &rep, &err), YRT_ERR_UNSUPPORTED);
  print_message("no task: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "rows, not 4 + 5 classes"));
  assert_null(buf);
  ir_graph_free(g);
  g = head_graph(&sp);
  g->task = ir_strdup("segment");
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  ir_graph_free(g);
  yrt_model *m = NULL;
  if (yrt_model_load_memory(buf, size, 1, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  assert_int_equal(info.num_classes, NC);
  yrt_session *s = NULL;
  if (yrt_session_create(m, NULL, &s, &err) != YRT_OK) fail_msg("session: %s", err.msg);
  static uint8_t px[IMG * IMG * 3];
  for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)((i * 2654435761u) >> 11);
  yrt_frame f;
  yrt_frame_init(&f);
  f.format = YRT_PIX_RGB888;
  f.width = f.height = IMG;
  f.plane[0] = px;
  f.stride[0] = IMG * 3;
  yrt_postprocess_params pp;
  yrt_postprocess_params_init(&pp);
  pp.conf_threshold = 0.0f; /* every anchor: the mask rows would surely win some */
  yrt_detection dets[N];
  int n = 0;
  if (yrt_session_detect(s, &f, &pp, dets, N, &n, &err) != YRT_OK) fail_msg("detect: %s", err.msg);
  assert_true(n > 0);
  for (int i = 0; i < n; i++)
    if (dets[i].class_id < 0 || dets[i].class_id >= NC) fail_msg("detection %d has class %d of %d", i, dets[i].class_id, NC);
  yrt_session_free(s);
  yrt_model_free(m);
  /* META claiming more classes than the rows hold, or fewer without the segment task */
  yrt_file_view im;
  assert_int_equal(yrt_file_map(buf, size, &im, NULL), YRT_OK);
  yrt_meta_rec *meta = (yrt_meta_rec *)(uintptr_t)im.meta;
  meta->num_classes = NC + 8;
  yrt_file_header h;
  memcpy(&h, buf, sizeof h);
  h.crc32 = yrt_crc32(0, (const uint8_t *)buf + sizeof h, size - sizeof h);
  memcpy(buf, &h, sizeof h);
  assert_int_equal(yrt_model_load_memory(buf, size, 1, &m, &err), YRT_ERR_FORMAT);
  print_message("META %d classes: %s\n", NC + 8, err.msg);
  assert_non_null(strstr(err.msg, "output0 has"));
  free(buf);
}

static void test_nms_inside_cut(void **state) {
  (void)state;
  void *buf = NULL;
  size_t size = 0;
  yrt_error err;
  yrt_convert_report rep;
  ir_graph *g = nms_graph();
  if (yrt_convert_graph(g, NULL, &buf, &size, &rep, &err) != YRT_OK) fail_msg("%s", err.msg);
  print_message("nms: %s\n", rep.nms_note);
  assert_true(rep.nms_cut && rep.head_fused);
  assert_non_null(strstr(rep.nms_note, "'/nms/NonMaxSuppression'"));
  assert_true(fabs(g->nms.iou - 0.7) < 1e-6 && fabs(g->nms.conf - 0.25) < 1e-6 && !g->nms.class_aware);
  { /* stored: the model's postprocess defaults are the graph's NMS */
    yrt_model *m = NULL;
    if (yrt_model_load_memory(buf, size, 1, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
    yrt_postprocess_params pp;
    yrt_postprocess_params_init(&pp);
    assert_int_equal(yrt_model_postprocess_defaults(m, &pp), YRT_OK);
    assert_true(fabsf(pp.iou_threshold - 0.7f) < 1e-6f && fabsf(pp.conf_threshold - 0.25f) < 1e-6f);
    assert_int_equal(pp.class_agnostic, 1);
    yrt_model_free(m);
  }
  free(buf);
  ir_graph_free(g);
  g = nms_graph();
  assert_int_equal(yrt_convert_prepare_float(g, &err), YRT_OK);
  ir_graph_free(g);
  /* scores that do not come from the transposed rows (here: the image): refused, naming the node */
  g = nms_graph();
  for (int i = 0; i < g->n_nodes; i++)
    if (ir_node_is(&g->nodes[i], "NonMaxSuppression")) g->nodes[i].in[1] = g->inputs[0];
  err.msg[0] = 0;
  assert_int_equal(yrt_convert_graph(g, NULL, &buf, &size, &rep, &err), YRT_ERR_UNSUPPORTED);
  print_message("nms refused: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "'/nms/NonMaxSuppression'"));
  assert_non_null(strstr(err.msg, "Export with nms=False"));
  ir_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_synthetic_f32), cmocka_unit_test(test_synthetic_i8),
      cmocka_unit_test(test_refuses_bad_heads), cmocka_unit_test(test_keep_fp32_names),
      cmocka_unit_test(test_fp32_320),
      cmocka_unit_test(test_qdq_320),         cmocka_unit_test(test_qdq_u8_640),
      cmocka_unit_test(test_wild_conv_only),  cmocka_unit_test(test_wild_u8),
      cmocka_unit_test(test_wild_split_head), cmocka_unit_test(test_metadata_task_size),
      cmocka_unit_test(test_nms_inside_cut), cmocka_unit_test(test_segment_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
