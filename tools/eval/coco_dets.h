/* coco_dets.h — reading back `yolort-eval --dets` files, so that evaluations can be pooled and
 * compared without running a model again: the images of several files (runs of different models
 * on different image sets) concatenated into one evaluation, and two such lists paired image by
 * image (yolort-eval --from-dets ... --compare-dets ..., tests/accuracy/measure.sh).
 *
 * Format (tools/app/eval_run.c writes it), one record per line, fields separated by one space:
 *   I <image> <width> <height>                     an image starts (its boxes and detections follow)
 *   G <image> <class> <x0> <y0> <x1> <y1>          a ground-truth box, image pixels
 *   D <image> <class> <score> <x0> <y0> <x1> <y1>  a detection
 * Numbers are read from the end of the line, so an image name may hold spaces. Files written
 * before the I line existed are read too: there a G / D line naming another image than the one
 * before starts a new image (an image with neither boxes nor detections is then absent). */
#ifndef YOLORT_COCO_DETS_H
#define YOLORT_COCO_DETS_H

#include "coco_map.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct coco_dets_image {
  char *name;
  int w, h; /* 0 when the file has no I line for it */
  coco_gt_box *gts;
  int n_gt, cap_gt;
  yrt_detection *dets; /* name fields NULL */
  int n_det, cap_det;
  int file;            /* which coco_dets_read call it came from (0, 1, ...) */
} coco_dets_image;

typedef struct coco_dets {
  coco_dets_image *img;
  int n, cap;
  int files;
  int max_class; /* largest class id seen (-1: none) */
} coco_dets;

/* Appends the images of one file to d (start from a zeroed coco_dets). A malformed line (unknown
 * record, field count, number, class id outside [0, 100000), non-finite value, a G / D line for
 * another image than its I line's) -> YRT_ERR_FORMAT naming path:line; d keeps what was read
 * before. */
yrt_status coco_dets_read(const char *path, coco_dets *d, yrt_error *err);
void coco_dets_free(coco_dets *d);

/* a and b hold the same images in the same order with the same ground truth (a paired
 * comparison), else YRT_ERR_INVALID_ARG naming the first image that differs. */
yrt_status coco_dets_check_paired(const coco_dets *a, const coco_dets *b, yrt_error *err);

/* An evaluator (finalized) over d's images in order; num_classes > d->max_class. */
yrt_status coco_dets_evaluate(const coco_dets *d, int num_classes, int max_dets_per_class, coco_eval **out,
                              yrt_error *err);

#ifdef __cplusplus
}
#endif
#endif
