/* test_api_property.c — issue 40: a property test of the public session calls. Random sequences
 * (seeded, reproducible) of yrt_session_set_frame / set_input / run / detect / cancel, refused
 * calls among them, and a cancel racing a run from a second thread, on sessions of 1 and 2
 * threads: every run's outputs and every detect's detections must equal, bit for bit, those of a
 * fresh single-threaded session given the same input once. The model of the session's state is
 * small: which input is in effect (none, one of the frames, one of the float inputs) and whether
 * a cancel is pending (yes, no, or maybe after a race).
 * On failure it prints the seed, the configuration and the last calls; rerun one sequence with
 * YOLORT_PROPERTY_SEED=N (and YOLORT_PROPERTY_STEPS=M to make it longer). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rel_models.h"
#include "yolort.h"

#define N_FRAMES 5
#define N_FLOATS 2
#define N_INPUTS (N_FRAMES + N_FLOATS) /* input ids: frames first, then float inputs; -1 none */
#define MAX_OUT 4
#define MAX_DETS 64
#define LOG_KEEP 24

typedef struct outs {
  int n;
  size_t count[MAX_OUT];
  float *data[MAX_OUT];
} outs;

typedef struct dets {
  int n;
  yrt_status st;
  yrt_detection d[MAX_DETS];
} dets;

/* One model and everything fresh sessions said about it. */
typedef struct world {
  yrt_model *m;
  const char *name;
  size_t nin;
  yrt_frame frame[N_FRAMES];
  uint8_t *pixels[N_FRAMES];
  float *x[N_FLOATS];
  outs ref[N_INPUTS + 1]; /* [N_INPUTS]: no input ever set (the zeroed arena) */
  dets ref_det[N_FRAMES];
} world;

static uint64_t rng_next(uint64_t *s) { /* splitmix64: the whole sequence follows from the seed */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int rng_below(uint64_t *s, int n) { return (int)(rng_next(s) % (uint64_t)n); }

static yrt_session *new_session(const yrt_model *m, int threads) {
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = threads;
  o.oversubscribe = 1; /* 2 threads even on a 1-CPU runner: the pooled paths are what we test */
  yrt_session *s = NULL;
  yrt_error err;
  if (yrt_session_create(m, &o, &s, &err) != YRT_OK) fail_msg("session (%d threads): %s", threads, err.msg);
  return s;
}

static void take_outputs(yrt_session *s, outs *o) {
  yrt_error err;
  o->n = 0;
  for (int i = 0; i < MAX_OUT; i++) {
    yrt_tensor_view v;
    if (yrt_session_output(s, i, &v, &err) != YRT_OK) break;
    o->count[i] = v.count;
    o->data[i] = malloc(v.count * sizeof(float) + 1);
    assert_non_null(o->data[i]);
    memcpy(o->data[i], v.data, v.count * sizeof(float));
    o->n = i + 1;
  }
  assert_true(o->n >= 1);
}

/* Frames of several formats, sizes and crops; packed rows get a stride wider than the row. */
static void make_frame(world *w, int k) {
  static const struct {
    yrt_pixel_format fmt;
    int wd, ht, crop;
  } spec[N_FRAMES] = {
      {YRT_PIX_RGB888, 29, 21, 0}, {YRT_PIX_BGR888, 16, 16, 0}, {YRT_PIX_NV12, 30, 18, 0},
      {YRT_PIX_GRAY8, 7, 40, 0},   {YRT_PIX_RGBA8888, 40, 24, 1},
  };
  yrt_frame *f = &w->frame[k];
  yrt_frame_init(f);
  f->format = spec[k].fmt;
  f->width = spec[k].wd;
  f->height = spec[k].ht;
  const int bpp = f->format == YRT_PIX_RGBA8888 ? 4 : f->format == YRT_PIX_GRAY8 ? 1 : 3;
  size_t bytes;
  if (f->format == YRT_PIX_NV12) {
    f->stride[0] = f->stride[1] = (size_t)f->width;
    bytes = (size_t)f->width * (size_t)f->height * 3 / 2;
  } else {
    f->stride[0] = (size_t)f->width * (size_t)bpp + 5;
    bytes = f->stride[0] * (size_t)f->height;
  }
  uint8_t *px = malloc(bytes);
  assert_non_null(px);
  for (size_t i = 0; i < bytes; i++) px[i] = (uint8_t)(((unsigned)k * 2654435761u + (unsigned)i * 40503u) >> 11);
  w->pixels[k] = px;
  f->plane[0] = px;
  if (f->format == YRT_PIX_NV12) f->plane[1] = px + (size_t)f->width * (size_t)f->height;
  if (spec[k].crop) {
    f->crop_x = 6;
    f->crop_y = 2;
    f->crop_w = 30;
    f->crop_h = 20;
  }
}

static void world_make(world *w, rel_model_kind kind) {
  memset(w, 0, sizeof *w);
  void *buf = NULL;
  size_t n = 0;
  yrt_error err;
  if (rel_model_yrt(kind, &buf, &n, &err) != YRT_OK) fail_msg("rel_model_yrt: %s", err.msg);
  if (yrt_model_load_memory(buf, n, 1, &w->m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  free(buf);
  w->name = rel_model_name(kind);
  yrt_session *s = new_session(w->m, 1);
  w->nin = yrt_session_input_count(s, 0);
  assert_true(w->nin > 0);
  yrt_session_free(s);
  for (int k = 0; k < N_FRAMES; k++) make_frame(w, k);
  for (int k = 0; k < N_FLOATS; k++) {
    w->x[k] = malloc(w->nin * sizeof(float));
    assert_non_null(w->x[k]);
    for (size_t i = 0; i < w->nin; i++) w->x[k][i] = (float)(((i + 1) * (7919u + 104729u * (unsigned)k)) % 256u) / 255.0f;
  }
  /* the references: each input on its own fresh session, once */
  for (int id = 0; id <= N_INPUTS; id++) {
    s = new_session(w->m, 1);
    yrt_status st = YRT_OK;
    if (id < N_FRAMES) st = yrt_session_set_frame(s, &w->frame[id], NULL, &err);
    else if (id < N_INPUTS) st = yrt_session_set_input(s, 0, w->x[id - N_FRAMES], w->nin, &err);
    if (st == YRT_OK) st = yrt_session_run(s, &err);
    if (st != YRT_OK) fail_msg("%s: reference %d: %s", w->name, id, err.msg);
    take_outputs(s, &w->ref[id]);
    yrt_session_free(s);
  }
  for (int k = 0; k < N_FRAMES; k++) {
    s = new_session(w->m, 1);
    dets *d = &w->ref_det[k];
    d->st = yrt_session_detect(s, &w->frame[k], NULL, d->d, MAX_DETS, &d->n, &err);
    if (d->st != YRT_OK) fail_msg("%s: reference detect %d: %s", w->name, k, err.msg);
    yrt_session_free(s);
  }
  /* the inputs must differ, or a stale one would pass for the right one */
  for (int a = 0; a < N_INPUTS; a++)
    for (int b = a + 1; b <= N_INPUTS; b++)
      if (!memcmp(w->ref[a].data[0], w->ref[b].data[0], w->ref[a].count[0] * sizeof(float)))
        fail_msg("%s: inputs %d and %d give the same output0", w->name, a, b);
}

static void world_free(world *w) {
  for (int id = 0; id <= N_INPUTS; id++)
    for (int i = 0; i < w->ref[id].n; i++) free(w->ref[id].data[i]);
  for (int k = 0; k < N_FRAMES; k++) free(w->pixels[k]);
  for (int k = 0; k < N_FLOATS; k++) free(w->x[k]);
  yrt_model_free(w->m);
}

/* The last calls, for the failure message. */
typedef struct trail {
  char line[LOG_KEEP][96];
  int n;
} trail;

static void trail_add(trail *t, int step, const char *fmt, ...) {
  char *l = t->line[t->n % LOG_KEEP];
  const int k = snprintf(l, 96, "%4d ", step);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l + k, (size_t)(96 - k), fmt, ap);
  va_end(ap);
  t->n++;
}

typedef struct ctx {
  const world *w;
  int threads;
  uint64_t seed;
  trail t;
} ctx;

static void fail_with(const ctx *c, const char *fmt, ...) {
  char why[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  print_error("property failed: model %s, %d thread(s), seed %llu (YOLORT_PROPERTY_SEED=%llu): %s\nlast calls:\n",
              c->w->name, c->threads, (unsigned long long)c->seed, (unsigned long long)c->seed, why);
  const int first = c->t.n > LOG_KEEP ? c->t.n - LOG_KEEP : 0;
  for (int i = first; i < c->t.n; i++) print_error("  %s\n", c->t.line[i % LOG_KEEP]);
  fail();
}

static void check_outputs(const ctx *c, yrt_session *s, int cur) {
  const outs *want = &c->w->ref[cur < 0 ? N_INPUTS : cur];
  yrt_error err;
  for (int i = 0; i < want->n; i++) {
    yrt_tensor_view v;
    if (yrt_session_output(s, i, &v, &err) != YRT_OK) fail_with(c, "output %d: %s", i, err.msg);
    if (v.count != want->count[i]) fail_with(c, "output %d has %zu values, want %zu", i, v.count, want->count[i]);
    for (size_t j = 0; j < v.count; j++)
      if (memcmp(&v.data[j], &want->data[i][j], sizeof(float)))
        fail_with(c, "output %d [%zu] = %.9g, a fresh session on input %d gives %.9g", i, j, (double)v.data[j], cur,
                  (double)want->data[i][j]);
  }
}

static void check_dets(const ctx *c, const dets *got, int k) {
  const dets *want = &c->w->ref_det[k];
  if (got->n != want->n) fail_with(c, "detect: %d detections, a fresh session gives %d", got->n, want->n);
  for (int i = 0; i < got->n; i++) {
    const yrt_detection *a = &got->d[i], *b = &want->d[i];
    if (memcmp(&a->x0, &b->x0, 5 * sizeof(float)) || a->class_id != b->class_id || a->name != b->name)
      fail_with(c, "detect: detection %d differs from a fresh session's (class %d score %.6f vs %d %.6f)", i,
                a->class_id, (double)a->score, b->class_id, (double)b->score);
  }
}

/* A cancel from another thread at some point of a run (before, during or after it). */
typedef struct racer {
  yrt_session *s;
  unsigned spin;
} racer;

static void *racer_main(void *arg) {
  racer *r = arg;
  for (volatile unsigned i = 0; i < r->spin; i++) {
  }
  yrt_session_cancel(r->s);
  return NULL;
}

enum { CANCEL_NO, CANCEL_YES, CANCEL_MAYBE };

/* A status of a run or detect against the pending cancel: CANCELLED only when one is pending. */
static int expect_run_status(const ctx *c, yrt_status st, int *pending, const yrt_error *err, const char *what) {
  if (st == YRT_ERR_CANCELLED) {
    if (*pending == CANCEL_NO) fail_with(c, "%s: cancelled with no cancel pending", what);
    *pending = CANCEL_NO;
    return 0;
  }
  if (st != YRT_OK) fail_with(c, "%s: %s (%s)", what, yrt_status_name(st), err->msg);
  if (*pending == CANCEL_YES) fail_with(c, "%s: ran to the end with a cancel pending", what);
  *pending = CANCEL_NO;
  return 1;
}

static void run_sequence(const world *w, int threads, uint64_t seed, int steps) {
  ctx c = {w, threads, seed, {.n = 0}};
  uint64_t r = seed;
  yrt_session *s = new_session(w->m, threads);
  int cur = -1, pending = CANCEL_NO;
  yrt_error err;
  dets got;
  for (int step = 0; step < steps; step++) {
    const int op = rng_below(&r, 100);
    if (op < 22) { /* a frame */
      const int k = rng_below(&r, N_FRAMES);
      trail_add(&c.t, step, "set_frame %d", k);
      if (yrt_session_set_frame(s, &w->frame[k], NULL, &err) != YRT_OK) fail_with(&c, "set_frame: %s", err.msg);
      cur = k;
    } else if (op < 30) { /* a refused frame: the input before stays */
      yrt_frame bad = w->frame[rng_below(&r, N_FRAMES)];
      const int how = rng_below(&r, 3);
      if (how == 0) bad.stride[0] = 1;
      else if (how == 1) bad.plane[0] = NULL;
      else bad.crop_x = bad.width, bad.crop_w = 4, bad.crop_h = 4;
      trail_add(&c.t, step, "set_frame (refused: %s)", how == 0 ? "stride" : how == 1 ? "plane" : "crop");
      if (yrt_session_set_frame(s, &bad, NULL, &err) == YRT_OK) fail_with(&c, "a bad frame was accepted");
    } else if (op < 40) { /* a float input */
      const int k = rng_below(&r, N_FLOATS);
      trail_add(&c.t, step, "set_input %d", k);
      if (yrt_session_set_input(s, 0, w->x[k], w->nin, &err) != YRT_OK) fail_with(&c, "set_input: %s", err.msg);
      cur = N_FRAMES + k;
    } else if (op < 46) { /* a refused set_input: wrong count or index */
      const int how = rng_below(&r, 3);
      trail_add(&c.t, step, "set_input (refused: %s)", how == 0 ? "count-1" : how == 1 ? "count+1" : "index 1");
      const yrt_status st = yrt_session_set_input(s, how == 2 ? 1 : 0, w->x[0], w->nin + (how == 1) - (how == 0),
                                                  &err);
      if (st == YRT_OK) fail_with(&c, "a bad set_input was accepted");
    } else if (op < 72) { /* run */
      trail_add(&c.t, step, "run (input %d, cancel %d)", cur, pending);
      if (expect_run_status(&c, yrt_session_run(s, &err), &pending, &err, "run")) check_outputs(&c, s, cur);
    } else if (op < 86) { /* detect a frame */
      const int k = rng_below(&r, N_FRAMES);
      trail_add(&c.t, step, "detect %d (cancel %d)", k, pending);
      got.st = yrt_session_detect(s, &w->frame[k], NULL, got.d, MAX_DETS, &got.n, &err);
      cur = k; /* the frame is set before the run the cancel may stop */
      if (expect_run_status(&c, got.st, &pending, &err, "detect")) check_dets(&c, &got, k);
    } else if (op < 93) { /* cancel on this thread: the next run or detect stops */
      trail_add(&c.t, step, "cancel");
      yrt_session_cancel(s);
      pending = CANCEL_YES;
    } else { /* a cancel racing a run from another thread */
      racer rc = {s, (unsigned)rng_below(&r, 20000)};
      trail_add(&c.t, step, "run with a racing cancel (spin %u, input %d)", rc.spin, cur);
      pthread_t th;
      if (pthread_create(&th, NULL, racer_main, &rc) != 0) fail_with(&c, "pthread_create");
      const yrt_status st = yrt_session_run(s, &err);
      pthread_join(th, NULL);
      if (st != YRT_OK && st != YRT_ERR_CANCELLED) fail_with(&c, "racing run: %s", err.msg);
      if (st == YRT_OK && pending == CANCEL_YES) fail_with(&c, "racing run: ran to the end with a cancel pending");
      if (st == YRT_OK) check_outputs(&c, s, cur);
      /* stopped with none pending before: the racer's, consumed. Otherwise the racer's cancel may
       * have come after the run's last check and waits for the next run (or it stopped this run
       * and an earlier one waits) */
      pending = st == YRT_ERR_CANCELLED && pending == CANCEL_NO ? CANCEL_NO : CANCEL_MAYBE;
    }
  }
  /* the end state still runs right */
  trail_add(&c.t, steps, "final run x2 (input %d, cancel %d)", cur, pending);
  for (int k = 0; k < 2; k++)
    if (expect_run_status(&c, yrt_session_run(s, &err), &pending, &err, "final run")) check_outputs(&c, s, cur);
  yrt_session_free(s);
}

static int env_int(const char *name, int def) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : def;
}

static void sequences(rel_model_kind kind) {
  world w;
  world_make(&w, kind);
  const int one = env_int("YOLORT_PROPERTY_SEED", -1), steps = env_int("YOLORT_PROPERTY_STEPS", 300);
  const int seeds = one >= 0 ? 1 : 4; /* 4 x 300 steps per model and thread count: ~3 s of CPU in Release */
  for (int threads = 1; threads <= 2; threads++)
    for (int k = 0; k < seeds; k++) {
      const uint64_t seed = one >= 0 ? (uint64_t)one : (uint64_t)(1000 * (int)kind + 10 * threads + k);
      run_sequence(&w, threads, seed, steps);
    }
  world_free(&w);
}

static void test_sequences_int8(void **state) {
  (void)state;
  sequences(REL_MODEL_QDQ_YOLO);
}

static void test_sequences_f32(void **state) {
  (void)state;
  sequences(REL_MODEL_F32_YOLO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sequences_int8),
      cmocka_unit_test(test_sequences_f32),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
