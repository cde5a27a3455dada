/* coco_map.h — COCO-style detection accuracy (mAP50, mAP50-95) on YOLO-format labels.
 *
 * Reproduces pycocotools' bbox evaluation for area "all" with no crowd annotations:
 * per image and class, detections sorted by score (stable) and cut to max_dets_per_class
 * (COCO maxDets = 100), greedy matching in score order, each detection taking the unmatched
 * ground truth of highest IoU >= t (t = 0.50:0.05:0.95); per class, all images' detections
 * sorted by score (stable: image order, then in-image order), precision made monotone, sampled at
 * the 101 recall points 0:0.01:1. Classes without ground truth are left out of the means.
 * Add images in a fixed order (e.g. sorted file names) to make score ties deterministic.
 *
 * Usage: coco_eval_create -> (coco_load_yolo_labels + coco_eval_add_image)* -> coco_eval_finalize
 *        -> coco_eval_summary / coco_eval_class_stats / coco_eval_write_json -> coco_eval_free.
 */
#ifndef YOLORT_COCO_MAP_H
#define YOLORT_COCO_MAP_H

#include <stdio.h>

#include "yolort.h"

#ifdef __cplusplus
extern "C" {
#endif

#define COCO_NUM_IOU_THRESHOLDS 10  /* 0.50, 0.55, ..., 0.95 */
#define COCO_NUM_RECALL_POINTS 101  /* 0.00, 0.01, ..., 1.00 */
#define COCO_DEFAULT_MAX_DETS 100   /* pycocotools maxDets[-1], per image and class */
#define COCO_MAX_KEYPOINTS 256      /* keypoints per object the pose evaluation takes */

/* A ground-truth box in image pixels. */
typedef struct coco_gt_box {
  float x0, y0, x1, y1;
  int class_id;
} coco_gt_box;

/* Reads a YOLO label file ("class cx cy w h" per line, normalised to [0,1]) and converts the
 * boxes to pixels of an img_w x img_h image. A missing file means no objects (*n = 0, YRT_OK).
 * Blank lines are skipped. A malformed line (field count, non-numeric, class outside
 * [0, num_classes), coordinates outside [0,1] or negative size) -> YRT_ERR_FORMAT naming
 * "path:line". *boxes is malloc'ed (NULL when *n == 0); release with free(). */
yrt_status coco_load_yolo_labels(const char *path, int img_w, int img_h, int num_classes,
                                 coco_gt_box **boxes, int *n, yrt_error *err);

/* The same for Ultralytics pose labels: "class cx cy w h" then nk keypoints "x y v" (or "x y",
 * taken as labelled), normalised; a line with the box only has no labelled keypoints. *kpts is
 * malloc'ed [n][nk][3] (x, y in pixels, v 0 / 1 / 2). A keypoint count other than nk, a labelled
 * keypoint outside [0,1] or a visibility other than 0, 1, 2 -> YRT_ERR_FORMAT naming "path:line". */
yrt_status coco_load_yolo_pose_labels(const char *path, int img_w, int img_h, int num_classes, int nk,
                                      coco_gt_box **boxes, float **kpts, int *n, yrt_error *err);

/* Rotated boxes (obb): COCO_RBOX_FLOATS floats each, cx, cy, w, h, angle (radians, w along it),
 * then the corners x1 y1 .. x4 y4, image pixels. */
#define COCO_RBOX_FLOATS 13

/* Ultralytics OBB labels: "class x1 y1 x2 y2 x3 y3 x4 y4", the corners normalised to [0,1] (as
 * DOTA's corners, divided by the image size). *boxes: the corners' enclosing axis-aligned boxes in
 * pixels; *rboxes [n][COCO_RBOX_FLOATS] malloc'ed (coco_rbox_from_corners). A field count other
 * than 9, a corner outside [0,1] or a degenerate quadrilateral -> YRT_ERR_FORMAT naming "path:line". */
yrt_status coco_load_yolo_obb_labels(const char *path, int img_w, int img_h, int num_classes, coco_gt_box **boxes,
                                     float **rboxes, int *n, yrt_error *err);

/* r's cx, cy, w, h, angle from its corners r[5..12]: the centre their mean, w the first side
 * (corner 1 -> 2), h the second, angle the first side's direction (a rectangle's, exactly; as
 * cv2.minAreaRect for the rectangles labels hold). */
void coco_rbox_from_corners(float *r);
/* Ultralytics' probiou (utils/metrics.py probiou: the Hellinger distance of the boxes as
 * Gaussians, 1 - it) of two rotated boxes, from cx, cy, w, h, angle. */
double coco_probiou(const float *a, const float *b);
/* The IoU of the two quadrilaterals (their corners; convex), as DOTA's polygon IoU. */
double coco_poly_iou(const float *a, const float *b);

typedef struct coco_eval coco_eval;

/* max_dets_per_class <= 0 selects COCO_DEFAULT_MAX_DETS. */
yrt_status coco_eval_create(int num_classes, int max_dets_per_class, coco_eval **out, yrt_error *err);
void coco_eval_free(coco_eval *ev);

/* Matches one image's detections (image pixels, any order) against its ground truth and keeps
 * the per-detection outcome. Class ids must be in [0, num_classes) and coordinates finite,
 * else YRT_ERR_INVALID_ARG naming the offending entry. Not allowed after finalize. */
yrt_status coco_eval_add_image(coco_eval *ev, const yrt_detection *dets, int n_dets,
                               const coco_gt_box *gts, int n_gts, yrt_error *err);

/* Keypoint (pose) AP: the same evaluation with object keypoint similarity in place of box IoU
 * (thresholds 0.50:0.05:0.95 of OKS, as pycocotools' iouType "keypoints"). det_kpts / gt_kpts:
 * nk (x, y, v) per detection / ground truth in image pixels (a ground truth's v 0: not labelled,
 * left out; a detection's v unused). OKS as Ultralytics' kpt_iou: mean over the labelled keypoints
 * of exp(-d^2 / (2 (2 sigma_k)^2 (area + 1e-7))), area = 0.53 x the ground truth's box (YOLO
 * labels carry no segment area), sigma COCO's for 17 keypoints, else 1 / nk; a ground truth with
 * no labelled keypoint matches nothing. Use one evaluator for OKS only (not mixed with boxes). */
yrt_status coco_eval_add_image_oks(coco_eval *ev, const yrt_detection *dets, const float *det_kpts, int n_dets,
                                   const coco_gt_box *gts, const float *gt_kpts, int n_gts, int nk, yrt_error *err);

/* Rotated-box AP (obb): the same evaluation with coco_probiou (poly 0, Ultralytics' OBB
 * validator) or coco_poly_iou (poly 1) of det_rb / gt_rb (COCO_RBOX_FLOATS per detection / ground
 * truth) in place of box IoU. Use one evaluator for rotated boxes only. */
yrt_status coco_eval_add_image_rotated(coco_eval *ev, const yrt_detection *dets, const float *det_rb, int n_dets,
                                       const coco_gt_box *gts, const float *gt_rb, int n_gts, int poly, yrt_error *err);

/* Ends accumulation (later add_image calls fail) and computes AP per class and threshold.
 * Calling it twice is harmless. */
yrt_status coco_eval_finalize(coco_eval *ev, yrt_error *err);

typedef struct coco_class_stats {
  int num_gt;        /* ground-truth boxes of this class */
  int num_det;       /* detections counted (after the per-image cut) */
  int num_tp50;      /* true positives at IoU 0.50 */
  double ap50, ap75, ap50_95;  /* -1 when num_gt == 0 (class left out of the means) */
  double recall50;   /* recall at IoU 0.50 with all detections, -1 when num_gt == 0 */
  double ap[COCO_NUM_IOU_THRESHOLDS]; /* per IoU threshold */
} coco_class_stats;

typedef struct coco_summary {
  int num_images;
  int num_classes;          /* as created */
  int num_classes_with_gt;  /* classes entering the means */
  long num_gt, num_det;
  double map50, map75, map50_95;  /* means over classes with ground truth; 0 when none */
} coco_summary;

/* Both need coco_eval_finalize first (else YRT_ERR_INVALID_ARG). */
yrt_status coco_eval_summary(const coco_eval *ev, coco_summary *out);
yrt_status coco_eval_class_stats(const coco_eval *ev, int class_id, coco_class_stats *out);

/* JSON report: {"num_images":..,"map50":..,"map75":..,"map50_95":..,..., "classes":[{"id":..,
 * "name":..,"num_gt":..,"num_det":..,"ap50":..,"ap75":..,"ap50_95":..,"recall50":..},...]}.
 * class_names may be NULL (or hold NULL entries); "name" is then omitted. */
yrt_status coco_eval_write_json_file(const coco_eval *ev, FILE *f, const char *const *class_names,
                                     yrt_error *err);
yrt_status coco_eval_write_json(const coco_eval *ev, const char *path, const char *const *class_names,
                                yrt_error *err);

/* ---- resampling images (coco_bootstrap.c) */

/* mAP of ev (finalized) over a resample of its images: image i counted w[i] >= 0 times, as if
 * its detections and ground truth appeared w[i] times (w all 1: coco_eval_summary's values to the
 * bit). Classes without ground truth in the resample are left out of the means. */
yrt_status coco_eval_weighted_map(const coco_eval *ev, const int *w, double *map50, double *map50_95,
                                  yrt_error *err);

/* What the resamples say of one statistic (a difference d), three 95% intervals of it:
 * - percentile: the 2.5th / 97.5th percentile of the resamples as they are. Right when some
 *   monotone transformation makes the resamples unbiased and symmetric about d; mAP is not: its
 *   resamples sit above the point value (bias), and the interval moves with them.
 * - basic (pivotal): [2d - q97.5, 2d - q2.5], i.e. assumes d* - d is distributed as d - true:
 *   removes the bias, but mirrors any skew.
 * - BCa (bias-corrected and accelerated, Efron 1987): percentiles taken at levels moved by
 *   z0 = Phi^-1(share of resamples below d, ties half) (median bias) and the acceleration
 *   a = sum(m - J_i)^3 / (6 (sum(m - J_i)^2)^1.5) from the jackknife values J_i (leave image i
 *   out; m their mean) (skew): alpha' = Phi(z0 + (z0 + z_alpha) / (1 - a (z0 + z_alpha))).
 *   Corrects both, to second order. NAN (bca_ok 0) when every resample lies on one side of d
 *   (z0 infinite) or the levels cannot be moved (1 - a (z0 + z_alpha) <= 0). Moved levels reach
 *   further into the tails: an end with few resamples beyond it (alpha' R < 10) varies with the
 *   seed; more resamples settle it.
 * Percentiles are nearest rank, v[floor(p (R - 1) + 0.5)] of the R sorted resamples. */
typedef struct coco_boot_stat {
  double d;            /* the point value */
  double mean, bias;   /* the resamples' mean, and mean - d */
  double se;           /* their standard deviation (standard error of d) */
  double pct_lo, pct_hi, basic_lo, basic_hi, bca_lo, bca_hi;
  double below;        /* share of resamples below d (ties count half) */
  double z0, accel;    /* BCa's corrections */
  double bca_plo, bca_phi; /* the levels BCa takes its ends at (0.025 / 0.975 when z0 = a = 0) */
  int bca_ok;
} coco_boot_stat;

/* The above from d, its resamples v[0..reps) (sorted in place) and jackknife values jack[0..n)
 * (n >= 2; NULL or n < 2: acceleration 0). YRT_ERR_INVALID_ARG when reps < 1. */
yrt_status coco_boot_describe(double d, double *v, int reps, const double *jack, int n, coco_boot_stat *out,
                              yrt_error *err);

typedef struct coco_bootstrap {
  int reps, num_images;
  unsigned long long seed;
  coco_boot_stat m50, m50_95; /* b - a */
} coco_bootstrap;

/* Paired bootstrap over images of mAP(b) - mAP(a): both finalized over the same images; reps
 * resamples (images drawn with replacement by splitmix64 from seed: reproducible), the same
 * resample for both sides; the jackknife for BCa leaves out each image in turn (num_images more
 * evaluations: cheaper than the resamples for reps >= num_images). */
yrt_status coco_bootstrap_diff(const coco_eval *a, const coco_eval *b, int reps, unsigned long long seed,
                               coco_bootstrap *out, yrt_error *err);
/* Its report: each interval with what it is; BCa first, the one to quote. */
void coco_print_bootstrap(FILE *f, const coco_bootstrap *bs);

/* ---- two evaluations of the same images side by side (coco_compare.c) */
typedef struct coco_class_change {
  int class_id, num_gt;
  double ap_a, ap_b;       /* AP50-95 of each side */
  double ap50_a, ap50_b;
} coco_class_change;

/* The (at most k) classes with ground truth whose AP50-95 changes most from a to b: by |b - a|
 * (by_drop == 0) or by a - b, the largest loss first (by_drop == 1: only classes that lost);
 * ties by class id. Both finalized over the same images. Returns how many were written to out. */
int coco_largest_changes(const coco_eval *a, const coco_eval *b, int by_drop, coco_class_change *out, int k);
/* Those classes as a table under `title`: class, GT instances, AP50-95 of a and b, b - a.
 * names (may be NULL, or hold NULL entries) gives class names by id. */
void coco_print_changes(FILE *f, const char *title, const coco_eval *a, const coco_eval *b, int by_drop, int k,
                        const char *const *names);

#ifdef __cplusplus
}
#endif
#endif
