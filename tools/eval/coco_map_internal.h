/* coco_map_internal.h — evaluator state shared by coco_map.c and coco_report.c. */
#ifndef YOLORT_COCO_MAP_INTERNAL_H
#define YOLORT_COCO_MAP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "coco_map.h"

/* One counted detection: score and, bit t, matched at IoU threshold t. */
typedef struct coco_record {
  float score;
  uint16_t matched;
  int image; /* index of the image it came from (the bootstrap's multiplicities) */
} coco_record;

/* A class's ground truth in one image (the bootstrap counts it once per copy of the image). */
typedef struct coco_gt_count {
  int image, n;
} coco_gt_count;

typedef struct coco_class_acc {
  coco_record *recs;  /* in image order, then score order within the image */
  size_t n, cap;
  coco_gt_count *gtc; /* images with ground truth of this class, in image order */
  size_t n_gtc, cap_gtc;
  int *order;         /* after finalize: recs by score, stable (accumulation order) */
  int num_gt;
  int tp50;
  double ap[COCO_NUM_IOU_THRESHOLDS];  /* after finalize; -1 without ground truth */
} coco_class_acc;

/* pycocotools' recall point r of 0:0.01:1, as numpy's linspace computes it (coco_map.c). */
double coco_recall_point(int r);

/* pycocotools accumulate for one class and IoU threshold t over records r taken in order
 * (order[0..nd), by score; an index may repeat: a resampled image's copies); pr / rc: nd doubles of
 * scratch; *tp_out (may be NULL) the true positives at t. */
double coco_class_ap(const coco_record *r, const int *order, size_t nd, int num_gt, int t, double *pr,
                     double *rc, int *tp_out);

struct coco_eval {
  int num_classes, max_dets, num_images, finalized;
  coco_class_acc *cls;
};

#endif
