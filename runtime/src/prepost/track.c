/* track.c — yrt_tracker (yolort_track.h): ByteTrack's association over a fixed pool of track
 * slots. The Kalman filter is ByteTrack's (state cx, cy, aspect, height and their velocities,
 * noise scaled by the height), kept as four independent 2x2 filters: its F, H, Q and R are
 * diagonal per coordinate and the initial covariance is diagonal, so the 8x8 covariance never
 * couples coordinates and the 2x2 blocks are exact. Memory: the tracker, its slots, the candidate
 * pairs (capacity^2) and the per-frame lists, one block made at create. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "caller_struct.h"
#include "yolort_track.h"

#define WP (1.0f / 20)  /* ByteTrack's _std_weight_position */
#define WV (1.0f / 160) /* _std_weight_velocity */

enum { SLOT_FREE = 0, SLOT_NEW, SLOT_TRACKED, SLOT_LOST };

typedef struct kf_axis {
  float p, v;       /* position and velocity */
  float a, b, c;    /* covariance [[a, b], [b, c]] */
} kf_axis;

typedef struct slot {
  int state, id, class_id, det, frames, hits, last_frame;
  float score;
  kf_axis k[4]; /* cx, cy, aspect (w / h), h */
} slot;

typedef struct pair {
  float sim;
  int t, d;
} pair;

struct yrt_tracker {
  yrt_tracker_params p;
  int cap, frame, next_id, owned;
  slot *slots;
  pair *pairs;   /* cap * cap */
  int *det_slot; /* per detection: the slot it went to, -1 */
  int *list_t, *list_d;
};

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

size_t yrt_tracker_memory_bytes(int capacity) {
  if (capacity < 1 || capacity > YRT_TRACKER_MAX_CAPACITY) return 0;
  const size_t c = (size_t)capacity;
  return align16(sizeof(yrt_tracker)) + align16(c * sizeof(slot)) + align16(c * c * sizeof(pair)) +
         3 * align16(c * sizeof(int));
}

/* ------------------------------------------------------------------ Kalman filter (ByteTrack) */

static void kf_init(slot *s, const float z[4]) {
  const float h = z[3];
  const float sp[4] = {2 * WP * h, 2 * WP * h, 1e-2f, 2 * WP * h};
  const float sv[4] = {10 * WV * h, 10 * WV * h, 1e-5f, 10 * WV * h};
  for (int i = 0; i < 4; i++) s->k[i] = (kf_axis){z[i], 0, sp[i] * sp[i], 0, sv[i] * sv[i]};
}

static void kf_predict(slot *s) {
  if (s->state == SLOT_LOST) s->k[3].v = 0; /* a lost box stops growing or shrinking */
  const float h = s->k[3].p;
  const float qp[4] = {WP * h, WP * h, 1e-2f, WP * h}, qv[4] = {WV * h, WV * h, 1e-5f, WV * h};
  for (int i = 0; i < 4; i++) {
    kf_axis *k = &s->k[i];
    k->p += k->v;
    const float a = k->a + 2 * k->b + k->c + qp[i] * qp[i], b = k->b + k->c, c = k->c + qv[i] * qv[i];
    k->a = a, k->b = b, k->c = c;
  }
}

static void kf_update(slot *s, const float z[4]) {
  const float h = s->k[3].p;
  const float r[4] = {WP * h, WP * h, 1e-1f, WP * h};
  for (int i = 0; i < 4; i++) {
    kf_axis *k = &s->k[i];
    const float S = k->a + r[i] * r[i], ka = k->a / S, kb = k->b / S, y = z[i] - k->p;
    k->p += ka * y;
    k->v += kb * y;
    const float a = k->a - ka * k->a, b = k->b - ka * k->b, c = k->c - kb * k->b;
    k->a = a, k->b = b, k->c = c;
  }
}

static void slot_box(const slot *s, float *x0, float *y0, float *x1, float *y1) {
  const float h = s->k[3].p, w = s->k[2].p * h;
  *x0 = s->k[0].p - w / 2, *x1 = s->k[0].p + w / 2;
  *y0 = s->k[1].p - h / 2, *y1 = s->k[1].p + h / 2;
}

static void det_z(const yrt_detection *d, float z[4]) {
  const float w = d->x1 - d->x0, h = d->y1 - d->y0;
  z[0] = d->x0 + w / 2, z[1] = d->y0 + h / 2, z[2] = w / h, z[3] = h;
}

static float iou(const slot *s, const yrt_detection *d) {
  float x0, y0, x1, y1;
  slot_box(s, &x0, &y0, &x1, &y1);
  const float iw = fminf(x1, d->x1) - fmaxf(x0, d->x0), ih = fminf(y1, d->y1) - fmaxf(y0, d->y0);
  if (!(iw > 0 && ih > 0)) return 0;
  const float in = iw * ih, u = (x1 - x0) * (y1 - y0) + (d->x1 - d->x0) * (d->y1 - d->y0) - in;
  return u > 0 ? in / u : 0;
}

/* ------------------------------------------------------------------ association */

/* "a before b": higher similarity, then lower track slot, then lower detection (deterministic). */
static int pair_before(const pair *a, const pair *b) {
  if (a->sim != b->sim) return a->sim > b->sim;
  if (a->t != b->t) return a->t < b->t;
  return a->d < b->d;
}

static void sift(pair *h, size_t i, size_t n) { /* max-heap on "after" */
  for (;;) {
    size_t m = i, l = 2 * i + 1, r = l + 1;
    if (l < n && pair_before(&h[m], &h[l])) m = l;
    if (r < n && pair_before(&h[m], &h[r])) m = r;
    if (m == i) return;
    const pair t = h[i];
    h[i] = h[m], h[m] = t;
    i = m;
  }
}

/* Heap sort, best pair first, in place (no allocation, unlike qsort). */
static void sort_pairs(pair *h, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift(h, i, n);
  for (size_t e = n; e > 1; e--) {
    const pair t = h[0];
    h[0] = h[e - 1], h[e - 1] = t;
    sift(h, 0, e - 1);
  }
}

/* Greedy matching of slots list_t[0..nt) and detections list_d[0..nd) whose similarity (IoU, times
 * the score when fuse) is over thr; each matched pair gets the detection's box. */
static void associate(yrt_tracker *t, const yrt_detection *dets, int nt, int nd, float thr, int fuse) {
  size_t np = 0;
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nd; j++) {
      const slot *s = &t->slots[t->list_t[i]];
      const yrt_detection *d = &dets[t->list_d[j]];
      if (t->p.class_aware && s->class_id != d->class_id) continue;
      const float sim = iou(s, d) * (fuse ? d->score : 1.0f);
      if (sim > thr) t->pairs[np++] = (pair){sim, t->list_t[i], t->list_d[j]};
    }
  sort_pairs(t->pairs, np);
  for (size_t k = 0; k < np; k++) {
    const pair *pr = &t->pairs[k];
    slot *s = &t->slots[pr->t];
    if (s->det >= 0 || t->det_slot[pr->d] >= 0) continue;
    const yrt_detection *d = &dets[pr->d];
    float z[4];
    det_z(d, z);
    kf_update(s, z);
    s->det = pr->d, s->score = d->score, s->class_id = d->class_id;
    s->hits++, s->last_frame = t->frame;
    t->det_slot[pr->d] = pr->t;
  }
}

static int usable(const yrt_detection *d) {
  return isfinite(d->x0) && isfinite(d->y0) && isfinite(d->x1) && isfinite(d->y1) && !isnan(d->score) &&
         d->x1 > d->x0 && d->y1 > d->y0;
}

/* Detections not yet matched whose score is in (lo, hi] into list_d; their count. */
static int gather_dets(yrt_tracker *t, const yrt_detection *dets, int n, float lo, float hi) {
  int m = 0;
  for (int i = 0; i < n; i++)
    if (t->det_slot[i] < 0 && usable(&dets[i]) && dets[i].score > lo && dets[i].score <= hi) t->list_d[m++] = i;
  return m;
}

/* Slots in one of the states (a bit mask of 1 << state) not matched this frame into list_t. */
static int gather_slots(yrt_tracker *t, unsigned states) {
  int m = 0;
  for (int i = 0; i < t->cap; i++)
    if ((states >> t->slots[i].state & 1u) && t->slots[i].det < 0) t->list_t[m++] = i;
  return m;
}

/* ------------------------------------------------------------------ API */

static yrt_status check_params(const yrt_tracker_params *p, yrt_error *err) {
  const float v[6] = {p->track_thresh, p->low_thresh, p->new_track_thresh, p->match_iou, p->low_match_iou,
                      p->new_match_iou};
  static const char *const names[6] = {"track_thresh", "low_thresh", "new_track_thresh", "match_iou",
                                       "low_match_iou", "new_match_iou"};
  for (int i = 0; i < 6; i++)
    if (!(v[i] >= 0.0f && v[i] <= 1.0f))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_tracker_create: %s = %g (0..1)", names[i], (double)v[i]);
  if (p->low_thresh > p->track_thresh)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_tracker_create: low_thresh %g over track_thresh %g",
                         (double)p->low_thresh, (double)p->track_thresh);
  if (p->max_age < 0 || p->max_age > 1000000)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_tracker_create: max_age %d (0..1000000 frames)", p->max_age);
  if (p->class_aware != 0 && p->class_aware != 1)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_tracker_create: class_aware %d (0 or 1)", p->class_aware);
  return YRT_OK;
}

yrt_status yrt_tracker_create(const yrt_tracker_params *params, int capacity, void *memory, size_t memory_bytes,
                              yrt_tracker **out, yrt_error *err) {
  if (!out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_tracker_create: out is NULL");
  *out = NULL;
  yrt_tracker_params p;
  if (params) {
    const yrt_status st = yrt_struct_read(params, params->struct_size, offsetof(yrt_tracker_params, struct_size),
                                          sizeof p, &p, "yrt_tracker_create: params", err);
    if (st != YRT_OK) return st;
  } else {
    yrt_tracker_params_init(&p);
  }
  const yrt_status st = check_params(&p, err);
  if (st != YRT_OK) return st;
  const size_t need = yrt_tracker_memory_bytes(capacity);
  if (!need)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_tracker_create: capacity %d (1..%d)", capacity,
                         YRT_TRACKER_MAX_CAPACITY);
  if (memory && (memory_bytes < need || ((uintptr_t)memory & 15)))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_tracker_create: caller memory of %zu bytes at %p: %zu bytes, 16-byte aligned, needed "
                         "for capacity %d",
                         memory_bytes, memory, need, capacity);
  unsigned char *m = memory ? memory : yrt_alloc(NULL, need);
  if (!m) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt_tracker_create: out of memory for %zu bytes", need);
  memset(m, 0, need);
  const size_t c = (size_t)capacity;
  yrt_tracker *t = (yrt_tracker *)m;
  m += align16(sizeof *t);
  t->slots = (slot *)m;
  m += align16(c * sizeof(slot));
  t->pairs = (pair *)m;
  m += align16(c * c * sizeof(pair));
  t->det_slot = (int *)m;
  m += align16(c * sizeof(int));
  t->list_t = (int *)m;
  m += align16(c * sizeof(int));
  t->list_d = (int *)m;
  t->p = p;
  t->cap = capacity;
  t->owned = memory == NULL;
  t->next_id = 1;
  *out = t;
  return YRT_OK;
}

void yrt_tracker_free(yrt_tracker *t) {
  if (t && t->owned) yrt_free(t);
}

void yrt_tracker_reset(yrt_tracker *t) {
  if (!t) return;
  memset(t->slots, 0, (size_t)t->cap * sizeof *t->slots);
  t->frame = 0;
}

/* A free slot for a new track: a free one, else the longest-lost one; -1 when all are live. */
static int take_slot(yrt_tracker *t) {
  int best = -1;
  for (int i = 0; i < t->cap; i++) {
    const slot *s = &t->slots[i];
    if (s->state == SLOT_FREE) return i;
    if (s->state == SLOT_LOST && (best < 0 || s->last_frame < t->slots[best].last_frame)) best = i;
  }
  return best;
}

yrt_status yrt_tracker_update(yrt_tracker *t, const yrt_detection *dets, int n, yrt_track *out, int cap, int *n_out,
                              yrt_error *err) {
  if (n_out) *n_out = 0;
  if (!t || !n_out || (!dets && n > 0) || (!out && cap > 0))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_tracker_update: NULL argument");
  if (n < 0 || n > t->cap || cap < 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_tracker_update: %d detections (the tracker's capacity is %d), cap %d", n, t->cap, cap);
  const yrt_tracker_params *p = &t->p;
  t->frame++;
  for (int i = 0; i < t->cap; i++) {
    slot *s = &t->slots[i];
    s->det = -1;
    if (s->state != SLOT_FREE) kf_predict(s), s->frames++;
  }
  for (int i = 0; i < n; i++) t->det_slot[i] = -1;
  /* 1. high detections with every confirmed track, live or lost: IoU x score */
  int nt = gather_slots(t, 1u << SLOT_TRACKED | 1u << SLOT_LOST);
  int nd = gather_dets(t, dets, n, p->track_thresh, INFINITY);
  associate(t, dets, nt, nd, p->match_iou, 1);
  for (int i = 0; i < t->cap; i++)
    if (t->slots[i].det >= 0) t->slots[i].state = SLOT_TRACKED; /* a lost one found again */
  /* 2. low detections with the live tracks left: IoU; the live tracks still unmatched are lost */
  nt = gather_slots(t, 1u << SLOT_TRACKED);
  nd = gather_dets(t, dets, n, p->low_thresh, p->track_thresh);
  associate(t, dets, nt, nd, p->low_match_iou, 0);
  for (int i = 0; i < t->cap; i++)
    if (t->slots[i].state == SLOT_TRACKED && t->slots[i].det < 0) t->slots[i].state = SLOT_LOST;
  /* 3. last frame's new tracks with the high detections left: confirmed, or dropped */
  nt = gather_slots(t, 1u << SLOT_NEW);
  nd = gather_dets(t, dets, n, p->track_thresh, INFINITY);
  associate(t, dets, nt, nd, p->new_match_iou, 1);
  for (int i = 0; i < t->cap; i++) {
    slot *s = &t->slots[i];
    if (s->state != SLOT_NEW || s->frames == 0) continue;
    if (s->det >= 0) {
      s->state = SLOT_TRACKED, s->id = t->next_id++;
    } else {
      s->state = SLOT_FREE;
    }
  }
  /* 4. the high detections left start tracks (confirmed at once on the first frame, as ByteTrack) */
  for (int i = 0; i < n; i++) {
    const yrt_detection *d = &dets[i];
    if (t->det_slot[i] >= 0 || !usable(d) || !(d->score > p->track_thresh) || !(d->score >= p->new_track_thresh))
      continue;
    const int k = take_slot(t);
    if (k < 0) break; /* every slot live */
    slot *s = &t->slots[k];
    float z[4];
    det_z(d, z);
    memset(s, 0, sizeof *s);
    kf_init(s, z);
    s->det = i, s->score = d->score, s->class_id = d->class_id;
    s->frames = 0, s->hits = 1, s->last_frame = t->frame;
    s->state = SLOT_NEW;
    if (t->frame == 1) s->state = SLOT_TRACKED, s->id = t->next_id++;
    t->det_slot[i] = k;
  }
  /* 5. lost too long */
  for (int i = 0; i < t->cap; i++) {
    slot *s = &t->slots[i];
    if (s->state == SLOT_LOST && t->frame - s->last_frame > p->max_age) s->state = SLOT_FREE;
  }
  /* the confirmed tracks matched now, lowest id first (insertion into out) */
  int m = 0;
  for (int i = 0; i < t->cap; i++) {
    const slot *s = &t->slots[i];
    if (s->state != SLOT_TRACKED || s->det < 0) continue;
    yrt_track tr;
    tr.id = s->id, tr.class_id = s->class_id, tr.score = s->score, tr.det_index = s->det;
    tr.frames = s->frames + 1, tr.hits = s->hits;
    slot_box(s, &tr.x0, &tr.y0, &tr.x1, &tr.y1);
    if (m == cap && (cap == 0 || out[cap - 1].id < tr.id)) continue; /* not among the cap lowest */
    int at = m < cap ? m : cap - 1; /* full: the highest id makes room */
    for (; at > 0 && out[at - 1].id > tr.id; at--) out[at] = out[at - 1];
    out[at] = tr;
    if (m < cap) m++;
  }
  *n_out = m;
  return YRT_OK;
}
