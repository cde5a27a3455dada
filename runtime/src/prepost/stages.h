/* stages.h — the pre/post stages of a session, on top of the executor (session.c): the camera
 * frame as the input stage (frame.c), the detect stage with its threshold-aware decode as the
 * output stage (detect.c), and the per-detection records of masks (segment.c) and keypoints
 * (keypoints.c). yrt_session_create (pipeline.c) makes the executor, then each stage's state here;
 * the executor holds it as an opaque pointer (yrt_session.stages) and never reads it. */
#ifndef YOLORT_PREPOST_STAGES_H
#define YOLORT_PREPOST_STAGES_H

#include <stdint.h>

#include "session_internal.h"

typedef struct yrt_stages {
  struct yrt_frame_state *frame; /* frame.c: tap and value tables, its plan; NULL without an image input */
  void *pp_scratch;              /* detect.c: NMS scratch, NULL when output0 is not a detection tensor */
  int32_t *detect_list;          /* detect.c: anchors over the threshold, [anchors] */
  uint32_t detect_node;          /* the decode node writing output0 whose row has detect_over, else YRT_NONE */
  yrt_plan detect_plan;          /* detect.c: the frame's plan without that node, then its threshold-aware
                                    form as the output stage (no list when detect_node is YRT_NONE) */
  size_t over_n;                 /* anchors the last threshold-aware decode listed */
  float over_conf;               /* the threshold it decodes for */
  uint64_t over_t0;              /* when it started (profiling: the node's slot holds decode + NMS) */
  struct yrt_segment *segment;   /* segment.c: masks of the last yrt_session_detect, NULL without masks */
  struct yrt_kpt_state *kpt;     /* keypoints.c: a pose model's detections' columns, else NULL */
} yrt_stages;

/* The stages of a session made by yrt_session_create. */
static inline yrt_stages *yrt_stages_of(const yrt_session *s) { return (yrt_stages *)s->stages; }

/* frame.c: the frame stage, made when input 0 is an NHWC image (else nothing), and freed. */
yrt_status yrt_frame_state_create(yrt_session *s, yrt_error *err);
void yrt_frame_state_free(struct yrt_frame_state *f);
/* frame.c: the plan a run after yrt_session_set_frame follows (the executor's every-node plan when
 * the frame fills the float input; without the QUANTIZE when it fills that node's int8 output). */
const yrt_plan *yrt_frame_plan(const yrt_session *s);
/* detect.c: the detect stage (NMS scratch, the threshold-aware plan, masks and keypoints records);
 * after the frame stage, whose plan it extends. */
yrt_status yrt_detect_stage_create(yrt_session *s, yrt_error *err);
void yrt_detect_stage_free(yrt_stages *g);

#endif
