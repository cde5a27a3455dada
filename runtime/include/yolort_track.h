/* yolort_track.h — object tracking across frames: stable IDs over yrt_session_detect's
 * detections, ByteTrack-style (Zhang et al. 2022): a constant-velocity Kalman filter on each
 * track's box centre, aspect and height; a first association of the confident detections with
 * every track (live or lost), by IoU x score; a second one of the low-score detections with the
 * live tracks left (an occluded, blurred object keeps its track); new tracks confirmed by a
 * second frame; lost tracks kept max_age frames. Matching is greedy by similarity (ByteTrack
 * uses an optimal assignment; the same on separated objects, it differs only between close
 * competitors). All memory is made at create (or is the caller's): yrt_tracker_update never
 * allocates. One tracker per video stream, used by one thread at a time. */
#ifndef YOLORT_TRACK_H
#define YOLORT_TRACK_H

#include <stddef.h>
#include <string.h>

#include "yolort.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct yrt_tracker yrt_tracker;

/* The most tracks (and detections per update) a tracker takes: its memory grows with the square
 * (the candidate pairs of an association). */
#define YRT_TRACKER_MAX_CAPACITY 1024

typedef struct yrt_tracker_params {
  float track_thresh;     /* 0.5: detections scoring over it are "high": first association, new tracks */
  float low_thresh;       /* 0.1: detections over it and up to track_thresh only continue live tracks */
  float new_track_thresh; /* 0.6: an unmatched high detection scoring at least this starts a track */
  float match_iou;        /* 0.2: first association: a pair needs IoU x score over it */
  float low_match_iou;    /* 0.5: second association (low detections): IoU over it */
  float new_match_iou;    /* 0.3: a new track's second frame: IoU x score over it confirms it */
  int max_age;            /* 30: frames a lost track waits for its object before it is dropped */
  int class_aware;        /* 0 (ByteTrack): match whatever the class; 1: same class only */
  /* Growth without breaking callers, as yrt_session_options (yrt_tracker_params_init sets it; 0:
   * the fields above). */
  size_t struct_size;
} yrt_tracker_params;

/* The defaults above, and the caller's sizeof in struct_size. Inline so that the size is the
 * caller's. */
static inline void yrt_tracker_params_init(yrt_tracker_params *p) {
  memset(p, 0, sizeof *p);
  p->track_thresh = 0.5f;
  p->low_thresh = 0.1f;
  p->new_track_thresh = 0.6f;
  p->match_iou = 0.2f;
  p->low_match_iou = 0.5f;
  p->new_match_iou = 0.3f;
  p->max_age = 30;
  p->struct_size = sizeof *p;
}

/* A track seen in the frame just given to yrt_tracker_update. */
typedef struct yrt_track {
  int id;               /* 1, 2, ... in order of confirmation; never reused by this tracker */
  int class_id;         /* of the detection matched this frame */
  float x0, y0, x1, y1; /* the filtered box (Kalman update with this frame's detection), in the
                           detections' coordinates */
  float score;          /* the matched detection's score */
  int det_index;        /* index of that detection in this update's dets */
  int frames;           /* frames since the track was started (1 on its first) */
  int hits;             /* frames it was matched in */
} yrt_track;

/* Bytes of memory a tracker of this capacity needs (for yrt_tracker_create's memory); 0 when
 * capacity is not in 1..YRT_TRACKER_MAX_CAPACITY. */
YRT_API size_t yrt_tracker_memory_bytes(int capacity);

/* A tracker holding at most `capacity` tracks (live, lost and unconfirmed) and taking at most
 * `capacity` detections per update. memory: NULL to allocate here (freed by yrt_tracker_free), or
 * the caller's memory_bytes >= yrt_tracker_memory_bytes(capacity) bytes, 16-byte aligned, used in
 * place until yrt_tracker_free. params may be NULL (the defaults). YRT_ERR_INVALID_ARG names a bad
 * capacity, threshold, max_age or memory; YRT_ERR_NOMEM when memory NULL cannot be allocated. */
YRT_API yrt_status yrt_tracker_create(const yrt_tracker_params *params, int capacity, void *memory,
                                      size_t memory_bytes, yrt_tracker **out, yrt_error *err);
YRT_API void yrt_tracker_free(yrt_tracker *t);

/* Forget every track (a new video); IDs continue from where they were. */
YRT_API void yrt_tracker_reset(yrt_tracker *t);

/* One frame: dets[0..n) (any order; boxes in one coordinate system from frame to frame, e.g.
 * yrt_session_detect's frame pixels) update the tracks; out receives the confirmed tracks matched
 * in this frame, lowest id first, at most cap of them, their count in *n_out. Detections with an
 * empty or non-finite box or a NaN score are ignored. n over the capacity, cap < 0 or a NULL
 * pointer: YRT_ERR_INVALID_ARG, the tracks untouched. When every slot is taken, a new object
 * replaces the longest-lost track, or is not tracked while all are live. */
YRT_API yrt_status yrt_tracker_update(yrt_tracker *t, const yrt_detection *dets, int n, yrt_track *out, int cap,
                                      int *n_out, yrt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* YOLORT_TRACK_H */
