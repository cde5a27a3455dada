/* test_track.c — yrt_tracker (yolort_track.h) on synthetic box tracks: two objects crossing keep
 * their IDs; an occlusion shorter than max_age keeps the ID, a longer one gives a new ID; a
 * low-score stretch continues a track (second association) but never starts one; a one-frame
 * false positive never gets an ID; the filtered boxes follow a moving object; capacity, caller
 * memory, bad arguments and the output cap. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "yolort_track.h"

static yrt_detection box(float cx, float cy, float w, float h, float score, int cls) {
  yrt_detection d = {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, score, cls, NULL};
  return d;
}

static yrt_tracker *make(const yrt_tracker_params *p, int cap) {
  yrt_tracker *t = NULL;
  yrt_error err = {{0}};
  if (yrt_tracker_create(p, cap, NULL, 0, &t, &err) != YRT_OK) fail_msg("create: %s", err.msg);
  return t;
}

/* The id of the track matched to detection i this frame, 0 if none. */
static int id_of(const yrt_track *tr, int n, int i) {
  for (int k = 0; k < n; k++)
    if (tr[k].det_index == i) return tr[k].id;
  return 0;
}

static int update(yrt_tracker *t, const yrt_detection *d, int n, yrt_track *out, int cap) {
  int m = -1;
  yrt_error err = {{0}};
  if (yrt_tracker_update(t, d, n, out, cap, &m, &err) != YRT_OK) fail_msg("update: %s", err.msg);
  return m;
}

/* A moving right, B moving left 20 px lower, same class and size: they overlap for several
 * frames (IoU up to ~0.6) and come out with their own IDs. */
static void test_crossing(void **state) {
  (void)state;
  yrt_tracker *t = make(NULL, 16);
  yrt_track tr[16];
  int ida = 0, idb = 0;
  for (int f = 0; f < 60; f++) {
    const yrt_detection d[2] = {box(20 + 6.0f * (float)f, 100, 40, 80, 0.9f, 0), box(380 - 6.0f * (float)f, 120, 40, 80, 0.85f, 0)};
    const int n = update(t, d, 2, tr, 16);
    assert_int_equal(n, 2);
    if (f == 0) {
      ida = id_of(tr, n, 0), idb = id_of(tr, n, 1);
      assert_true(ida > 0 && idb > 0 && ida != idb);
    }
    if (id_of(tr, n, 0) != ida || id_of(tr, n, 1) != idb)
      fail_msg("frame %d: ids %d, %d, want %d, %d", f, id_of(tr, n, 0), id_of(tr, n, 1), ida, idb);
  }
  /* the filtered box follows A (6 px / frame): close to its last detection */
  for (int k = 0; k < 2; k++)
    if (tr[k].id == ida) {
      assert_true(fabsf((tr[k].x0 + tr[k].x1) / 2 - (20 + 6.0f * 59)) < 2.0f);
      assert_int_equal(tr[k].hits, 60);
      assert_int_equal(tr[k].frames, 60);
    }
  yrt_tracker_free(t);
}

/* Occlusion: a walker missing for `gap` frames, a parked car seen throughout. */
static void run_gap(int max_age, int gap, int *id_before, int *id_after, int *car_ids) {
  yrt_tracker_params p;
  yrt_tracker_params_init(&p);
  p.max_age = max_age;
  yrt_tracker *t = make(&p, 8);
  yrt_track tr[8];
  *car_ids = 0;
  int car = 0;
  for (int f = 0; f < 20 + gap + 10; f++) {
    yrt_detection d[2];
    int n = 0;
    d[n++] = box(400, 300, 120, 60, 0.8f, 2);
    const int hidden = f >= 20 && f < 20 + gap;
    if (!hidden) d[n++] = box(50 + 4.0f * (float)f, 200, 30, 70, 0.9f, 0);
    const int m = update(t, d, n, tr, 8);
    const int cid = id_of(tr, m, 0);
    if (cid != car) (*car_ids)++, car = cid;
    if (f == 19) *id_before = id_of(tr, m, 1);
    if (f == 20 + gap + 1) *id_after = id_of(tr, m, 1); /* re-found, or confirmed anew on its 2nd frame */
  }
  yrt_tracker_free(t);
}

static void test_occlusion(void **state) {
  (void)state;
  int before, after, car_ids;
  run_gap(30, 12, &before, &after, &car_ids); /* 12 frames hidden < max_age 30: same ID */
  assert_true(before > 0);
  assert_int_equal(after, before);
  assert_int_equal(car_ids, 1);
  run_gap(5, 12, &before, &after, &car_ids); /* longer than max_age: a new ID */
  assert_true(before > 0 && after > 0);
  assert_true(after != before);
  assert_int_equal(car_ids, 1);
}

/* Low scores (0.1 < s <= 0.5) continue a live track and are reported; they never start one, and
 * neither does a high detection under new_track_thresh. */
static void test_low_scores(void **state) {
  (void)state;
  yrt_tracker *t = make(NULL, 8);
  yrt_track tr[8];
  int id = 0;
  for (int f = 0; f < 30; f++) {
    const float s = f >= 10 && f < 20 ? 0.3f : 0.9f;
    const yrt_detection d[3] = {box(100 + 2.0f * (float)f, 100, 50, 50, s, 1), box(400, 100, 50, 50, 0.3f, 1),
                                box(400, 300, 50, 50, 0.55f, 1)};
    const int n = update(t, d, 3, tr, 8);
    assert_int_equal(n, 1); /* only the first object */
    if (f == 0) id = tr[0].id;
    assert_int_equal(tr[0].id, id);
    assert_int_equal(tr[0].det_index, 0);
    assert_float_equal(tr[0].score, s, 0);
  }
  yrt_tracker_free(t);
}

/* After the first frame a track is confirmed by its second frame: a one-frame flash never gets an
 * ID, IDs stay consecutive, and a new object is reported from its second frame on. */
static void test_confirmation(void **state) {
  (void)state;
  yrt_tracker *t = make(NULL, 8);
  yrt_track tr[8];
  yrt_detection d[3] = {box(100, 100, 40, 40, 0.9f, 0)};
  assert_int_equal(update(t, d, 1, tr, 8), 1);
  assert_int_equal(tr[0].id, 1);
  d[1] = box(300, 300, 40, 40, 0.95f, 0); /* a flash */
  assert_int_equal(update(t, d, 2, tr, 8), 1);
  assert_int_equal(update(t, d, 1, tr, 8), 1);
  d[1] = box(500, 100, 40, 40, 0.9f, 3); /* a new object: reported from its second frame */
  assert_int_equal(update(t, d, 2, tr, 8), 1);
  assert_int_equal(update(t, d, 2, tr, 8), 2);
  assert_int_equal(tr[0].id, 1);
  assert_int_equal(tr[1].id, 2); /* the flash used no id */
  assert_int_equal(tr[1].class_id, 3);
  assert_int_equal(tr[1].det_index, 1);
  /* out holds the lowest ids when cap is smaller */
  assert_int_equal(update(t, d, 2, tr, 1), 1);
  assert_int_equal(tr[0].id, 1);
  assert_int_equal(update(t, d, 2, NULL, 0), 0);
  /* reset: a new video, ids continue */
  yrt_tracker_reset(t);
  assert_int_equal(update(t, d, 2, tr, 8), 2);
  assert_int_equal(tr[0].id, 3);
  assert_int_equal(tr[1].id, 4);
  yrt_tracker_free(t);
}

/* Class-aware matching: a box that changes class is a new track; class-agnostic (the default)
 * keeps it. */
static void test_class_aware(void **state) {
  (void)state;
  for (int aware = 0; aware < 2; aware++) {
    yrt_tracker_params p;
    yrt_tracker_params_init(&p);
    p.class_aware = aware;
    yrt_tracker *t = make(&p, 4);
    yrt_track tr[4];
    yrt_detection d = box(100, 100, 40, 40, 0.9f, 0);
    assert_int_equal(update(t, &d, 1, tr, 4), 1);
    d.class_id = 5;
    const int n = update(t, &d, 1, tr, 4);
    if (aware) {
      assert_int_equal(n, 0); /* a new, unconfirmed track */
    } else {
      assert_int_equal(n, 1);
      assert_int_equal(tr[0].id, 1);
      assert_int_equal(tr[0].class_id, 5);
    }
    yrt_tracker_free(t);
  }
}

static void test_args_and_memory(void **state) {
  (void)state;
  yrt_error err = {{0}};
  yrt_tracker *t = NULL;
  assert_int_equal(yrt_tracker_memory_bytes(0), 0);
  assert_int_equal(yrt_tracker_memory_bytes(YRT_TRACKER_MAX_CAPACITY + 1), 0);
  assert_int_equal(yrt_tracker_create(NULL, 0, NULL, 0, &t, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "capacity 0"));
  assert_null(t);
  assert_int_equal(yrt_tracker_create(NULL, 4, NULL, 0, NULL, &err), YRT_ERR_INVALID_ARG);
  yrt_tracker_params p;
  yrt_tracker_params_init(&p);
  p.low_match_iou = NAN;
  assert_int_equal(yrt_tracker_create(&p, 4, NULL, 0, &t, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "low_match_iou"));
  yrt_tracker_params_init(&p);
  p.low_thresh = 0.7f;
  assert_int_equal(yrt_tracker_create(&p, 4, NULL, 0, &t, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "low_thresh"));
  yrt_tracker_params_init(&p);
  p.max_age = -1;
  assert_int_equal(yrt_tracker_create(&p, 4, NULL, 0, &t, &err), YRT_ERR_INVALID_ARG);
  p.max_age = 30;
  p.struct_size = 3;
  assert_int_equal(yrt_tracker_create(&p, 4, NULL, 0, &t, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "struct_size"));
  /* caller memory: exactly the bytes asked, used in place; one byte less or misaligned refused */
  const size_t need = yrt_tracker_memory_bytes(3);
  assert_true(need > 0);
  unsigned char *mem = aligned_alloc(64, (need + 64 + 63) / 64 * 64);
  assert_non_null(mem);
  assert_int_equal(yrt_tracker_create(NULL, 3, mem, need - 1, &t, &err), YRT_ERR_INVALID_ARG);
  assert_non_null(strstr(err.msg, "needed"));
  assert_int_equal(yrt_tracker_create(NULL, 3, mem + 8, need, &t, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_tracker_create(NULL, 3, mem, need, &t, &err), YRT_OK);
  assert_true((void *)t == (void *)mem);
  yrt_detection d[4] = {box(10, 10, 5, 5, 0.9f, 0), box(50, 10, 5, 5, 0.9f, 0), box(90, 10, 5, 5, 0.9f, 0),
                        box(130, 10, 5, 5, 0.9f, 0)};
  yrt_track tr[4];
  int n = -1;
  assert_int_equal(yrt_tracker_update(t, d, 4, tr, 4, &n, &err), YRT_ERR_INVALID_ARG); /* over capacity */
  assert_non_null(strstr(err.msg, "capacity is 3"));
  assert_int_equal(n, 0);
  assert_int_equal(yrt_tracker_update(t, d, 3, tr, 4, &n, &err), YRT_OK);
  assert_int_equal(n, 3);
  assert_int_equal(yrt_tracker_update(t, d, 3, tr, -1, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_tracker_update(t, NULL, 3, tr, 4, &n, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_tracker_update(t, d, 3, tr, 4, NULL, &err), YRT_ERR_INVALID_ARG);
  assert_int_equal(yrt_tracker_update(NULL, d, 3, tr, 4, &n, &err), YRT_ERR_INVALID_ARG);
  /* every slot live: a fourth object is not tracked; empty and non-finite boxes are ignored */
  d[2] = box(90, 10, 0, 5, 0.9f, 0);
  d[1].x1 = NAN;
  assert_int_equal(yrt_tracker_update(t, d, 3, tr, 4, &n, &err), YRT_OK);
  assert_int_equal(n, 1);
  yrt_tracker_free(t); /* the caller's memory: not freed here */
  free(mem);
  yrt_tracker_free(NULL);
  yrt_tracker_reset(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crossing),     cmocka_unit_test(test_occlusion),  cmocka_unit_test(test_low_scores),
      cmocka_unit_test(test_confirmation), cmocka_unit_test(test_class_aware), cmocka_unit_test(test_args_and_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
