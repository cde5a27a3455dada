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
} coco_record;

typedef struct coco_class_acc {
  coco_record *recs;  /* in image order, then score order within the image */
  size_t n, cap;
  int num_gt;
  int tp50;
  double ap[COCO_NUM_IOU_THRESHOLDS];  /* after finalize; -1 without ground truth */
} coco_class_acc;

struct coco_eval {
  int num_classes, max_dets, num_images, finalized;
  coco_class_acc *cls;
};

#endif
