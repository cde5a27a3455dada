/* api_seq.c — the call-sequence interpreter of api_seq.h. */
#define _POSIX_C_SOURCE 200809L
#include "api_seq.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRAIL 24     /* calls kept for the failure message */
#define TRAIL_LEN 112
#define IN_NONE (-1)   /* no input ever set */
#define IN_HOSTILE (-2) /* the last frame made from the bytes: its reference is made when it is set */

static yrt_session *new_session(const yrt_model *m, int threads, yrt_error *err) {
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = threads;
  o.oversubscribe = 1; /* 2 threads even on a 1-CPU runner: the pooled paths are what we test */
  yrt_session *s = NULL;
  return yrt_session_create(m, &o, &s, err) == YRT_OK ? s : NULL;
}

static void outs_free(seq_outs *o) {
  for (int i = 0; i < o->n; i++) free(o->data[i]);
  o->n = 0;
}

static yrt_status take_outputs(yrt_session *s, seq_outs *o, yrt_error *err) {
  o->n = 0;
  for (int i = 0; i < SEQ_MAX_OUT; i++) {
    yrt_tensor_view v;
    if (yrt_session_output(s, i, &v, err) != YRT_OK) break;
    o->count[i] = v.count;
    if (!(o->data[i] = malloc(v.count * sizeof(float) + 1))) return yrt_set_error(err, YRT_ERR_NOMEM, "outputs");
    memcpy(o->data[i], v.data, v.count * sizeof(float));
    o->n = i + 1;
  }
  return o->n ? YRT_OK : yrt_set_error(err, YRT_ERR_SHAPE, "no output");
}

/* A fresh single-threaded session's answer for one input: frame, float input or nothing. */
static yrt_status fresh_reference(const yrt_model *m, const yrt_frame *fr, const float *x, size_t nx, seq_outs *o,
                                  seq_dets *d, yrt_error *err) {
  yrt_session *s = new_session(m, 1, err);
  if (!s) return YRT_ERR_NOMEM;
  yrt_status st = YRT_OK;
  if (fr) st = yrt_session_set_frame(s, fr, NULL, err);
  else if (x) st = yrt_session_set_input(s, 0, x, nx, err);
  if (!st) st = yrt_session_run(s, err);
  if (!st) st = take_outputs(s, o, err);
  yrt_session_free(s);
  if (st || !d) return st;
  s = new_session(m, 1, err);
  if (!s) return YRT_ERR_NOMEM;
  st = yrt_session_detect(s, fr, NULL, d->d, SEQ_MAX_DETS, &d->n, err);
  yrt_session_free(s);
  return st;
}

/* Frames of several formats, sizes and crops; packed rows get a stride wider than the row. */
static yrt_status make_frame(seq_world *w, int k, yrt_error *err) {
  static const struct {
    yrt_pixel_format fmt;
    int wd, ht, crop;
  } spec[SEQ_FRAMES] = {
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
  if (!px) return yrt_set_error(err, YRT_ERR_NOMEM, "frame pixels");
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
  return YRT_OK;
}

void seq_world_free(seq_world *w) {
  for (int id = 0; id <= SEQ_INPUTS; id++) outs_free(&w->ref[id]);
  for (int k = 0; k < SEQ_FRAMES; k++) free(w->pixels[k]);
  for (int k = 0; k < SEQ_FLOATS; k++) free(w->x[k]);
  yrt_model_free(w->m);
  memset(w, 0, sizeof *w);
}

yrt_status seq_world_make(seq_world *w, rel_model_kind kind, yrt_error *err) {
  memset(w, 0, sizeof *w);
  void *buf = NULL;
  size_t n = 0;
  yrt_status st = rel_model_yrt(kind, &buf, &n, err);
  if (!st) st = yrt_model_load_memory(buf, n, 1, &w->m, err);
  free(buf);
  if (st) return st;
  w->name = rel_model_name(kind);
  yrt_session *s = new_session(w->m, 1, err);
  if (!s) return seq_world_free(w), YRT_ERR_NOMEM;
  w->nin = yrt_session_input_count(s, 0);
  yrt_session_free(s);
  if (!w->nin) return seq_world_free(w), yrt_set_error(err, YRT_ERR_SHAPE, "%s: no image input", w->name);
  for (int k = 0; !st && k < SEQ_FRAMES; k++) st = make_frame(w, k, err);
  for (int k = 0; !st && k < SEQ_FLOATS; k++) {
    if (!(w->x[k] = malloc(w->nin * sizeof(float)))) st = yrt_set_error(err, YRT_ERR_NOMEM, "inputs");
    for (size_t i = 0; !st && i < w->nin; i++)
      w->x[k][i] = (float)(((i + 1) * (7919u + 104729u * (unsigned)k)) % 256u) / 255.0f;
  }
  for (int id = 0; !st && id <= SEQ_INPUTS; id++)
    st = fresh_reference(w->m, id < SEQ_FRAMES ? &w->frame[id] : NULL,
                         id >= SEQ_FRAMES && id < SEQ_INPUTS ? w->x[id - SEQ_FRAMES] : NULL, w->nin, &w->ref[id],
                         id < SEQ_FRAMES ? &w->ref_det[id] : NULL, err);
  /* the inputs must differ, or a stale one would pass for the right one */
  for (int a = 0; !st && a < SEQ_INPUTS; a++)
    for (int b = a + 1; !st && b <= SEQ_INPUTS; b++)
      if (!memcmp(w->ref[a].data[0], w->ref[b].data[0], w->ref[a].count[0] * sizeof(float)))
        st = yrt_set_error(err, YRT_ERR_SHAPE, "%s: inputs %d and %d give the same output0", w->name, a, b);
  if (st) seq_world_free(w);
  return st;
}

/* ------------------------------------------------ the interpreter */

enum { CANCEL_NO, CANCEL_YES, CANCEL_MAYBE };

typedef struct seq_ctx {
  const seq_world *w;
  int threads;
  const uint8_t *p;
  size_t n, i;
  char trail[TRAIL][TRAIL_LEN];
  int n_trail;
  char *msg;
  size_t cap;
  /* the hostile frame in effect (IN_HOSTILE): its pixels and a fresh session's answer */
  uint8_t *hpx[3];
  seq_outs href;
  seq_dets hdet;
  int hdet_ok;
} seq_ctx;

static int take(seq_ctx *c) { return c->i < c->n ? c->p[c->i++] : 0; }

static void note(seq_ctx *c, int step, const char *fmt, ...) {
  char *l = c->trail[c->n_trail % TRAIL];
  const int k = snprintf(l, TRAIL_LEN, "%4d ", step);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l + k, (size_t)(TRAIL_LEN - k), fmt, ap);
  va_end(ap);
  c->n_trail++;
}

static int fail(seq_ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(c->msg, c->cap, fmt, ap);
  va_end(ap);
  const int first = c->n_trail > TRAIL ? c->n_trail - TRAIL : 0;
  for (int i = first; i < c->n_trail && k >= 0 && (size_t)k < c->cap; i++)
    k += snprintf(c->msg + k, c->cap - (size_t)k, "\n  %s", c->trail[i % TRAIL]);
  return -1;
}

static const seq_outs *want_outs(const seq_ctx *c, int cur) {
  return cur == IN_HOSTILE ? &c->href : &c->w->ref[cur == IN_NONE ? SEQ_INPUTS : cur];
}

static int check_outputs(seq_ctx *c, yrt_session *s, int cur) {
  const seq_outs *want = want_outs(c, cur);
  yrt_error err;
  for (int i = 0; i < want->n; i++) {
    yrt_tensor_view v;
    if (yrt_session_output(s, i, &v, &err) != YRT_OK) return fail(c, "output %d: %s", i, err.msg);
    if (v.count != want->count[i]) return fail(c, "output %d has %zu values, want %zu", i, v.count, want->count[i]);
    for (size_t j = 0; j < v.count; j++)
      if (memcmp(&v.data[j], &want->data[i][j], sizeof(float)))
        return fail(c, "output %d [%zu] = %.9g, a fresh session on input %d gives %.9g", i, j, (double)v.data[j],
                    cur, (double)want->data[i][j]);
  }
  return 0;
}

static int check_dets(seq_ctx *c, const seq_dets *got, const seq_dets *want) {
  if (got->n != want->n) return fail(c, "detect: %d detections, a fresh session gives %d", got->n, want->n);
  for (int i = 0; i < got->n; i++) {
    const yrt_detection *a = &got->d[i], *b = &want->d[i];
    if (memcmp(&a->x0, &b->x0, 5 * sizeof(float)) || a->class_id != b->class_id || a->name != b->name)
      return fail(c, "detect: detection %d differs from a fresh session's (class %d score %.6f vs %d %.6f)", i,
                  a->class_id, (double)a->score, b->class_id, (double)b->score);
  }
  return 0;
}

/* A status of a run or detect against the pending cancel: CANCELLED only when one may be pending.
 * 1: ran to the end, 0: cancelled, -1: a check failed. */
static int run_status(seq_ctx *c, yrt_status st, int *pending, const yrt_error *err, const char *what) {
  if (st == YRT_ERR_CANCELLED) {
    if (*pending == CANCEL_NO) return fail(c, "%s: cancelled with no cancel pending", what);
    *pending = CANCEL_NO;
    return 0;
  }
  if (st != YRT_OK) return fail(c, "%s: %s (%s)", what, yrt_status_name(st), err->msg);
  if (*pending == CANCEL_YES) return fail(c, "%s: ran to the end with a cancel pending", what);
  *pending = CANCEL_NO;
  return 1;
}

/* A frame whose every field comes from the bytes, in planes of exactly the bytes its documented
 * geometry needs (a read past them is an ASan report). Fields out of range are meant to be
 * refused; then the planes are 1 byte each, so reading them at all is a report too. */
static void hostile_frame(seq_ctx *c, yrt_frame *f, uint8_t *px[3]) {
  static const int bpp[] = {0, 3, 3, 4, 4, 1, 1, 1, 1};
  yrt_frame_init(f);
  f->format = (yrt_pixel_format)(take(c) % 10); /* 0 and 9 unknown */
  const int wb = take(c), hb = take(c);
  f->width = wb == 255 ? 70000 : wb == 254 ? 0 : 1 + wb % 48;
  f->height = hb == 255 ? -3 : hb == 254 ? 0 : 1 + hb % 48;
  f->color = (yrt_color_range)(take(c) % 3); /* 2 unknown */
  const int cb = take(c);
  if (cb % 4) {
    f->crop_x = take(c) % 50 - 1;
    f->crop_y = take(c) % 50 - 1;
    f->crop_w = take(c) % 50;
    f->crop_h = take(c) % 50;
  }
  const int fmt = f->format;
  const int known = fmt >= YRT_PIX_RGB888 && fmt <= YRT_PIX_GRAY8 && f->width >= 1 && f->width <= 48 &&
                    f->height >= 1 && f->height <= 48;
  const int yuv = fmt == YRT_PIX_NV12 || fmt == YRT_PIX_NV21 || fmt == YRT_PIX_I420;
  const int planes = fmt == YRT_PIX_I420 ? 3 : yuv ? 2 : 1;
  for (int p = 0; p < 3; p++) {
    const int sb = take(c);
    size_t row = 1, rows = 1;
    if (known) {
      const size_t cw = ((size_t)f->width + 1) / 2;
      row = p == 0 ? (size_t)f->width * (size_t)bpp[fmt] : fmt == YRT_PIX_I420 ? cw : 2 * cw;
      rows = p == 0 || !yuv ? (size_t)f->height : ((size_t)f->height + 1) / 2;
    }
    /* 255: a row short (refused); 254: 2^31, over the 2^30 cap (refused); else the row plus 0..5 bytes */
    f->stride[p] = sb == 255 ? row - 1 : sb == 254 ? (size_t)1 << 31 : row + (size_t)(sb % 6);
    const size_t bytes = known && p < planes && sb < 254 ? f->stride[p] * (rows - 1) + row : 1;
    px[p] = malloc(bytes);
    if (px[p]) {
      for (size_t i = 0; i < bytes; i++) px[p][i] = (uint8_t)(i * 131u + (unsigned)sb);
      f->plane[p] = p < planes || cb % 3 ? px[p] : NULL; /* extra planes: set or not */
    }
  }
  if (take(c) % 8 == 0) f->plane[take(c) % 3] = NULL;
}

static void free_hostile(seq_ctx *c) {
  for (int p = 0; p < 3; p++) free(c->hpx[p]), c->hpx[p] = NULL;
  outs_free(&c->href);
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

/* One call; 0 or -1 (a check failed). */
static int step(seq_ctx *c, yrt_session *s, int st_no, int *cur, int *pending) {
  const seq_world *w = c->w;
  yrt_error err;
  const int op = take(c) % 100;
  if (op < 22) { /* a frame */
    const int k = take(c) % SEQ_FRAMES;
    note(c, st_no, "set_frame %d", k);
    if (yrt_session_set_frame(s, &w->frame[k], NULL, &err) != YRT_OK) return fail(c, "set_frame: %s", err.msg);
    *cur = k;
  } else if (op < 28) { /* a refused frame: the input before stays */
    yrt_frame bad = w->frame[take(c) % SEQ_FRAMES];
    const int how = take(c) % 3;
    if (how == 0) bad.stride[0] = 1;
    else if (how == 1) bad.plane[0] = NULL;
    else bad.crop_x = bad.width, bad.crop_w = 4, bad.crop_h = 4;
    note(c, st_no, "set_frame (refused: %s)", how == 0 ? "stride" : how == 1 ? "plane" : "crop");
    if (yrt_session_set_frame(s, &bad, NULL, &err) == YRT_OK) return fail(c, "a bad frame was accepted");
  } else if (op < 38) { /* a float input */
    const int k = take(c) % SEQ_FLOATS;
    note(c, st_no, "set_input %d", k);
    if (yrt_session_set_input(s, 0, w->x[k], w->nin, &err) != YRT_OK) return fail(c, "set_input: %s", err.msg);
    *cur = SEQ_FRAMES + k;
  } else if (op < 44) { /* a refused set_input: wrong count or index */
    const int how = take(c) % 4;
    note(c, st_no, "set_input (refused: %s)", how == 0 ? "count-1" : how == 1 ? "count+1" : how == 2 ? "index 1" : "NULL");
    const yrt_status st = yrt_session_set_input(s, how == 2 ? 1 : 0, how == 3 ? NULL : w->x[0],
                                                w->nin + (how == 1) - (how == 0), &err);
    if (st == YRT_OK) return fail(c, "a bad set_input was accepted");
  } else if (op < 68) { /* run */
    note(c, st_no, "run (input %d, cancel %d)", *cur, *pending);
    const int r = run_status(c, yrt_session_run(s, &err), pending, &err, "run");
    if (r < 0 || (r > 0 && check_outputs(c, s, *cur))) return -1;
  } else if (op < 80) { /* detect one of the frames */
    const int k = take(c) % SEQ_FRAMES;
    note(c, st_no, "detect %d (cancel %d)", k, *pending);
    seq_dets got;
    const yrt_status st = yrt_session_detect(s, &w->frame[k], NULL, got.d, SEQ_MAX_DETS, &got.n, &err);
    *cur = k; /* the frame is set before the run the cancel may stop */
    const int r = run_status(c, st, pending, &err, "detect");
    if (r < 0 || (r > 0 && check_dets(c, &got, &w->ref_det[k]))) return -1;
  } else if (op < 86) { /* cancel on this thread: the next run or detect stops */
    note(c, st_no, "cancel");
    yrt_session_cancel(s);
    *pending = CANCEL_YES;
  } else if (op < 93) { /* a frame made of the bytes */
    yrt_frame f;
    uint8_t *px[3];
    hostile_frame(c, &f, px);
    const int use_detect = take(c) % 3 == 0;
    note(c, st_no, "%s hostile frame fmt %d %dx%d crop %d,%d %dx%d stride %zu/%zu/%zu", use_detect ? "detect" : "set",
         (int)f.format, f.width, f.height, f.crop_x, f.crop_y, f.crop_w, f.crop_h, f.stride[0], f.stride[1],
         f.stride[2]);
    seq_dets got;
    const yrt_status st = use_detect ? yrt_session_detect(s, &f, NULL, got.d, SEQ_MAX_DETS, &got.n, &err)
                                     : yrt_session_set_frame(s, &f, NULL, &err);
    if (st != YRT_OK && (st != YRT_ERR_CANCELLED || *pending == CANCEL_NO || !use_detect)) {
      for (int p = 0; p < 3; p++) free(px[p]);
      if (st == YRT_ERR_CANCELLED) return fail(c, "hostile frame: cancelled with no cancel pending");
      if (st != YRT_ERR_INVALID_ARG || !err.msg[0])
        return fail(c, "hostile frame refused with %s, message '%s' (want INVALID_ARG naming the field)",
                    yrt_status_name(st), err.msg);
      return 0; /* refused: the input before stays */
    }
    /* accepted (and perhaps cancelled): the frame is the input now; a fresh session's answer */
    free_hostile(c);
    memcpy(c->hpx, px, sizeof px);
    seq_dets want;
    yrt_error e2;
    if (fresh_reference(w->m, &f, NULL, 0, &c->href, &want, &e2) != YRT_OK)
      return fail(c, "the accepted hostile frame fails on a fresh session: %s", e2.msg);
    *cur = IN_HOSTILE;
    if (!use_detect) return 0; /* set_frame runs nothing: a pending cancel waits */
    const int r = run_status(c, st, pending, &err, "detect hostile frame");
    if (r < 0 || (r > 0 && check_dets(c, &got, &want))) return -1;
  } else { /* a cancel racing a run from another thread */
    racer rc = {s, (unsigned)take(c) * 80u};
    note(c, st_no, "run with a racing cancel (spin %u, input %d, cancel %d)", rc.spin, *cur, *pending);
    pthread_t th;
    if (pthread_create(&th, NULL, racer_main, &rc) != 0) return fail(c, "pthread_create");
    const yrt_status st = yrt_session_run(s, &err);
    pthread_join(th, NULL);
    if (st != YRT_OK && st != YRT_ERR_CANCELLED) return fail(c, "racing run: %s", err.msg);
    if (st == YRT_OK && *pending == CANCEL_YES) return fail(c, "racing run: ran to the end with a cancel pending");
    if (st == YRT_OK && check_outputs(c, s, *cur)) return -1;
    /* stopped with none pending before: the racer's, consumed. Otherwise the racer's cancel may
     * have come after the run's last check and waits for the next run (or it stopped this run
     * and an earlier one waits) */
    *pending = st == YRT_ERR_CANCELLED && *pending == CANCEL_NO ? CANCEL_NO : CANCEL_MAYBE;
  }
  return 0;
}

int seq_run(const seq_world *w, int threads, const uint8_t *bytes, size_t n, char *msg, size_t cap) {
  static const seq_ctx zero;
  seq_ctx *c = malloc(sizeof *c);
  if (!c) return snprintf(msg, cap, "out of memory"), -1;
  *c = zero;
  c->w = w, c->threads = threads, c->p = bytes, c->n = n, c->msg = msg, c->cap = cap;
  yrt_error err;
  yrt_session *s = new_session(w->m, threads, &err);
  int rc = s ? 0 : fail(c, "session of %d threads: %s", threads, err.msg);
  int cur = IN_NONE, pending = CANCEL_NO, k = 0;
  while (!rc && c->i < c->n) rc = step(c, s, k++, &cur, &pending);
  /* the end state still runs right, twice */
  for (int r = 0; !rc && r < 2; r++) {
    note(c, k, "final run (input %d, cancel %d)", cur, pending);
    const int ran = run_status(c, yrt_session_run(s, &err), &pending, &err, "final run");
    if (ran < 0 || (ran > 0 && check_outputs(c, s, cur))) rc = -1;
  }
  yrt_session_free(s);
  free_hostile(c);
  free(c);
  return rc;
}
