/* keypoints.h — the per-detection keypoints of a pose model's session (keypoints.c): which output0
 * column each detection of the last decode came from and the letterbox it used, read back by
 * yrt_session_keypoints. Private to the runtime. */
#ifndef YOLORT_PREPOST_KEYPOINTS_H
#define YOLORT_PREPOST_KEYPOINTS_H

#include <stdint.h>

#include "session_internal.h"

struct yrt_kpt_state; /* keypoints.c: the columns and letterbox of the last decode */

/* Made at session creation for a model with keypoints (anchors: output0's columns), else
 * nothing; freed with the session (yrt_keypoints_state_free). */
yrt_status yrt_keypoints_state_create(yrt_session *s, int anchors, yrt_error *err);
void yrt_keypoints_state_free(struct yrt_kpt_state *k);
/* After a decode of whole output0 rows into n_dets detections whose output0 columns are
 * anchors[0..n_dets) (yrt_postprocess_kept_anchors), through lb (NULL: input pixels); n_dets 0
 * (anchors NULL) forgets the last call's. */
void yrt_keypoints_record(yrt_session *s, const yrt_letterbox *lb, int n_dets, const int *anchors);
/* yrt_session_detect's frame: a rotated or mirrored one's keypoints mapped back to the stored
 * frame as its boxes (yrt_frame_map_detections). */
yrt_status yrt_keypoints_record_frame(yrt_session *s, const yrt_frame *frame, yrt_error *err);

#endif
