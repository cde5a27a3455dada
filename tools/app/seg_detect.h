/* seg_detect.h — a segment model's detections with their masks for the tools (yolort-detect):
 * the image as a camera frame through yrt_session_detect (which records what yrt_session_mask
 * needs), then one mask at a time, and a mask as COCO RLE. */
#ifndef YOLORT_SEG_DETECT_H
#define YOLORT_SEG_DETECT_H

#include <stdint.h>
#include <stdio.h>

#include "detector.h"

/* 1 when the model has masks (yrt_model_mask_channels). */
int seg_detect_has_masks(const detector *d);
/* Detections of img (RGB) through yrt_session_detect; *dets points into d (valid until the next
 * call). */
yrt_status seg_detect_run(detector *d, const yrt_image *img, const yrt_postprocess_params *pp,
                          const yrt_detection **dets, int *n, yrt_error *err);
/* COCO RLE of a w x h mask (rows stride bytes apart) as {"size": [h, w], "counts": [...]}: the
 * uncompressed counts, column-major, starting with a run of zeros (pycocotools frPyObjects). */
void seg_put_rle(FILE *f, const uint8_t *mask, int w, int h, size_t stride);

#endif
