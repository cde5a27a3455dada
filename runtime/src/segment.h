/* segment.h — a segment model's instance masks (task "segment", issue 36 item 3): the structure
 * check at load, the per-session state yrt_session_detect records (each kept detection's anchor
 * and box, the letterbox) and yrt_session_mask. */
#ifndef YOLORT_SEGMENT_H
#define YOLORT_SEGMENT_H

#include <stdint.h>

#include "model_internal.h"
#include "yolort.h"

typedef struct yrt_segment yrt_segment;

/* At load, for a model whose task is "segment" and whose output0 has extra rows past 4 + nc:
 * a second output must be the prototypes [1, extra, H / k, W / k] (k the same on both axes), f32
 * or i8. With one output only the boxes are used (masks unavailable). Anything else is refused
 * naming both shapes: mask coefficients are never read against prototypes they do not match. */
yrt_status yrt_segment_check_model(const yrt_model *m, int64_t extra_rows, yrt_error *err);

/* nm of a model whose masks yrt_session_mask can compute, else 0. */
int yrt_segment_channels(const yrt_model *m);

/* Made by yrt_detect_scratch_create when the model has masks (NULL otherwise, and then
 * yrt_session_mask says why); all its memory is allocated here. */
yrt_status yrt_segment_create(const yrt_model *m, int n_anchors, yrt_segment **out, yrt_error *err);
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
