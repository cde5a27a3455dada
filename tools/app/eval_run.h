/* eval_run.h — run detectors over a labelled image folder into COCO evaluators (yolort-eval,
 * yolort-quantize --report-labels): each image is decoded once and run through every model. */
#ifndef YOLORT_EVAL_RUN_H
#define YOLORT_EVAL_RUN_H

#include <stdio.h>

#include "coco_map.h"
#include "detector.h"
#include "file_list.h"

/* The first `total` images of files through d[0..n-1], scored against LABELS/<stem>.txt into
 * ev[0..n-1] (then finalized). kev (may be NULL, or hold NULL entries): for a pose model d[r]
 * (yrt_model_keypoints), labels read as pose labels (coco_load_yolo_pose_labels) and its
 * keypoints scored by OKS into kev[r] too; *n_kpt_labels (may be NULL) counts the labelled
 * keypoints seen (0: the labels have none, the OKS figures mean nothing). For an obb model d[0]
 * (yrt_model_rotated) with kev[0]: labels read as obb labels (coco_load_yolo_obb_labels; ev scores
 * the enclosing boxes) and the rotated boxes (yrt_session_rbox) scored into kev[r] by probiou
 * (rot_poly 0, as Ultralytics' OBB validator) or polygon IoU (1). dump (may be NULL):
 * yolort-eval --dets lines of model 0
 * ("I image width height" first for each image, then "G image class x0 y0 x1 y1" per ground-truth
 * box and "D image class score x0 y0 x1 y1" per detection, image pixels, floats as %.9g; read back
 * by coco_dets.h). quiet = 0: a progress bar. */
yrt_status eval_run_images(detector *d, coco_eval **ev, coco_eval **kev, int n, const file_list *files, int total,
                           const char *labels, const yrt_postprocess_params *pp, int quiet, FILE *dump,
                           long *n_kpt_labels, int rot_poly, yrt_error *err);

/* The class names of d's model by id (NULL entries for unnamed classes), in a calloc'ed array of
 * num_classes + 1 (free() it; the strings belong to the model). NULL on no memory. */
const char **eval_class_names(const detector *d);

#endif
