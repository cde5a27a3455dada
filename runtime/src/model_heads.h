/* model_heads.h — what a loaded model's task heads carry beyond boxes: a segment model's
 * prototypes (the load-time check of output0's coefficient rows against output 1, the mask
 * channel count) and a pose model's keypoints (read off the rows' keypoints column). Model
 * level: the loader checks with it, the stages (prepost/) ask it; it reads only the model. */
#ifndef YOLORT_MODEL_HEADS_H
#define YOLORT_MODEL_HEADS_H

#include <stdint.h>

#include "model_internal.h"

/* At load, for a model whose task is "segment" and whose output0 has extra rows past 4 + nc:
 * a second output must be the prototypes [1, extra, H / k, W / k] (k the same on both axes), f32
 * or i8. With one output only the boxes are used (masks unavailable). Anything else is refused
 * naming both shapes: mask coefficients are never read against prototypes they do not match. */
yrt_status yrt_segment_check_model(const yrt_model *m, int64_t extra_rows, yrt_error *err);

/* nm of a model whose masks yrt_session_mask can compute, else 0 (also yrt_model_mask_channels). */
int yrt_segment_channels(const yrt_model *m);

/* At load, an end-to-end model's output0 [1, K, cols]: cols is 6 (box, score, class) plus what
 * its decode wrote past the scores (an obb angle, a pose model's keypoints, a segment model's
 * coefficients, checked against output1), and the task says so; else refused naming both. */
yrt_status yrt_e2e_check_columns(const yrt_model *m, int64_t cols, yrt_error *err);

/* A prototype tensor's dims as logical [nm, ph, pw] (NCHW or NHWC). */
void yrt_segment_proto_dims(const yrt_tensor_rec *p, int *nm, int *ph, int *pw);

#endif
