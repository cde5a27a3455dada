/* postprocess_internal.h — yrt_postprocess for callers that read the params already
 * (yrt_session_detect), and that reading. */
#ifndef YOLORT_POSTPROCESS_INTERNAL_H
#define YOLORT_POSTPROCESS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "yolort.h"

/* yrt_postprocess with params as this library knows them (yrt_postprocess_params_read). */
yrt_status yrt_postprocess_known(const float *output0, int num_classes, int num_anchors, const yrt_letterbox *lb,
                                 const yrt_postprocess_params *params, void *scratch, yrt_detection *dets, int cap,
                                 int *n_dets, yrt_error *err);

/* yrt_postprocess_known, and anchor_of[i] (room for num_anchors; NULL: not written) = the column
 * of output0 kept detection i came from (per-detection extra rows: keypoints). */
yrt_status yrt_postprocess_anchors(const float *output0, int num_classes, int num_anchors, const yrt_letterbox *lb,
                                   const yrt_postprocess_params *params, void *scratch, yrt_detection *dets, int cap,
                                   int *n_dets, int32_t *anchor_of, yrt_error *err);

/* The caller's params as this library knows them (struct_size; struct_growth.h), fn naming the
 * function in the error. */
yrt_status yrt_postprocess_params_read(const yrt_postprocess_params *in, yrt_postprocess_params *out,
                                       const char *fn, yrt_error *err);

#endif
