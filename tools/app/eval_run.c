/* eval_run.c — see eval_run.h. */
#include "eval_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* --dets: one line per image, per ground-truth box and per detection of the first model, image
 * pixels, so that other evaluators (pycocotools, Ultralytics) can be run on exactly what was
 * scored. %.9g round-trips a float, so yolort-eval --from-dets (coco_dets.h) rebuilds the same
 * evaluation to the bit; the I line keeps images with neither boxes nor detections (they count
 * in a bootstrap over images). */
static void dump_image(FILE *f, const char *stem, int w, int h, const coco_gt_box *gts, int n_gt,
                       const yrt_detection *dets, int n) {
  fprintf(f, "I %s %d %d\n", stem, w, h);
  for (int j = 0; j < n_gt; j++)
    fprintf(f, "G %s %d %.9g %.9g %.9g %.9g\n", stem, gts[j].class_id, gts[j].x0, gts[j].y0, gts[j].x1,
            gts[j].y1);
  for (int j = 0; j < n; j++)
    fprintf(f, "D %s %d %.9g %.9g %.9g %.9g %.9g\n", stem, dets[j].class_id, dets[j].score, dets[j].x0,
            dets[j].y0, dets[j].x1, dets[j].y1);
}

/* Model r's keypoints of its nd detections into kp[nd][nk][3] (grown as needed), then scored by OKS. */
static yrt_status score_keypoints(detector *d, coco_eval *kev, const yrt_detection *dets, int nd, int nk,
                                  const coco_gt_box *gts, const float *gk, int n_gt, float **kp, int *kp_cap,
                                  yrt_error *err) {
  if (nd > *kp_cap) {
    float *k = realloc(*kp, (size_t)nd * 3 * (size_t)nk * sizeof *k);
    if (!k) return yrt_set_error(err, YRT_ERR_NOMEM, "out of memory for %d detections' keypoints", nd);
    *kp = k, *kp_cap = nd;
  }
  for (int i = 0; i < nd; i++) {
    yrt_keypoint one[COCO_MAX_KEYPOINTS];
    int c = 0;
    const yrt_status st = yrt_session_keypoints(d->session, i, one, COCO_MAX_KEYPOINTS, &c, err);
    if (st != YRT_OK) return st;
    for (int k = 0; k < nk; k++) {
      float *o = *kp + ((size_t)i * (size_t)nk + (size_t)k) * 3;
      o[0] = one[k].x, o[1] = one[k].y, o[2] = one[k].score;
    }
  }
  return coco_eval_add_image_oks(kev, dets, *kp, nd, gts, gk, n_gt, nk, err);
}

/* Model r's rotated boxes of its nd detections into rb[nd][COCO_RBOX_FLOATS] (grown as needed),
 * then scored by rotated IoU. */
static yrt_status score_rboxes(detector *d, coco_eval *rev, const yrt_detection *dets, int nd, const coco_gt_box *gts,
                               const float *grb, int n_gt, int poly, float **rb, int *rb_cap, yrt_error *err) {
  if (nd > *rb_cap) {
    float *k = realloc(*rb, (size_t)nd * COCO_RBOX_FLOATS * sizeof *k);
    if (!k) return yrt_set_error(err, YRT_ERR_NOMEM, "out of memory for %d detections' rotated boxes", nd);
    *rb = k, *rb_cap = nd;
  }
  for (int i = 0; i < nd; i++) {
    yrt_rbox r;
    const yrt_status st = yrt_session_rbox(d->session, i, &r, sizeof r, err);
    if (st != YRT_OK) return st;
    float *o = *rb + (size_t)i * COCO_RBOX_FLOATS;
    o[0] = r.cx, o[1] = r.cy, o[2] = r.w, o[3] = r.h, o[4] = r.angle;
    for (int k = 0; k < 4; k++) o[5 + 2 * k] = r.corners[k][0], o[6 + 2 * k] = r.corners[k][1];
  }
  return coco_eval_add_image_rotated(rev, dets, *rb, nd, gts, grb, n_gt, poly, err);
}

yrt_status eval_run_images(detector *d, coco_eval **ev, coco_eval **kev, int n, const file_list *files, int total,
                           const char *labels, const yrt_postprocess_params *pp, int quiet, FILE *dump,
                           long *n_kpt_labels, int rot_poly, yrt_error *err) {
  if (n_kpt_labels) *n_kpt_labels = 0;
  /* obb labels when an obb model's rotated boxes are scored (kev[0]: rotated IoU) */
  const int rot = kev && kev[0] && yrt_model_rotated(d[0].model);
  /* pose labels when a pose model is scored by OKS (its keypoint count: model 0's) */
  const int nk = kev && kev[0] && !rot ? yrt_model_keypoints(d[0].model, NULL) : 0;
  if (nk > COCO_MAX_KEYPOINTS)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "%d keypoints per object: the OKS evaluation takes at most %d", nk,
                         COCO_MAX_KEYPOINTS);
  float *kp = NULL;
  int kp_cap = 0;
  /* A missing label file means an image without objects, so a labels folder that does not
   * exist (or a path cut by a fixed buffer) scored every image as empty: mAP 0.0000, exit 0. */
  struct stat sb;
  if (!labels || stat(labels, &sb) != 0)
    return yrt_set_error(err, YRT_ERR_IO, "labels folder %s: %s", labels ? labels : "(null)",
                         labels ? strerror(errno) : "not given");
  if (!S_ISDIR(sb.st_mode)) return yrt_set_error(err, YRT_ERR_IO, "labels folder %s is not a directory", labels);
  char stem[512];
  const size_t lcap = strlen(labels) + sizeof stem + 8; /* the whole path, never cut */
  char *lpath = malloc(lcap);
  if (!lpath) return yrt_set_error(err, YRT_ERR_NOMEM, "out of memory for a label path under %s", labels);
  yrt_status st = YRT_OK;
  /* A labels folder that holds no label of any image (another split's folder, labels named for
   * other images) would score every image as empty: mAP 0.0000, exit 0. One match is enough (an
   * image without objects has no label file). Checked before any image runs. */
  int matched = 0;
  for (int i = 0; i < total && !matched; i++) {
    file_stem(files->paths[i], stem, sizeof stem);
    snprintf(lpath, lcap, "%s/%s.txt", labels, stem);
    matched = access(lpath, F_OK) == 0;
  }
  if (total > 0 && !matched) {
    file_stem(files->paths[0], stem, sizeof stem);
    st = yrt_set_error(err, YRT_ERR_INVALID_ARG,
                       "labels folder %s has a label file for none of the %d images (e.g. no %s/%s.txt): "
                       "wrong folder? (an image without objects has an empty .txt)", labels, total, labels, stem);
    free(lpath);
    return st;
  }
  const double t0 = progress_clock();
  for (int i = 0; !st && i < total; i++) {
    yrt_image img = {0, 0, NULL};
    st = yrt_image_load_jpeg(files->paths[i], &img, err);
    if (st) break;
    file_stem(files->paths[i], stem, sizeof stem);
    snprintf(lpath, lcap, "%s/%s.txt", labels, stem);
    coco_gt_box *gts = NULL;
    float *gk = NULL;
    int n_gt = 0;
    st = rot  ? coco_load_yolo_obb_labels(lpath, img.w, img.h, d[0].info.num_classes, &gts, &gk, &n_gt, err)
         : nk ? coco_load_yolo_pose_labels(lpath, img.w, img.h, d[0].info.num_classes, nk, &gts, &gk, &n_gt, err)
              : coco_load_yolo_labels(lpath, img.w, img.h, d[0].info.num_classes, &gts, &n_gt, err);
    for (int j = 0; !st && n_kpt_labels && j < n_gt * nk; j++) *n_kpt_labels += gk[3 * j + 2] != 0.0f;
    for (int r = 0; !st && r < n; r++) {
      const yrt_detection *dets;
      int nd = 0;
      st = detector_run(&d[r], &img, pp, &dets, &nd, err);
      if (!st && dump && r == 0) dump_image(dump, stem, img.w, img.h, gts, n_gt, dets, nd);
      if (!st) st = coco_eval_add_image(ev[r], dets, nd, gts, n_gt, err);
      if (!st && nk && kev[r]) st = score_keypoints(&d[r], kev[r], dets, nd, nk, gts, gk, n_gt, &kp, &kp_cap, err);
      if (!st && rot && kev[r]) st = score_rboxes(&d[r], kev[r], dets, nd, gts, gk, n_gt, rot_poly, &kp, &kp_cap, err);
    }
    free(gts);
    free(gk);
    yrt_image_free(&img);
    if (!quiet) progress_bar(i + 1, total, "images", t0);
  }
  free(lpath);
  free(kp);
  for (int r = 0; !st && r < n; r++) st = coco_eval_finalize(ev[r], err);
  for (int r = 0; !st && (nk || rot) && r < n; r++)
    if (kev[r]) st = coco_eval_finalize(kev[r], err);
  return st;
}

const char **eval_class_names(const detector *d) {
  const int nc = d->info.num_classes;
  const char **names = calloc((size_t)(nc > 0 ? nc : 0) + 1, sizeof(char *));
  for (int c = 0; names && c < nc; c++) names[c] = yrt_model_class_name(d->model, c);
  return names;
}
