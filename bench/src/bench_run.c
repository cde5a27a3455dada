/* bench_run.c — measure one configuration: warm-up, timed runs, optional profiled runs. */
#include "bench_run.h"

#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_DETS 300

typedef struct run_ctx {
  yrt_session *s;
  const bench_input *in;
  int in_w, in_h;
  int nc;                 /* META's classes (a segment model's mask rows follow the scores) */
  int rotated;            /* an obb model (yrt_model_rotated): rotated NMS */
  float *input;           /* NHWC input inside the session */
  size_t input_count;     /* its floats */
  void *lb_scratch;       /* letterbox scratch for the decoded JPEG size */
  void *pp_scratch;       /* postprocess scratch */
  yrt_detection *dets;
  yrt_postprocess_params pp;
  int n_dets;
  yrt_image img;          /* --frame: the decoded JPEG, the camera's frame */
  yrt_frame fr;
  int classify;           /* task "classify": post = the top-5 classes, not decode + NMS */
  yrt_class_prob top[5];
  int n_top;
} run_ctx;

/* --frame: the camera path. pre: yrt_session_set_frame alone (the letterbox, for the split);
 * infer: yrt_session_detect, the call a camera loop makes (letterbox again, inference, decode, NMS). */
static yrt_status run_frame(run_ctx *c, double t[3], yrt_error *err) {
  double t0 = bench_now_ms();
  yrt_status st = yrt_session_set_frame(c->s, &c->fr, NULL, err);
  if (st != YRT_OK) return st;
  double t1 = bench_now_ms();
  if (c->classify) st = yrt_session_classify(c->s, &c->fr, 5, c->top, 5, &c->n_top, err);
  else st = yrt_session_detect(c->s, &c->fr, &c->pp, c->dets, BENCH_MAX_DETS, &c->n_dets, err);
  if (st != YRT_OK) return st;
  t[0] += t1 - t0;
  t[1] += bench_now_ms() - t1;
  return YRT_OK;
}

/* One image through the chosen stages; adds stage times (ms) into t[3] = pre, infer, post. */
static yrt_status run_one(run_ctx *c, double t[3], yrt_error *err) {
  if (c->in->frame) return run_frame(c, t, err);
  yrt_status st;
  yrt_letterbox lb;
  double t0 = bench_now_ms();
  if (c->in->jpeg) {
    yrt_image img = {0};
    st = yrt_image_decode_jpeg(c->in->jpeg, c->in->jpeg_size, &img, err);
    if (st != YRT_OK) return st;
    st = yrt_letterbox_f32(&img, c->in_w, c->in_h, c->input, c->input_count, c->lb_scratch, &lb, err);
    yrt_image_free(&img);
    if (st != YRT_OK) return st;
  }
  double t1 = bench_now_ms();
  st = yrt_session_run(c->s, err);
  if (st != YRT_OK) return st;
  double t2 = bench_now_ms();
  if (c->in->jpeg && c->classify) {
    st = yrt_session_classify_output(c->s, 5, c->top, 5, &c->n_top, err);
    if (st != YRT_OK) return st;
  } else if (c->in->jpeg) {
    yrt_tensor_view v;
    st = yrt_session_output(c->s, 0, &v, err);
    if (st != YRT_OK) return st;
    if (v.rank != 3 || c->nc < 1 || v.dims[1] < 4 + c->nc) {
      return yrt_set_error(err, YRT_ERR_SHAPE, "bench: output 0 has rank %d, want [1, 4 + %d classes, N]",
                           v.rank, c->nc);
    }
    /* an obb model: the session's rotated NMS (the plain yrt_postprocess knows no angle row) */
    st = c->rotated ? yrt_session_postprocess(c->s, &lb, &c->pp, c->dets, BENCH_MAX_DETS, &c->n_dets, err)
                    : yrt_postprocess(v.data, c->nc, v.dims[2], &lb, &c->pp, c->pp_scratch, c->dets, BENCH_MAX_DETS,
                                      &c->n_dets, err);
    if (st != YRT_OK) return st;
  }
  double t3 = bench_now_ms();
  t[0] += t1 - t0;
  t[1] += t2 - t1;
  t[2] += t3 - t2;
  return YRT_OK;
}

/* Allocates the letterbox / postprocess scratch once, outside the timed loop. */
static yrt_status prepare(run_ctx *c, yrt_error *err) {
  c->input = yrt_session_input_nhwc(c->s, 0);
  c->input_count = yrt_session_input_count(c->s, 0);
  if (!c->input) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "bench: session has no input 0");
  if (c->input_count / 3 / (size_t)c->in_w < (size_t)c->in_h)
    return yrt_set_error(err, YRT_ERR_SHAPE, "bench: input 0 holds %zu floats, not a %dx%d RGB image",
                         c->input_count, c->in_w, c->in_h);
  if (!c->in->jpeg) {
    /* A flat grey frame (the letterbox pad value): inference time does not depend on it. */
    size_t n = (size_t)c->in_w * c->in_h * 3;
    for (size_t i = 0; i < n; i++) c->input[i] = 114.0f / 255.0f;
    return YRT_OK;
  }
  yrt_image img = {0};
  yrt_status st = yrt_image_decode_jpeg(c->in->jpeg, c->in->jpeg_size, &img, err);
  if (st != YRT_OK) return st;
  c->lb_scratch = malloc(yrt_letterbox_scratch_bytes(img.w, img.h, c->in_w, c->in_h) + 1);
  if (c->in->frame) { /* kept: the frame every iteration sees */
    c->img = img;
    yrt_frame_init(&c->fr);
    c->fr.format = YRT_PIX_RGB888;
    c->fr.width = img.w;
    c->fr.height = img.h;
    c->fr.plane[0] = img.rgb;
    c->fr.stride[0] = (size_t)img.w * 3;
  } else {
    yrt_image_free(&img);
  }
  if (!c->lb_scratch) return yrt_set_error(err, YRT_ERR_NOMEM, "bench: letterbox scratch");
  /* Output shape is known only after a run. */
  st = yrt_session_run(c->s, err);
  if (st != YRT_OK) return st;
  yrt_tensor_view v;
  st = yrt_session_output(c->s, 0, &v, err);
  if (st != YRT_OK) return st;
  if (c->classify) return YRT_OK; /* top-5 into c->top: no scratch */
  if (v.rank != 3) return yrt_set_error(err, YRT_ERR_SHAPE, "bench: output 0 rank %d != 3", v.rank);
  yrt_postprocess_defaults(&c->pp);
  c->pp.max_detections = BENCH_MAX_DETS;
  c->pp_scratch = malloc(yrt_postprocess_scratch_bytes(v.dims[2], BENCH_MAX_DETS) + 1);
  c->dets = calloc(BENCH_MAX_DETS, sizeof *c->dets);
  if (!c->pp_scratch || !c->dets) return yrt_set_error(err, YRT_ERR_NOMEM, "bench: postprocess scratch");
  return YRT_OK;
}

/* The `top` slowest nodes of r->node_ms, slowest first (names copied: the session goes first). */
static yrt_status collect_top(const yrt_session *s, int top, bench_result *r, yrt_error *err) {
  if (top > r->n_nodes) top = r->n_nodes;
  r->top = calloc((size_t)top, sizeof *r->top);
  if (!r->top) return yrt_set_error(err, YRT_ERR_NOMEM, "bench: --top %d", top);
  for (int i = 0; i < r->n_nodes; i++) {
    int k;
    if (r->n_top < top) k = r->n_top++;
    else if (r->node_ms[i] > r->top[top - 1].ms) k = top - 1;
    else continue;
    while (k > 0 && r->top[k - 1].ms < r->node_ms[i]) { /* insertion keeps slowest first */
      r->top[k] = r->top[k - 1];
      k--;
    }
    const char *name = yrt_session_node_name(s, i), *kind = yrt_session_node_kind(s, i);
    snprintf(r->top[k].name, sizeof r->top[k].name, "%s", name ? name : "?");
    snprintf(r->top[k].kind, sizeof r->top[k].kind, "%s", kind ? kind : "?");
    r->top[k].ms = r->node_ms[i];
  }
  return YRT_OK;
}

static yrt_status run_profile(run_ctx *c, const bench_opts *o, bench_result *r, yrt_error *err) {
  uint64_t dummy = 0;
  int n = yrt_session_node_times(c->s, &dummy, 0);
  if (n <= 0) return YRT_OK;
  uint64_t *ns = calloc((size_t)n, sizeof *ns);
  r->node_ms = calloc((size_t)n, sizeof *r->node_ms);
  r->kinds = calloc((size_t)n, sizeof *r->kinds);
  if (!ns || !r->node_ms || !r->kinds) {
    free(ns);
    return yrt_set_error(err, YRT_ERR_NOMEM, "bench: profile buffers for %d nodes", n);
  }
  r->n_nodes = n;
  yrt_session_set_profiling(c->s, 1);
  double t[3] = {0, 0, 0};
  yrt_status st = c->in->frame ? run_frame(c, t, err) : yrt_session_run(c->s, err); /* first one untimed */
  for (int it = 0; st == YRT_OK && it < o->runs; it++) {
    st = c->in->frame ? run_frame(c, t, err) : yrt_session_run(c->s, err);
    if (st != YRT_OK) break;
    int got = yrt_session_node_times(c->s, ns, n);
    for (int i = 0; i < got && i < n; i++) r->node_ms[i] += (double)ns[i] * 1e-6;
  }
  yrt_session_set_profiling(c->s, 0);
  free(ns);
  if (st != YRT_OK) return st;
  for (int i = 0; i < n; i++) {
    r->node_ms[i] /= o->runs;
    r->profile_ms += r->node_ms[i];
    const char *kind = yrt_session_node_kind(c->s, i);
    if (!kind) kind = "?";
    int k = 0;
    while (k < r->n_kinds && strcmp(r->kinds[k].kind, kind) != 0) k++;
    if (k == r->n_kinds) {
      snprintf(r->kinds[k].kind, sizeof r->kinds[k].kind, "%s", kind);
      r->n_kinds++;
    }
    r->kinds[k].nodes++;
    r->kinds[k].ms += r->node_ms[i];
  }
  if (o->top > 0) {
    st = collect_top(c->s, o->top, r, err);
    if (st != YRT_OK) return st;
  }
  if (c->in->n_convs > 0) {
    r->conv_ms = calloc((size_t)c->in->n_convs, sizeof *r->conv_ms);
    if (!r->conv_ms) return yrt_set_error(err, YRT_ERR_NOMEM, "bench: conv times");
    for (int k = 0; k < c->in->n_convs; k++) {
      const bench_conv *cv = &c->in->convs[k];
      r->conv_ms[k] = -1;
      /* the session may renumber nodes; names survive (index as the fallback) */
      for (int i = 0; i < n; i++) {
        const char *nm = yrt_session_node_name(c->s, i);
        if (nm && strcmp(nm, cv->name) == 0) {
          r->conv_ms[k] = r->node_ms[i];
          break;
        }
      }
      if (r->conv_ms[k] < 0 && cv->node < n) {
        const char *kind = yrt_session_node_kind(c->s, cv->node);
        if (kind && strncmp(kind, "conv", 4) == 0) r->conv_ms[k] = r->node_ms[cv->node];
      }
    }
  }
  /* largest first */
  for (int a = 1; a < r->n_kinds; a++) {
    bench_kind_time t = r->kinds[a];
    int b = a;
    while (b > 0 && r->kinds[b - 1].ms < t.ms) {
      r->kinds[b] = r->kinds[b - 1];
      b--;
    }
    r->kinds[b] = t;
  }
  return YRT_OK;
}

yrt_status bench_run_config(const yrt_model *model, const bench_opts *o, const bench_input *in,
                            int threads, int batch, bench_result *r, yrt_error *err) {
  memset(r, 0, sizeof(*r));
  yrt_model_info info;
  yrt_status st = yrt_model_get_info(model, &info);
  if (st != YRT_OK) return yrt_set_error(err, st, "bench: yrt_model_get_info failed");
  r->size_w = info.input_w;
  r->size_h = info.input_h;
  r->threads = threads;
  r->batch = batch;
  r->warmup = o->warmup;
  r->runs = o->runs;
  r->has_e2e = in->jpeg != NULL;
  r->frame = in->jpeg != NULL && in->frame;

  run_ctx c;
  memset(&c, 0, sizeof c);
  c.in = in;
  c.in_w = info.input_w;
  c.in_h = info.input_h;
  c.classify = strcmp(yrt_model_task(model), "classify") == 0;
  c.rotated = yrt_model_rotated(model);
  c.nc = info.num_classes;
  yrt_session_options so;
  yrt_session_options_init(&so);
  so.num_threads = threads;
  so.oversubscribe = o->oversubscribe;
  so.isa_cap = o->isa;
  double t0 = bench_now_ms();
  st = yrt_session_create(model, &so, &c.s, err);
  r->session_ms = bench_now_ms() - t0;
  if (st != YRT_OK) return st;
  r->threads = yrt_session_num_threads(c.s); /* what ran: capped at the online CPUs */

  double *v[4] = {calloc((size_t)o->runs, sizeof(double)), calloc((size_t)o->runs, sizeof(double)),
                  calloc((size_t)o->runs, sizeof(double)), calloc((size_t)o->runs, sizeof(double))};
  if (!v[0] || !v[1] || !v[2] || !v[3]) {
    st = yrt_set_error(err, YRT_ERR_NOMEM, "bench: timing buffers for %d runs", o->runs);
    goto done;
  }
  st = prepare(&c, err);
  for (int it = 0; st == YRT_OK && it < o->warmup; it++) {
    double t[3] = {0, 0, 0};
    for (int b = 0; st == YRT_OK && b < batch; b++) st = run_one(&c, t, err);
  }
  for (int it = 0; st == YRT_OK && it < o->runs; it++) {
    double t[3] = {0, 0, 0};
    double ts = bench_now_ms();
    for (int b = 0; st == YRT_OK && b < batch; b++) st = run_one(&c, t, err);
    v[0][it] = bench_now_ms() - ts;
    v[1][it] = t[0];
    v[2][it] = t[1];
    v[3][it] = t[2];
  }
  if (st != YRT_OK) goto done;
  bench_stats_compute(v[0], o->runs, &r->total);
  bench_stats_compute(v[1], o->runs, &r->pre);
  bench_stats_compute(v[2], o->runs, &r->infer);
  bench_stats_compute(v[3], o->runs, &r->post);
  r->n_dets = c.n_dets;
  r->classify = c.classify;
  r->top1 = c.n_top > 0 ? c.top[0].class_id : -1;
  if (o->profile) st = run_profile(&c, o, r, err);
  bench_mem_read(&r->mem);
done:
  for (int i = 0; i < 4; i++) free(v[i]);
  free(c.lb_scratch);
  free(c.pp_scratch);
  free(c.dets);
  yrt_image_free(&c.img);
  yrt_session_free(c.s);
  return st;
}

void bench_result_free(bench_result *r) {
  free(r->kinds);
  free(r->node_ms);
  free(r->conv_ms);
  free(r->top);
  r->top = NULL;
  r->n_top = 0;
  r->kinds = NULL;
  r->node_ms = NULL;
  r->conv_ms = NULL;
}
