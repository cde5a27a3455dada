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

/* yrt_postprocess_known of an obb model's output0 [4 + num_classes + 1][num_anchors] (the angle
 * row after the scores): Ultralytics' rotated NMS (probiou), detections' boxes the rotated
 * boxes' enclosing axis-aligned boxes; yrt_postprocess_kept_anchors gives their columns. */
yrt_status yrt_postprocess_rotated_known(const float *output0, int num_classes, int num_anchors,
                                         const yrt_letterbox *lb, const yrt_postprocess_params *params,
                                         void *scratch, yrt_detection *dets, int cap, int *n_dets, yrt_error *err);

/* yrt_postprocess_e2e over rows of cols >= 6 floats (x1 y1 x2 y2 score class, then the extra
 * columns DETECT_TOPK carried); rotated: the box is cx cy w h with the angle at column 6 (obb),
 * detections get its enclosing box. kept_rows (NULL, or room for k) gets each detection's row. */
yrt_status yrt_postprocess_e2e_rows(const float *rows, int k, int cols, int rotated, int num_classes,
                                    const yrt_letterbox *lb, const yrt_postprocess_params *params, yrt_detection *dets,
                                    int cap, int *n_dets, int32_t *kept_rows, yrt_error *err);

/* The caller's params as this library knows them (struct_size; caller_struct.h), fn naming the
 * function in the error. */
yrt_status yrt_postprocess_params_read(const yrt_postprocess_params *in, yrt_postprocess_params *out,
                                       const char *fn, yrt_error *err);

/* params->class_conf against the model's num_classes (count, NaN), fn naming the function. */
yrt_status yrt_postprocess_check_class_conf(const yrt_postprocess_params *p, int num_classes, const char *fn,
                                            yrt_error *err);

/* The lowest threshold any class has (conf_threshold, or the least class_conf once checked): an
 * anchor whose best score is not over it is dropped whatever its class. */
float yrt_postprocess_min_conf(const yrt_postprocess_params *p);
/* After a yrt_postprocess(_known) on this scratch: the anchor (output0 column) of each detection
 * it wrote, in the same order (masks and keypoints read that column's extra rows). */
const int *yrt_postprocess_kept_anchors(const void *scratch, int num_anchors);

#endif
