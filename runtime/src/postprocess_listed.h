/* postprocess_listed.h — yrt_postprocess over a list of anchors (yrt_session_detect's
 * threshold-aware decode leaves the others undecoded). */
#ifndef YOLORT_POSTPROCESS_LISTED_H
#define YOLORT_POSTPROCESS_LISTED_H

#include <stddef.h>
#include <stdint.h>

#include "yolort.h"

/* yrt_postprocess reading only the anchors in list[0..n_list) (increasing, each < num_anchors);
 * list NULL: every anchor (that is yrt_postprocess). */
yrt_status yrt_postprocess_listed(const float *output0, int num_classes, int num_anchors, const int32_t *list,
                                  size_t n_list, const yrt_letterbox *lb, const yrt_postprocess_params *params,
                                  void *scratch, yrt_detection *dets, int cap, int *n_dets, yrt_error *err);

/* The caller's params as this library knows them (struct_size; struct_growth.h), fn naming the
 * function in the error. */
yrt_status yrt_postprocess_params_read(const yrt_postprocess_params *in, yrt_postprocess_params *out,
                                       const char *fn, yrt_error *err);

#endif
