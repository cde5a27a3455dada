/* postprocess.c — YOLO output0 -> detections: confidence filter, NMS, mapping back to the image.
 *
 * Follows Ultralytics non_max_suppression (single label per anchor = best class, keep score >
 * conf, at most 30000 candidates by score, torchvision-style greedy NMS suppressing IoU > thr,
 * first max_det kept by score) and scale_boxes ((x - pad) / ratio, clipped to the image), the
 * convention behind the published COCO numbers. Class-aware NMS runs per class on the
 * un-offset boxes (Ultralytics offsets boxes by class * 7680 instead; same result up to float
 * rounding of the offset coordinates). Ties in score are broken by anchor index, so results
 * are deterministic. Rotated boxes (an obb model's angle row, yrt_postprocess_rotated_known) go
 * through Ultralytics' rotated NMS instead: Fast-NMS (TorchNMS.fast_nms) on probabilistic IoU,
 * a box dropped when any box of its group scoring higher, kept or not, has probiou >= thr. No
 * allocation: everything lives in the caller's scratch. */
#include "yolort.h"
#include "model_internal.h"
#include "postprocess_internal.h"
#include "probiou.h"
#include "caller_struct.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PP_MAX_NMS 30000 /* Ultralytics max_nms: candidates entering NMS */
#define PP_ALIGN 16

typedef struct pp_cand {
  float x0, y0, x1, y1, score, area; /* a rotated box: its enclosing axis-aligned box */
  int class_id, anchor;
  yrt_gauss g; /* a rotated box as a Gaussian (probiou) */
} pp_cand;

void yrt_postprocess_defaults(yrt_postprocess_params *p) {
  if (!p) return;
  p->conf_threshold = 0.25f;
  p->iou_threshold = 0.45f;
  p->max_detections = 300;
  p->class_agnostic = 0;
  p->classes = NULL;
  p->num_classes = 0;
  /* the size of the fields written (the first version's struct), never this library's sizeof: a
   * caller built before later fields has no bytes for them, and they read as zero (default) */
  p->struct_size = offsetof(yrt_postprocess_params, struct_size) + sizeof p->struct_size;
}

/* The defaults with the model's own NMS settings over them (META: an export's nms=True). */
yrt_status yrt_model_postprocess_defaults(const yrt_model *m, yrt_postprocess_params *p) {
  if (!m || !p) return YRT_ERR_INVALID_ARG;
  yrt_postprocess_defaults(p);
  const yrt_meta_rec *mt = m->meta;
  if (!(mt->nms_flags & YRT_NMS_SET)) return YRT_OK;
  if (mt->nms_iou > 0.0f) p->iou_threshold = mt->nms_iou;
  if (mt->nms_conf > 0.0f) p->conf_threshold = mt->nms_conf;
  if (mt->nms_flags & YRT_NMS_MAX_DET_MASK) p->max_detections = (int)(mt->nms_flags & YRT_NMS_MAX_DET_MASK);
  p->class_agnostic = (mt->nms_flags & YRT_NMS_CLASS_AGNOSTIC) != 0;
  return YRT_OK;
}

yrt_status yrt_postprocess_params_read(const yrt_postprocess_params *in, yrt_postprocess_params *out,
                                       const char *fn, yrt_error *err) {
  return yrt_struct_read(in, in->struct_size, offsetof(yrt_postprocess_params, struct_size), sizeof *out, out, fn,
                         err);
}

yrt_status yrt_postprocess_check_class_conf(const yrt_postprocess_params *p, int num_classes, const char *fn,
                                            yrt_error *err) {
  if (!p->class_conf) return YRT_OK;
  if (p->num_class_conf != num_classes)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: num_class_conf %d, the model has %d classes", fn,
                         p->num_class_conf, num_classes);
  for (int c = 0; c < num_classes; c++)
    if (isnan(p->class_conf[c]))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: class_conf[%d] is NaN", fn, c);
  return YRT_OK;
}

float yrt_postprocess_min_conf(const yrt_postprocess_params *p) {
  if (!p->class_conf) return p->conf_threshold;
  float m = INFINITY;
  for (int c = 0; c < p->num_class_conf; c++) m = fminf(m, p->class_conf[c]);
  return m;
}

/* The threshold class c's score must pass (class_conf checked already). */
static inline float pp_conf(const yrt_postprocess_params *p, int c) {
  return p->class_conf ? p->class_conf[c] : p->conf_threshold;
}

static int pp_class_kept(const yrt_postprocess_params *p, int c) {
  if (!p->classes) return 1;
  for (int i = 0; i < p->num_classes; i++)
    if (p->classes[i] == c) return 1;
  return 0;
}

static size_t pp_align(size_t n) { return (n + PP_ALIGN - 1) & ~(size_t)(PP_ALIGN - 1); }

size_t yrt_postprocess_scratch_bytes(int num_anchors, int max_detections) {
  (void)max_detections; /* the kept list reuses the candidate index arrays */
  if (num_anchors < 0) return 0;
  size_t n = (size_t)num_anchors;
  /* + the kept detections' anchors (yrt_postprocess_kept_anchors) */
  return PP_ALIGN + pp_align(n * sizeof(pp_cand)) + 3 * pp_align(n * sizeof(int)) + pp_align(n);
}

const int *yrt_postprocess_kept_anchors(const void *scratch, int num_anchors) {
  const size_t n = (size_t)num_anchors;
  const uint8_t *base = (const uint8_t *)(((uintptr_t)scratch + PP_ALIGN - 1) & ~(uintptr_t)(PP_ALIGN - 1));
  return (const int *)(base + pp_align(n * sizeof(pp_cand)) + 2 * pp_align(n * sizeof(int)) + pp_align(n));
}

/* Order "a before b": higher score first, then lower anchor index (a strict total order). */
static int pp_before_score(const pp_cand *c, int a, int b) {
  if (c[a].score != c[b].score) return c[a].score > c[b].score;
  return c[a].anchor < c[b].anchor;
}
static int pp_before_class_score(const pp_cand *c, int a, int b) {
  if (c[a].class_id != c[b].class_id) return c[a].class_id < c[b].class_id;
  return pp_before_score(c, a, b);
}

/* Bottom-up merge sort of idx[0..n) (tmp: n ints). Returns the array holding the result. */
static int *pp_sort(const pp_cand *c, int *idx, int *tmp, int n,
                    int (*before)(const pp_cand *, int, int)) {
  int *src = idx, *dst = tmp;
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n;
      int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) dst[k++] = before(c, src[j], src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    int *t = src; src = dst; dst = t;
  }
  return src;
}

/* torchvision nms_cpu IoU, in float. */
static inline float pp_iou(const pp_cand *a, const pp_cand *b) {
  float xx1 = a->x0 > b->x0 ? a->x0 : b->x0, yy1 = a->y0 > b->y0 ? a->y0 : b->y0;
  float xx2 = a->x1 < b->x1 ? a->x1 : b->x1, yy2 = a->y1 < b->y1 ? a->y1 : b->y1;
  float w = xx2 - xx1, h = yy2 - yy1;
  if (w < 0.0f) w = 0.0f;
  if (h < 0.0f) h = 0.0f;
  float inter = w * h;
  return inter / (a->area + b->area - inter);
}

/* Greedy NMS over order[0..n) (already sorted by score within each group; a group is one class,
 * or everything when agnostic). Kept indices are appended to keep[]; per group at most max_det. */
static int pp_nms(const pp_cand *c, const int *order, int n, int agnostic, float iou_thr, int max_det,
                  uint8_t *suppressed, int *keep) {
  int n_keep = 0;
  memset(suppressed, 0, (size_t)n);
  int kept_in_group = 0;
  for (int i = 0; i < n; i++) {
    const pp_cand *ci = &c[order[i]];
    if (!agnostic && i > 0 && ci->class_id != c[order[i - 1]].class_id) {
      kept_in_group = 0;
    }
    if (suppressed[i] || kept_in_group >= max_det) continue;
    keep[n_keep++] = order[i];
    kept_in_group++;
    for (int j = i + 1; j < n; j++) {
      const pp_cand *cj = &c[order[j]];
      if (!agnostic && cj->class_id != ci->class_id) break; /* groups are contiguous */
      if (!suppressed[j] && pp_iou(ci, cj) > iou_thr) suppressed[j] = 1;
    }
  }
  return n_keep;
}

/* Ultralytics' rotated NMS over order[0..n) (as pp_nms: sorted by score within each group): j is
 * dropped when any i before it in its group, suppressed or not, has probiou(i, j) >= thr. A group
 * stops at max_det kept (the others could not make the final max_det). */
static int pp_nms_rotated(const pp_cand *c, const int *order, int n, int agnostic, float iou_thr, int max_det,
                          int *keep) {
  int n_keep = 0, group = 0, kept_in_group = 0;
  for (int j = 0; j < n; j++) {
    const pp_cand *cj = &c[order[j]];
    if (!agnostic && j > 0 && cj->class_id != c[order[j - 1]].class_id) group = j, kept_in_group = 0;
    if (kept_in_group >= max_det) continue;
    int drop = 0;
    for (int i = group; i < j && !drop; i++) drop = yrt_probiou(&c[order[i]].g, &cj->g) >= (double)iou_thr;
    if (drop) continue;
    keep[n_keep++] = order[j];
    kept_in_group++;
  }
  return n_keep;
}

/* Input pixels -> source-image pixels (Ultralytics scale_boxes + clip_boxes); NULL lb: as is. */
static void pp_unletterbox(yrt_detection *d, const yrt_letterbox *lb) {
  if (!lb) return;
  float w = (float)lb->src_w, h = (float)lb->src_h;
  const float ry = lb->ratio_y > 0.0f ? lb->ratio_y : lb->ratio; /* 0: one ratio (older callers' records) */
  d->x0 = fminf(fmaxf((d->x0 - lb->pad_left) / lb->ratio, 0.0f), w) + lb->offset_x;
  d->x1 = fminf(fmaxf((d->x1 - lb->pad_left) / lb->ratio, 0.0f), w) + lb->offset_x;
  d->y0 = fminf(fmaxf((d->y0 - lb->pad_top) / ry, 0.0f), h) + lb->offset_y;
  d->y1 = fminf(fmaxf((d->y1 - lb->pad_top) / ry, 0.0f), h) + lb->offset_y;
}

yrt_status yrt_postprocess(const float *output0, int num_classes, int num_anchors, const yrt_letterbox *lb,
                           const yrt_postprocess_params *params, void *scratch, yrt_detection *dets, int cap,
                           int *n_dets, yrt_error *err) {
  yrt_postprocess_params known;
  if (params) { /* the caller's struct as this library knows it (struct_size) */
    if (n_dets) *n_dets = 0;
    const yrt_status st = yrt_postprocess_params_read(params, &known, "yrt_postprocess: params", err);
    if (st != YRT_OK) return st;
    params = &known;
  }
  return yrt_postprocess_known(output0, num_classes, num_anchors, lb, params, scratch, dets, cap, n_dets, err);
}

static yrt_status pp_run(const float *output0, int num_classes, int num_anchors, int rotated, const yrt_letterbox *lb,
                         const yrt_postprocess_params *params, void *scratch, yrt_detection *dets, int cap,
                         int *n_dets, yrt_error *err);

yrt_status yrt_postprocess_known(const float *output0, int num_classes, int num_anchors, const yrt_letterbox *lb,
                                 const yrt_postprocess_params *params, void *scratch, yrt_detection *dets, int cap,
                                 int *n_dets, yrt_error *err) {
  return pp_run(output0, num_classes, num_anchors, 0, lb, params, scratch, dets, cap, n_dets, err);
}

yrt_status yrt_postprocess_rotated_known(const float *output0, int num_classes, int num_anchors,
                                         const yrt_letterbox *lb, const yrt_postprocess_params *params,
                                         void *scratch, yrt_detection *dets, int cap, int *n_dets, yrt_error *err) {
  return pp_run(output0, num_classes, num_anchors, 1, lb, params, scratch, dets, cap, n_dets, err);
}

/* A rotated candidate (cx, cy, w, h, angle in input pixels): its Gaussian and enclosing box. */
static void pp_rotated(pp_cand *k, float cx, float cy, float w, float h, float angle) {
  float c[4][2];
  yrt_rbox_gauss(cx, cy, w, h, angle, &k->g);
  yrt_rbox_corners(cx, cy, w, h, angle, c);
  k->x0 = k->x1 = c[0][0];
  k->y0 = k->y1 = c[0][1];
  for (int i = 1; i < 4; i++) {
    k->x0 = fminf(k->x0, c[i][0]), k->x1 = fmaxf(k->x1, c[i][0]);
    k->y0 = fminf(k->y0, c[i][1]), k->y1 = fmaxf(k->y1, c[i][1]);
  }
}

static yrt_status pp_run(const float *output0, int num_classes, int num_anchors, int rotated, const yrt_letterbox *lb,
                         const yrt_postprocess_params *params, void *scratch, yrt_detection *dets, int cap,
                         int *n_dets, yrt_error *err) {
  if (n_dets) *n_dets = 0;
  if (!output0 || !params || !scratch || !n_dets || (!dets && cap > 0))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_postprocess: NULL argument");
  if (num_classes <= 0 || num_anchors < 0 || cap < 0 || params->max_detections < 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_postprocess: bad sizes (classes %d, anchors %d, cap %d, max_detections %d)",
                         num_classes, num_anchors, cap, params->max_detections);
  if (!(params->iou_threshold >= 0.0f && params->iou_threshold <= 1.0f) || isnan(params->conf_threshold))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_postprocess: iou_threshold %g / conf_threshold %g out of range",
                         (double)params->iou_threshold, (double)params->conf_threshold);
  if (params->num_classes < 0 || (params->num_classes > 0 && !params->classes))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_postprocess: classes %p with num_classes %d",
                         (const void *)params->classes, params->num_classes);
  if (lb && !(lb->ratio > 0.0f))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_postprocess: letterbox ratio %g is not positive",
                         (double)lb->ratio);
  const yrt_status cst = yrt_postprocess_check_class_conf(params, num_classes, "yrt_postprocess", err);
  if (cst != YRT_OK) return cst;

  const size_t N = (size_t)num_anchors;
  uint8_t *base = (uint8_t *)(((uintptr_t)scratch + PP_ALIGN - 1) & ~(uintptr_t)(PP_ALIGN - 1));
  pp_cand *cand = (pp_cand *)base;
  int *idx = (int *)(base + pp_align(N * sizeof(pp_cand)));
  int *tmp = (int *)((uint8_t *)idx + pp_align(N * sizeof(int)));
  uint8_t *suppressed = (uint8_t *)tmp + pp_align(N * sizeof(int));
  int *kept_anchor = (int *)(suppressed + pp_align(N));

  /* 1. Candidates: best class per anchor, score > its class's threshold. */
  int n = 0;
  for (size_t i = 0; i < N; i++) {
    const float *s = output0 + 4 * N + i;
    float best = s[0];
    int best_c = 0;
    for (int c = 1; c < num_classes; c++) {
      float v = s[(size_t)c * N];
      if (v > best) { best = v; best_c = c; }
    }
    if (!(best > pp_conf(params, best_c)) || !pp_class_kept(params, best_c)) continue;
    float cx = output0[i], cy = output0[N + i], hw = output0[2 * N + i] / 2, hh = output0[3 * N + i] / 2;
    pp_cand *k = &cand[n];
    k->x0 = cx - hw; k->y0 = cy - hh; k->x1 = cx + hw; k->y1 = cy + hh;
    if (rotated) pp_rotated(k, cx, cy, 2 * hw, 2 * hh, output0[(size_t)(4 + num_classes) * N + i]);
    k->area = (k->x1 - k->x0) * (k->y1 - k->y0);
    k->score = best;
    k->class_id = best_c;
    k->anchor = (int)i;
    idx[n] = n;
    n++;
  }

  /* 2. Keep the best PP_MAX_NMS, then order for NMS. */
  int *order = pp_sort(cand, idx, tmp, n, pp_before_score);
  if (n > PP_MAX_NMS) n = PP_MAX_NMS;
  int *spare = order == idx ? tmp : idx;
  if (!params->class_agnostic) {
    order = pp_sort(cand, order, spare, n, pp_before_class_score);
    spare = order == idx ? tmp : idx;
  }

  /* 3. NMS; kept indices go to the spare array, then by score again. */
  int n_keep = rotated ? pp_nms_rotated(cand, order, n, params->class_agnostic, params->iou_threshold,
                                        params->max_detections, spare)
                       : pp_nms(cand, order, n, params->class_agnostic, params->iou_threshold, params->max_detections,
                                suppressed, spare);
  int *other = spare == idx ? tmp : idx;
  int *kept = pp_sort(cand, spare, other, n_keep, pp_before_score);
  if (n_keep > params->max_detections) n_keep = params->max_detections;
  if (n_keep > cap) n_keep = cap;

  /* 4. Back to source-image pixels (Ultralytics scale_boxes + clip_boxes). */
  for (int i = 0; i < n_keep; i++) {
    const pp_cand *k = &cand[kept[i]];
    yrt_detection *d = &dets[i];
    d->x0 = k->x0; d->y0 = k->y0; d->x1 = k->x1; d->y1 = k->y1;
    d->score = k->score;
    d->class_id = k->class_id;
    d->name = NULL;
    pp_unletterbox(d, lb);
    kept_anchor[i] = k->anchor;
  }
  *n_dets = n_keep;
  return YRT_OK;
}

yrt_status yrt_postprocess_e2e(const float *dets6, int k, int num_classes, const yrt_letterbox *lb,
                               const yrt_postprocess_params *params, yrt_detection *dets, int cap,
                               int *n_dets, yrt_error *err) {
  return yrt_postprocess_e2e_rows(dets6, k, 6, 0, num_classes, lb, params, dets, cap, n_dets, NULL, err);
}

yrt_status yrt_postprocess_e2e_rows(const float *dets6, int k, int cols, int rotated, int num_classes,
                                    const yrt_letterbox *lb, const yrt_postprocess_params *params, yrt_detection *dets,
                                    int cap, int *n_dets, int32_t *kept_rows, yrt_error *err) {
  if (n_dets) *n_dets = 0;
  if (!dets6 || !params || !n_dets || (!dets && cap > 0) || cols < 6 + rotated)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_postprocess_e2e: NULL argument");
  yrt_postprocess_params known;
  const yrt_status st = yrt_postprocess_params_read(params, &known, "yrt_postprocess_e2e: params", err);
  if (st != YRT_OK) return st;
  params = &known;
  if (k < 0 || num_classes <= 0 || cap < 0 || params->max_detections < 0 || isnan(params->conf_threshold))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_postprocess_e2e: bad sizes (k %d, classes %d, cap %d)", k,
                         num_classes, cap);
  if (lb && !(lb->ratio > 0.0f))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_postprocess_e2e: letterbox ratio %g is not positive",
                         (double)lb->ratio);
  const yrt_status cst = yrt_postprocess_check_class_conf(params, num_classes, "yrt_postprocess_e2e", err);
  if (cst != YRT_OK) return cst;
  int n = 0;
  const int limit = params->max_detections < cap ? params->max_detections : cap;
  for (int i = 0; i < k && n < limit; i++) {
    const float *r = dets6 + (size_t)i * (size_t)cols;
    /* a class outside the model's range or a non-finite row is dropped, never reported */
    if (!(r[5] >= 0.0f && r[5] < (float)num_classes) || !(r[4] > pp_conf(params, (int)r[5]))) continue;
    if (!isfinite(r[0]) || !isfinite(r[1]) || !isfinite(r[2]) || !isfinite(r[3])) continue;
    if (rotated && !isfinite(r[6])) continue;
    if (kept_rows) kept_rows[n] = i;
    yrt_detection *d = &dets[n++];
    if (rotated) { /* cx, cy, w, h and the angle at column 6: the enclosing box, as the rotated NMS gives */
      pp_cand c;
      pp_rotated(&c, r[0], r[1], r[2], r[3], r[6]);
      d->x0 = c.x0; d->y0 = c.y0; d->x1 = c.x1; d->y1 = c.y1;
    } else {
      d->x0 = r[0]; d->y0 = r[1]; d->x1 = r[2]; d->y1 = r[3];
    }
    d->score = r[4];
    d->class_id = (int)r[5];
    d->name = NULL;
    pp_unletterbox(d, lb);
  }
  /* rows come sorted by score from the model; keep that order stable for equal scores */
  *n_dets = n;
  return YRT_OK;
}
