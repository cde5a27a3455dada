/* test_runtime_conv.c — CONV2D nodes through a session (XNNPACK f32 / qc8, or the reference
 * fallback) against the scalar reference, on odd shapes, groups, strides, dilation, pads,
 * fused activations and an int8 LUT; a dynamically quantized conv against onnxruntime's arithmetic. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conv_ref.h"
#include "yolort.h"
#include "ops/conv_paths.h"
#include "session_internal.h"
#include "yrt_test_builder.h"

typedef struct conv_case {
  int n, h, w, cin, cout, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, groups;
} conv_case;

static const conv_case k_cases[] = {
    {1, 7, 9, 3, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 11, 13, 8, 16, 3, 3, 2, 2, 1, 0, 1, 1, 1, 1, 1},
    {1, 9, 7, 12, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 12},  /* depthwise */
    {1, 10, 10, 16, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16}, /* depthwise stride 2 */
    {1, 5, 5, 17, 9, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},   /* pointwise */
    {1, 6, 6, 8, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2},    /* grouped, dilated */
    {2, 5, 4, 3, 7, 5, 3, 1, 2, 2, 1, 2, 1, 1, 1, 1},    /* batch 2, rectangular kernel */
};

static uint32_t rng_next(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}
static float rng_f(uint32_t *s) { return (float)(rng_next(s) % 2001) / 1000.0f - 1.0f; }

static int out_dim(int in, int k, int s, int pa, int pb, int d) { return (in + pa + pb - d * (k - 1) - 1) / s + 1; }

static void geom_of(const conv_case *c, yrt_conv_geom *g) {
  g->n = c->n, g->h = c->h, g->w = c->w, g->cin = c->cin, g->cout = c->cout;
  g->oh = out_dim(c->h, c->kh, c->sh, c->pt, c->pb, c->dh);
  g->ow = out_dim(c->w, c->kw, c->sw, c->pl, c->pr, c->dw);
  g->kh = c->kh, g->kw = c->kw, g->sh = c->sh, g->sw = c->sw, g->pad_t = c->pt, g->pad_l = c->pl;
  g->dh = c->dh, g->dw = c->dw, g->groups = c->groups;
  g->xs = g->ys = 0;
}

/* Session output is logical NCHW; ref is NHWC. */
static float nchw_at(const yrt_tensor_view *v, int b, int y, int x, int c) {
  return v->data[(((size_t)b * v->dims[1] + c) * v->dims[2] + y) * v->dims[3] + x];
}

static void run_f32_case(const conv_case *c, int act) {
  yrt_conv_geom g;
  geom_of(c, &g);
  uint32_t seed = 1234u + (uint32_t)c->cin * 7u + (uint32_t)act;
  const size_t nx = (size_t)g.n * g.h * g.w * g.cin, nw = (size_t)g.cout * g.kh * g.kw * (g.cin / g.groups);
  const size_t ny = (size_t)g.n * g.oh * g.ow * g.cout;
  float *x = malloc(nx * 4), *w = malloc(nw * 4), *bias = malloc((size_t)g.cout * 4), *ref = malloc(ny * 4);
  assert_non_null(x);
  assert_non_null(w);
  assert_non_null(bias);
  assert_non_null(ref);
  for (size_t i = 0; i < nx; i++) x[i] = rng_f(&seed);
  for (size_t i = 0; i < nw; i++) w[i] = rng_f(&seed) * 0.5f;
  for (int i = 0; i < g.cout; i++) bias[i] = rng_f(&seed);

  ytb *b = ytb_new();
  int32_t xd[4] = {g.n, g.h, g.w, g.cin}, wd[4] = {g.cout, g.kh, g.kw, g.cin / g.groups}, bd[1] = {g.cout};
  int32_t yd[4] = {g.n, g.oh, g.ow, g.cout};
  uint32_t tx = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, xd);
  uint32_t tw = ytb_const(b, "w", YRT_F32, 4, wd, w);
  uint32_t tb = ytb_const(b, "b", YRT_F32, 1, bd, bias);
  uint32_t ty = ytb_tensor(b, "y", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, yd);
  int32_t p[YRT_NODE_PARAMS];
  ytb_conv_params(p, c->kh, c->kw, c->sh, c->sw, c->pt, c->pl, c->pb, c->pr, c->dh, c->dw, c->groups, act, -1);
  uint32_t in[3] = {tx, tw, tb};
  ytb_node(b, YRT_OP_CONV2D, "conv", 3, in, ty, p, YRT_NODE_PARAMS, NULL, 0);
  ytb_input(b, tx);
  ytb_output(b, ty);
  yrt_error err = {{0}};
  ytb_loaded l;
  if (ytb_load(b, 0, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  yrt_session *s = l.s;
  float *in_nhwc = yrt_session_input_nhwc(s, 0);
  assert_non_null(in_nhwc);
  memcpy(in_nhwc, x, nx * 4);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);
  assert_int_equal(v.count, ny);
  assert_int_equal(v.dims[1], g.cout);

  yrt_conv_ref_f32(&g, x, w, bias, act == YRT_UNARY_RELU ? 0.0f : -INFINITY, INFINITY, ref);
  for (int bb = 0; bb < g.n; bb++)
    for (int yy = 0; yy < g.oh; yy++)
      for (int xx = 0; xx < g.ow; xx++)
        for (int cc = 0; cc < g.cout; cc++) {
          float r = ref[(((size_t)bb * g.oh + yy) * g.ow + xx) * g.cout + cc];
          if (act == YRT_UNARY_SILU) r = r / (1.0f + expf(-r));
          float got = nchw_at(&v, bb, yy, xx, cc);
          if (fabsf(got - r) > 1e-4f + 1e-4f * fabsf(r))
            fail_msg("f32 conv cin %d act %d at (%d,%d,%d,%d): %g vs ref %g", c->cin, act, bb, yy, xx, cc,
                     (double)got, (double)r);
        }
  ytb_unload(&l);
  free(x);
  free(w);
  free(bias);
  free(ref);
}

static void test_conv_f32(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
    run_f32_case(&k_cases[i], YRT_UNARY_NONE);
    run_f32_case(&k_cases[i], YRT_UNARY_RELU);
    run_f32_case(&k_cases[i], YRT_UNARY_SILU);
  }
}

/* int8: input f32 values exactly on the quantization grid (power-of-two scale), so QUANTIZE is
 * exact; conv i8 (+ optional LUT, relu) is the graph output, dequantized by the session. */
/* Packed weights are made once per model (issue 16 item 6): a second session on the model points
 * at the first one's packed copy, computes the same output, and freeing it leaves the copy to
 * the first (ASan would see a use after free). v: the first session's output of input x. */
static int g_shared_checked; /* cases where our kernel ran, so sharing was checked */
static void check_packs_shared(ytb_loaded *l, const float *x, size_t nx, const yrt_tensor_view *v) {
  const uint32_t node = 1; /* quantize, conv */
  const yrt_exec_conv *c1 = yrt_conv_state(&l->s->exec[node]);
  if (c1->own != 1) return; /* XNNPACK or the reference: nothing of ours packed */
  g_shared_checked++;
  float *y1 = malloc(v->count * sizeof(float));
  assert_non_null(y1);
  memcpy(y1, v->data, v->count * sizeof(float));
  yrt_error err = {{0}};
  yrt_session *s2 = NULL;
  assert_int_equal(yrt_session_create(l->m, NULL, &s2, &err), YRT_OK);
  const yrt_exec_conv *c2 = yrt_conv_state(&s2->exec[node]);
  assert_true(c1->packed_shared && c2->packed_shared);
  assert_ptr_equal(c1->qc.packed, c2->qc.packed);
  memcpy(yrt_session_input_nhwc(s2, 0), x, nx * 4);
  assert_int_equal(yrt_session_run(s2, &err), YRT_OK);
  yrt_tensor_view v2;
  assert_int_equal(yrt_session_output(s2, 0, &v2, &err), YRT_OK);
  assert_memory_equal(y1, v2.data, v->count * sizeof(float));
  yrt_session_free(s2);
  memcpy(yrt_session_input_nhwc(l->s, 0), x, nx * 4);
  assert_int_equal(yrt_session_run(l->s, &err), YRT_OK);
  assert_memory_equal(y1, v->data, v->count * sizeof(float));
  free(y1);
}

/* yrt_session_options.isa_cap: a session with the better ISAs hidden runs the smaller ones'
 * variants (another packed layout: its own copy) and computes the same bytes as the session of
 * the CPU's best (v), every variant being bit-exact; a name that is no level is refused. */
static void check_isa_caps(const ytb_loaded *l, const float *x, size_t nx, const yrt_tensor_view *v) {
#if defined(__x86_64__)
  static const char *const caps[] = {"avx2", "avxvnni", "scalar"};
#elif defined(__aarch64__) || defined(__arm__)
  static const char *const caps[] = {"neon", "scalar"};
#else
  static const char *const caps[] = {"scalar"};
#endif
  for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
    yrt_session_options o;
    yrt_session_options_init(&o);
    o.isa_cap = caps[i];
    yrt_error err = {{0}};
    yrt_session *s = NULL;
    if (yrt_session_create(l->m, &o, &s, &err) != YRT_OK) fail_msg("isa_cap %s: %s", caps[i], err.msg);
    memcpy(yrt_session_input_nhwc(s, 0), x, nx * 4);
    assert_int_equal(yrt_session_run(s, &err), YRT_OK);
    yrt_tensor_view v2;
    assert_int_equal(yrt_session_output(s, 0, &v2, &err), YRT_OK);
    assert_int_equal(v2.count, v->count);
    if (memcmp(v2.data, v->data, v->count * sizeof(float)) != 0) fail_msg("isa_cap %s: other output bytes", caps[i]);
    yrt_session_free(s);
  }
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.isa_cap = "sse9";
  yrt_error err = {{0}};
  yrt_session *s = NULL;
  assert_int_equal(yrt_session_create(l->m, &o, &s, &err), YRT_ERR_INVALID_ARG);
  assert_null(s);
  assert_non_null(strstr(err.msg, "isa_cap \"sse9\""));
}

static void run_i8_case(const conv_case *c, int use_lut, int act, float sy_override) {
  yrt_conv_geom g;
  geom_of(c, &g);
  uint32_t seed = 99u + (uint32_t)c->cout * 13u + (uint32_t)use_lut;
  const size_t nx = (size_t)g.n * g.h * g.w * g.cin, nw = (size_t)g.cout * g.kh * g.kw * (g.cin / g.groups);
  const size_t ny = (size_t)g.n * g.oh * g.ow * g.cout;
  const float sx = 1.0f / 64.0f;
  const int32_t zx = 3, zy = -5;
  const float sy = sy_override > 0 ? sy_override : 0.05f;
  float *xf = malloc(nx * 4), *sw = malloc((size_t)g.cout * 4), *requant = malloc((size_t)g.cout * 4);
  int8_t *xq = malloc(nx), *w = malloc(nw), *ref = malloc(ny), lut[256];
  int32_t *bias = malloc((size_t)g.cout * 4);
  assert_true(xf && sw && requant && xq && w && ref && bias);
  for (size_t i = 0; i < nx; i++) {
    int q = (int)(rng_next(&seed) % 256) - 128;
    xq[i] = (int8_t)q;
    xf[i] = (float)(q - zx) * sx;
  }
  for (size_t i = 0; i < nw; i++) w[i] = (int8_t)((int)(rng_next(&seed) % 255) - 127);
  for (int i = 0; i < g.cout; i++) {
    sw[i] = 0.001f + (float)(rng_next(&seed) % 100) * 0.0001f;
    bias[i] = (int32_t)(rng_next(&seed) % 2001) - 1000;
    requant[i] = sx * sw[i] / sy;
  }
  for (int i = 0; i < 256; i++) lut[i] = (int8_t)((int)(rng_next(&seed) % 256) - 128);

  ytb *b = ytb_new();
  int32_t xd[4] = {g.n, g.h, g.w, g.cin}, wd[4] = {g.cout, g.kh, g.kw, g.cin / g.groups};
  int32_t yd[4] = {g.n, g.oh, g.ow, g.cout};
  uint32_t tx = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, xd);
  uint32_t tq = ytb_act_i8(b, "xq", 4, xd, sx, zx);
  uint32_t tw = ytb_const(b, "w", YRT_I8, 4, wd, w);
  ytb_set_q(b, tw, sw[0], 0);
  if (g.cout > 1) ytb_set_channel_scales(b, tw, 0, sw, (uint32_t)g.cout);
  int32_t p[YRT_NODE_PARAMS];
  ytb_conv_params(p, c->kh, c->kw, c->sh, c->sw, c->pt, c->pl, c->pb, c->pr, c->dh, c->dw, c->groups, act, -1);
  ytb_quantize_conv_i8(b, tx, tq, tw, bias, p, yd, sy, zy, lut, use_lut);
  yrt_error err = {{0}};
  ytb_loaded l;
  if (ytb_load(b, 1, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  yrt_session *s = l.s;
  memcpy(yrt_session_input_nhwc(s, 0), xf, nx * 4);
  assert_int_equal(yrt_session_run(s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(s, 0, &v, &err), YRT_OK);

  const int8_t omin = act == YRT_UNARY_RELU ? (int8_t)zy : -128;
  yrt_conv_ref_i8(&g, xq, zx, w, bias, requant, zy, omin, 127, ref);
  for (int bb = 0; bb < g.n; bb++)
    for (int yy = 0; yy < g.oh; yy++)
      for (int xx = 0; xx < g.ow; xx++)
        for (int cc = 0; cc < g.cout; cc++) {
          int8_t r = ref[(((size_t)bb * g.oh + yy) * g.ow + xx) * g.cout + cc];
          if (use_lut) r = lut[(uint8_t)(r + 128)];
          long got = lrintf(nchw_at(&v, bb, yy, xx, cc) / sy) + zy;
          if (got != r)
            fail_msg("i8 conv cin %d cout %d g %d lut %d act %d at (%d,%d,%d,%d): %ld vs ref %d", c->cin, c->cout,
                     c->groups, use_lut, act, bb, yy, xx, cc, got, r);
        }
  check_packs_shared(&l, xf, nx, &v);
  check_isa_caps(&l, xf, nx, &v);
  ytb_unload(&l);
  free(xf), free(sw), free(requant), free(xq), free(w), free(ref), free(bias);
}

static void test_conv_i8(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
    run_i8_case(&k_cases[i], 0, YRT_UNARY_NONE, 0);
    run_i8_case(&k_cases[i], 1, YRT_UNARY_NONE, 0);
    run_i8_case(&k_cases[i], 0, YRT_UNARY_RELU, 0);
  }
  print_message("packed weights shared between two sessions: checked in %d cases\n", g_shared_checked);
}

/* int8 input and weights, float output (the head's last convs): y = (float)acc * s_x * s_w[c],
 * exactly (the reference's float sums of integers below 2^24 are exact), then relu in float. */
static void run_i8f32_case(const conv_case *c, int act) {
  yrt_conv_geom g;
  geom_of(c, &g);
  uint32_t seed = 7u + (uint32_t)c->cout * 31u;
  const size_t nx = (size_t)g.n * g.h * g.w * g.cin, nw = (size_t)g.cout * g.kh * g.kw * g.cin;
  const size_t ny = (size_t)g.n * g.oh * g.ow * g.cout;
  const float sx = 1.0f / 64.0f;
  const int32_t zx = 3;
  float *xf = malloc(nx * 4), *xc = malloc(nx * 4), *wf = malloc(nw * 4), *bf = malloc((size_t)g.cout * 4);
  float *sw = malloc((size_t)g.cout * 4), *acc = malloc(ny * 4);
  int8_t *w = malloc(nw);
  int32_t *bias = malloc((size_t)g.cout * 4);
  assert_true(xf && xc && wf && bf && sw && acc && w && bias);
  for (size_t i = 0; i < nx; i++) {
    int q = (int)(rng_next(&seed) % 256) - 128;
    xf[i] = (float)(q - zx) * sx;
    xc[i] = (float)(q - zx);
  }
  for (size_t i = 0; i < nw; i++) wf[i] = w[i] = (int8_t)((int)(rng_next(&seed) % 255) - 127);
  for (int i = 0; i < g.cout; i++) {
    sw[i] = 0.001f + (float)(rng_next(&seed) % 100) * 0.0001f;
    bias[i] = (int32_t)(rng_next(&seed) % 2001) - 1000;
    bf[i] = (float)bias[i];
  }
  ytb *b = ytb_new();
  int32_t xd[4] = {g.n, g.h, g.w, g.cin}, wd[4] = {g.cout, g.kh, g.kw, g.cin}, bd[1] = {g.cout};
  int32_t yd[4] = {g.n, g.oh, g.ow, g.cout};
  uint32_t tx = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, xd);
  uint32_t tq = ytb_act_i8(b, "xq", 4, xd, sx, zx);
  uint32_t tw = ytb_const(b, "w", YRT_I8, 4, wd, w);
  ytb_set_q(b, tw, sw[0], 0);
  if (g.cout > 1) ytb_set_channel_scales(b, tw, 0, sw, (uint32_t)g.cout);
  uint32_t tb = ytb_const(b, "b", YRT_I32, 1, bd, bias);
  uint32_t ty = ytb_tensor(b, "y", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, yd);
  ytb_node(b, YRT_OP_QUANTIZE, "q", 1, &tx, tq, NULL, 0, NULL, 0);
  int32_t p[YRT_NODE_PARAMS];
  ytb_conv_params(p, c->kh, c->kw, c->sh, c->sw, c->pt, c->pl, c->pb, c->pr, c->dh, c->dw, 1, act, -1);
  uint32_t in[3] = {tq, tw, tb};
  ytb_node(b, YRT_OP_CONV2D, "conv", 3, in, ty, p, YRT_NODE_PARAMS, NULL, 0);
  ytb_input(b, tx);
  ytb_output(b, ty);
  yrt_error err = {{0}};
  ytb_loaded l;
  if (ytb_load(b, 1, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  memcpy(yrt_session_input_nhwc(l.s, 0), xf, nx * 4);
  assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
  yrt_tensor_view v;
  assert_int_equal(yrt_session_output(l.s, 0, &v, &err), YRT_OK);
  yrt_conv_ref_f32(&g, xc, wf, bf, -INFINITY, INFINITY, acc);
  for (int bb = 0; bb < g.n; bb++)
    for (int yy = 0; yy < g.oh; yy++)
      for (int xx = 0; xx < g.ow; xx++)
        for (int cc = 0; cc < g.cout; cc++) {
          float r = acc[(((size_t)bb * g.oh + yy) * g.ow + xx) * g.cout + cc] * (sx * sw[cc]);
          if (act == YRT_UNARY_RELU && r < 0) r = 0;
          const float got = nchw_at(&v, bb, yy, xx, cc);
          if (memcmp(&got, &r, 4) != 0)
            fail_msg("i8->f32 conv cin %d cout %d act %d at (%d,%d,%d,%d): %.9g vs ref %.9g", c->cin, c->cout, act,
                     bb, yy, xx, cc, (double)got, (double)r);
        }
  ytb_unload(&l);
  free(xf), free(xc), free(wf), free(bf), free(sw), free(acc), free(w), free(bias);
}

static void test_conv_i8f32(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
    if (k_cases[i].groups != 1) continue;
    run_i8f32_case(&k_cases[i], YRT_UNARY_NONE);
    run_i8f32_case(&k_cases[i], YRT_UNARY_RELU);
  }
}

/* A dynamically quantized conv (onnxruntime quantize_dynamic: DynamicQuantizeLinear, ConvInteger
 * with uint8 weights and a zero point, Cast, Mul by x_scale * w_scale, Add bias) against
 * onnxruntime's arithmetic written out here: x to uint8 over [min(0, lo), max(0, hi)], the exact
 * integer sum of (xq - zx) * (wq - wzp), one float multiply, then the float bias. Weight zero point
 * 150: channels reaching -150 do not fit int8 and are stored minus an offset (CONV2D input 3).
 * Bit-exact where the channel's kernel sum stays below 2^24 (exact 1); big_k: past it, where the
 * offset term is added in float, within a few ulps. */
static void run_dyn_case(const conv_case *c, int exact) {
  yrt_conv_geom g;
  geom_of(c, &g);
  uint32_t seed = 99u + (uint32_t)c->cin * 13u + (uint32_t)c->cout;
  const int cig = g.cin / g.groups, cog = g.cout / g.groups;
  const size_t nx = (size_t)g.n * g.h * g.w * g.cin, per = (size_t)g.kh * g.kw * cig;
  const size_t nw = (size_t)g.cout * per;
  float *x = malloc(nx * 4), *bf = malloc((size_t)g.cout * 4), *sw = malloc((size_t)g.cout * 4);
  int32_t *v = malloc(nw * 4), *k = calloc((size_t)g.cout, 4), *xq = malloc(nx * 4);
  int8_t *w = malloc(nw);
  assert_true(x && bf && sw && v && k && xq && w);
  for (size_t i = 0; i < nx; i++) x[i] = rng_f(&seed) * 3.0f + 0.7f; /* lo < 0 < hi */
  int n_off = 0;
  for (int o = 0; o < g.cout; o++) {
    int lo = 0, hi = 0;
    for (size_t i = 0; i < per; i++) {
      /* channel 0: both ends (255 wide); odd channels fit int8 (no offset); even: any */
      const int q = o == 0 ? (i % 2 ? 0 : 255) : o % 2 ? 23 + (int)(rng_next(&seed) % 233) : (int)(rng_next(&seed) % 256);
      v[o * per + i] = q - 150;
      lo = v[o * per + i] < lo ? v[o * per + i] : lo;
      hi = v[o * per + i] > hi ? v[o * per + i] : hi;
    }
    k[o] = hi > 127 ? hi - 127 : lo < -127 ? lo + 127 + (hi - lo > 254) : 0;
    n_off += k[o] != 0;
    for (size_t i = 0; i < per; i++) w[o * per + i] = (int8_t)(v[o * per + i] - k[o]);
    sw[o] = 0.001f + (float)(rng_next(&seed) % 100) * 0.0001f;
    bf[o] = rng_f(&seed);
  }
  assert_true(n_off > 0 && n_off < g.cout);
  ytb *b = ytb_new();
  int32_t xd[4] = {g.n, g.h, g.w, g.cin}, wd[4] = {g.cout, g.kh, g.kw, cig}, bd[1] = {g.cout};
  int32_t yd[4] = {g.n, g.oh, g.ow, g.cout};
  uint32_t tx = ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, xd);
  uint32_t tw = ytb_const(b, "w", YRT_I8, 4, wd, w);
  ytb_set_q(b, tw, sw[0], 0);
  ytb_set_channel_scales(b, tw, 0, sw, (uint32_t)g.cout);
  uint32_t tb = ytb_const(b, "b", YRT_F32, 1, bd, bf);
  uint32_t tk = ytb_const(b, "woff", YRT_I32, 1, bd, k);
  uint32_t ty = ytb_tensor(b, "y", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, yd);
  int32_t p[YRT_NODE_PARAMS];
  ytb_conv_params(p, c->kh, c->kw, c->sh, c->sw, c->pt, c->pl, c->pb, c->pr, c->dh, c->dw, g.groups, YRT_UNARY_NONE,
                  -1);
  uint32_t in[4] = {tx, tw, tb, tk};
  ytb_node(b, YRT_OP_CONV2D, "conv", 4, in, ty, p, YRT_NODE_PARAMS, NULL, 0);
  ytb_input(b, tx);
  ytb_output(b, ty);
  yrt_error err = {{0}};
  ytb_loaded l;
  if (ytb_load(b, 1, &l, &err) != YRT_OK) fail_msg("%s: %s", l.step, err.msg);
  memcpy(yrt_session_input_nhwc(l.s, 0), x, nx * 4);
  assert_int_equal(yrt_session_run(l.s, &err), YRT_OK);
  yrt_tensor_view out;
  assert_int_equal(yrt_session_output(l.s, 0, &out, &err), YRT_OK);
  /* onnxruntime's DynamicQuantizeLinear */
  float lo = 0.0f, hi = 0.0f;
  for (size_t i = 0; i < nx; i++) lo = x[i] < lo ? x[i] : lo, hi = x[i] > hi ? x[i] : hi;
  const float sx = (hi - lo) / 255.0f;
  const float zf = nearbyintf(fminf(255.0f, fmaxf(0.0f, 0.0f - lo / sx)));
  const int32_t zx = (int32_t)zf;
  for (size_t i = 0; i < nx; i++) xq[i] = (int32_t)nearbyintf(fminf(255.0f - zf, fmaxf(-zf, x[i] / sx))) + zx;
  for (int bb = 0; bb < g.n; bb++)
    for (int yy = 0; yy < g.oh; yy++)
      for (int xx = 0; xx < g.ow; xx++)
        for (int o = 0; o < g.cout; o++) {
          int64_t a = 0, mag = 0;
          for (int ky = 0; ky < g.kh; ky++)
            for (int kx = 0; kx < g.kw; kx++) {
              const int iy = yy * g.sh - g.pad_t + ky * g.dh, ix = xx * g.sw - g.pad_l + kx * g.dw;
              if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
              for (int ci = 0; ci < cig; ci++) {
                const int64_t d = xq[(((size_t)bb * g.h + iy) * g.w + ix) * g.cin + (o / cog) * cig + ci] - zx;
                const int32_t wv = v[o * per + ((size_t)ky * g.kw + kx) * cig + ci];
                a += d * wv;
                mag += (d < 0 ? -d : d) * (wv < 0 ? -wv : wv);
              }
            }
          const float r = (float)a * (sx * sw[o]) + bf[o];
          const float got = nchw_at(&out, bb, yy, xx, o);
          const int same = memcmp(&got, &r, 4) == 0;
          if (exact ? !same : fabsf(got - r) > 4e-7f * ((float)mag * (sx * sw[o]) + fabsf(bf[o])))
            fail_msg("dynamic conv cin %d cout %d at (%d,%d,%d,%d) offset %d: %.9g vs onnxruntime's %.9g", c->cin,
                     c->cout, bb, yy, xx, o, (int)k[o], (double)got, (double)r);
        }
  ytb_unload(&l);
  free(x), free(bf), free(sw), free(v), free(k), free(xq), free(w);
}

static void test_conv_dynamic_offsets(void **state) {
  (void)state;
  /* grouped (depthwise: the attention's position conv) included: the reference, always exact */
  for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) run_dyn_case(&k_cases[i], 1);
  /* 3x3 over 160 channels: 255 * sum|w| passes 2^24 in the offset channels */
  const conv_case big_k = {1, 6, 5, 160, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  run_dyn_case(&big_k, 0);
}

/* Weight offsets (CONV2D input 3) the loader refuses, naming them: on a conv that is not
 * dynamically quantized, a value past +-YRT_CONV_WOFFSET_MAX, another length or dtype. */
static void bad_woff_kh(int dyn, int32_t kh, int32_t k0, int len, uint32_t dtype, const char *want) {
  ytb *b = ytb_new();
  const int32_t xd[4] = {1, 3, 3, 2}, wd[4] = {2, 1, 1, 2}, bd[1] = {2}, kd[1] = {len};
  const int8_t w[4] = {1, -2, 3, 4};
  const int32_t k[3] = {k0, 0, 0};
  const float bf[2] = {0, 0};
  uint32_t tx = dyn ? ytb_tensor(b, "x", YRT_F32, YRT_TENSOR_INPUT, YRT_LAYOUT_NHWC, 4, xd)
                    : ytb_act_i8(b, "x", 4, xd, 0.1f, 0);
  uint32_t tw = ytb_const(b, "w", YRT_I8, 4, wd, w);
  ytb_set_q(b, tw, 0.01f, 0);
  const int32_t bi[2] = {0, 0};
  uint32_t tb = dyn ? ytb_const(b, "b", YRT_F32, 1, bd, bf) : ytb_const(b, "b", YRT_I32, 1, bd, bi);
  uint32_t tk = ytb_const(b, "woff", dtype, 1, kd, k);
  uint32_t ty = ytb_tensor(b, "y", YRT_F32, YRT_TENSOR_OUTPUT, YRT_LAYOUT_NHWC, 4, xd);
  int32_t p[YRT_NODE_PARAMS];
  ytb_conv_params(p, kh, kh, 1, 1, 0, 0, 0, 0, 1, 1, 1, YRT_UNARY_NONE, -1);
  const uint32_t in[4] = {tx, tw, tb, tk};
  ytb_node(b, YRT_OP_CONV2D, "conv", 4, in, ty, p, YRT_NODE_PARAMS, NULL, 0);
  if (!dyn) ytb_set_q(b, ty, 1.0f, 0);
  ytb_input(b, tx);
  ytb_output(b, ty);
  yrt_error err = {{0}};
  ytb_loaded l;
  assert_int_not_equal(ytb_load(b, 1, &l, &err), YRT_OK);
  if (!strstr(err.msg, want)) fail_msg("weight offsets: '%s' does not say '%s'", err.msg, want);
  assert_non_null(strstr(err.msg, "conv"));
  ytb_unload(&l);
}

static void bad_woff(int dyn, int32_t k0, int len, uint32_t dtype, const char *want) {
  bad_woff_kh(dyn, 1, k0, len, dtype, want);
}

static void test_conv_dynamic_offsets_refused(void **state) {
  (void)state;
  /* fuzz_yrt_detect: a window of 2^61 products overflowed the int64 bound check itself (UBSan) */
  bad_woff_kh(1, 1 << 30, 1, 2, YRT_I32, "products can overflow int32");
  bad_woff(1, 256, 2, YRT_I32, "weight offset[0] = 256");
  bad_woff(1, -256, 2, YRT_I32, "weight offset[0] = -256");
  bad_woff(1, 1, 3, YRT_I32, "weight offsets (input 3) must be an i32 constant [2]");
  bad_woff(1, 1, 2, YRT_F32, "weight offsets (input 3) must be an i32 constant [2]");
  bad_woff(0, 1, 2, YRT_I32, "weight offsets (input 3) only on a dynamically quantized conv");
}

/* A requantization scale XNNPACK refuses (>= 256) takes the reference path. */
static void test_conv_i8_fallback(void **state) {
  (void)state;
  run_i8_case(&k_cases[0], 1, YRT_UNARY_NONE, 1e-7f);
  run_i8_case(&k_cases[2], 0, YRT_UNARY_NONE, 1e-7f);
}

/* The reference itself on a case small enough to do by hand. */
static void test_conv_ref_by_hand(void **state) {
  (void)state;
  /* 1x3x3x1 input 1..9, 2x2 kernel of ones, stride 1, no pad: sums of 2x2 windows. */
  yrt_conv_geom g = {1, 3, 3, 1, 2, 2, 1, 2, 2, 1, 1, 0, 0, 1, 1, 1, 0, 0};
  float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, y[4];
  yrt_conv_ref_f32(&g, x, w, NULL, -INFINITY, INFINITY, y);
  assert_true(y[0] == 12 && y[1] == 16 && y[2] == 24 && y[3] == 28);
  int8_t xq[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, wq[4] = {1, 1, 1, 1}, yq[4];
  int32_t bias[1] = {-2};
  float rq[1] = {0.5f};
  /* (12-4*1-2)*0.5 = 3 ; (16-4-2)*.5 = 5 ; (24-4-2)*.5 = 9 ; (28-6)*.5 = 11; + zp 1 */
  yrt_conv_ref_i8(&g, xq, 1, wq, bias, rq, 1, -128, 127, yq);
  assert_true(yq[0] == 4 && yq[1] == 6 && yq[2] == 10 && yq[3] == 12);
  /* round half to even: 2.5 -> 2 */
  int32_t bias2[1] = {-7}; /* (12-4-7) = 1, *2.5 = 2.5 -> 2 */
  float rq2[1] = {2.5f};
  yrt_conv_ref_i8(&g, xq, 1, wq, bias2, rq2, 0, -128, 127, yq);
  assert_int_equal(yq[0], 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_ref_by_hand),
      cmocka_unit_test(test_conv_f32),
      cmocka_unit_test(test_conv_i8),
      cmocka_unit_test(test_conv_i8f32),
      cmocka_unit_test(test_conv_i8_fallback),
      cmocka_unit_test(test_conv_dynamic_offsets),
      cmocka_unit_test(test_conv_dynamic_offsets_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
