/* segment.h — a segment model's instance masks (task "segment", issue 36 item 3): the per-session
 * state yrt_session_detect records (each kept detection's anchor and box, the letterbox) and
 * yrt_session_mask (the structure check at load and the mask channels: model_heads.h). */
#ifndef YOLORT_PREPOST_SEGMENT_H
#define YOLORT_PREPOST_SEGMENT_H

#include <stdint.h>

#include "model_internal.h"
#include "yolort.h"

typedef struct yrt_segment yrt_segment;

/* Made by yrt_detect_stage_create when the model has masks (NULL otherwise, and then
 * yrt_session_mask says why); all its memory is allocated here. */
yrt_status yrt_segment_create(const yrt_model *m, const yrt_allocator *alloc, int n_anchors, yrt_segment **out, yrt_error *err);
void yrt_segment_free(yrt_segment *g);

/* At the start of yrt_session_detect: no masks until it records its detections (a failed call
 * leaves none to misread). */
void yrt_segment_forget(yrt_segment *g);

/* After yrt_session_detect's NMS: the detections it wrote, their output0 columns (anchors) and
 * the letterbox. full = 0 when output0 was decoded threshold-aware (no coefficient rows): masks
 * are then refused for this frame. */
void yrt_segment_record(yrt_segment *g, const yrt_detection *dets, int n, const int *anchors, const yrt_letterbox *lb,
                        int full);

#endif
