/* coco_map.c — pycocotools-equivalent bbox AP (see coco_map.h for the exact convention).
 * add_image does the per-image matching (pycocotools evaluateImg) and keeps, per class, one
 * record per detection: its score and a bit per IoU threshold telling whether it matched.
 * finalize does pycocotools accumulate over those records. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coco_map.h"
#include "coco_map_internal.h"

/* pycocotools: np.linspace(.5, .95, 10) and np.linspace(0, 1, 101), computed the way numpy
 * does (start + i * step, last = stop) so recall comparisons agree to the bit. */
static double iou_threshold(int t) {
  if (t == COCO_NUM_IOU_THRESHOLDS - 1) return 0.95;
  return 0.5 + t * ((0.95 - 0.5) / (COCO_NUM_IOU_THRESHOLDS - 1));
}
double coco_recall_point(int r) {
  if (r == COCO_NUM_RECALL_POINTS - 1) return 1.0;
  return r * (1.0 / (COCO_NUM_RECALL_POINTS - 1));
}

yrt_status coco_eval_create(int num_classes, int max_dets_per_class, coco_eval **out, yrt_error *err) {
  if (!out || num_classes <= 0 || num_classes > 100000)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_create: bad arguments (num_classes %d)", num_classes);
  *out = NULL;
  coco_eval *ev = (coco_eval *)calloc(1, sizeof *ev);
  if (!ev) return yrt_set_error(err, YRT_ERR_NOMEM, "coco_eval_create: out of memory");
  ev->cls = (coco_class_acc *)calloc((size_t)num_classes, sizeof *ev->cls);
  if (!ev->cls) {
    free(ev);
    return yrt_set_error(err, YRT_ERR_NOMEM, "coco_eval_create: out of memory for %d classes", num_classes);
  }
  ev->num_classes = num_classes;
  ev->max_dets = max_dets_per_class > 0 ? max_dets_per_class : COCO_DEFAULT_MAX_DETS;
  *out = ev;
  return YRT_OK;
}

void coco_eval_free(coco_eval *ev) {
  if (!ev) return;
  for (int c = 0; c < ev->num_classes; c++) {
    free(ev->cls[c].recs);
    free(ev->cls[c].gtc);
    free(ev->cls[c].order);
  }
  free(ev->cls);
  free(ev);
}

/* Stable merge sort of int indices with a comparator "a strictly before b". */
typedef int (*before_fn)(const void *ctx, int a, int b);
static void stable_sort(int *idx, int *tmp, int n, before_fn before, const void *ctx) {
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = before(ctx, idx[j], idx[i]) ? idx[j++] : idx[i++];
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
  }
}

static int det_before(const void *ctx, int a, int b) {
  const yrt_detection *d = (const yrt_detection *)ctx;
  if (d[a].class_id != d[b].class_id) return d[a].class_id < d[b].class_id;
  return d[a].score > d[b].score;
}
static int gt_before(const void *ctx, int a, int b) {
  const coco_gt_box *g = (const coco_gt_box *)ctx;
  return g[a].class_id < g[b].class_id;
}
static int rec_before(const void *ctx, int a, int b) {
  const coco_record *r = (const coco_record *)ctx;
  return r[a].score > r[b].score;
}

/* How alike detection i and ground truth j are (box IoU or OKS), for the matching. */
typedef struct similarity {
  double (*fn)(const struct similarity *s, int i, int j);
  const yrt_detection *dets;
  const coco_gt_box *gts;
  const float *dk, *gk; /* OKS: keypoints (x, y, v) x nk per detection / ground truth */
  const double *sigmas;
  int nk;
} similarity;

/* pycocotools maskUtils bbIou (no crowd), in double. */
static double box_iou(const yrt_detection *d, const coco_gt_box *g) {
  double w = fmin(d->x1, g->x1) - fmax(d->x0, g->x0);
  if (w <= 0) return 0.0;
  double h = fmin(d->y1, g->y1) - fmax(d->y0, g->y0);
  if (h <= 0) return 0.0;
  double i = w * h;
  double da = ((double)d->x1 - d->x0) * ((double)d->y1 - d->y0);
  double ga = ((double)g->x1 - g->x0) * ((double)g->y1 - g->y0);
  return i / (da + ga - i);
}

static double sim_iou(const similarity *s, int i, int j) { return box_iou(&s->dets[i], &s->gts[j]); }

/* Object keypoint similarity as Ultralytics' kpt_iou (from cocoeval): over the ground truth's
 * labelled keypoints (v != 0), mean of exp(-d^2 / (2 (2 sigma)^2 (area + eps))), area = 0.53 of its
 * box (YOLO labels carry no segment area); 0 when none is labelled. */
static double sim_oks(const similarity *s, int i, int j) {
  const coco_gt_box *g = &s->gts[j];
  const double area = ((double)g->x1 - g->x0) * ((double)g->y1 - g->y0) * 0.53, eps = 1e-7;
  const float *d = s->dk + (size_t)i * 3 * (size_t)s->nk, *t = s->gk + (size_t)j * 3 * (size_t)s->nk;
  double sum = 0;
  int n = 0;
  for (int k = 0; k < s->nk; k++) {
    if (t[3 * k + 2] == 0.0f) continue;
    const double dx = (double)d[3 * k] - t[3 * k], dy = (double)d[3 * k + 1] - t[3 * k + 1];
    const double var = 4.0 * s->sigmas[k] * s->sigmas[k];
    sum += exp(-(dx * dx + dy * dy) / (var * (area + eps) * 2.0));
    n++;
  }
  return n ? sum / (n + eps) : 0.0;
}

static yrt_status push_record(coco_class_acc *c, float score, uint16_t matched, int image, yrt_error *err) {
  if (c->n == c->cap) {
    size_t ncap = c->cap ? c->cap * 2 : 256;
    coco_record *nr = (coco_record *)realloc(c->recs, ncap * sizeof *nr);
    if (!nr) return yrt_set_error(err, YRT_ERR_NOMEM, "coco_eval_add_image: out of memory (%zu records)", ncap);
    c->recs = nr;
    c->cap = ncap;
  }
  c->recs[c->n].score = score;
  c->recs[c->n].matched = matched;
  c->recs[c->n].image = image;
  c->n++;
  return YRT_OK;
}

/* pycocotools evaluateImg for one class: dt[0..nd) sorted by score, gt[0..ng), alike by sim. */
static yrt_status match_class(coco_eval *ev, int class_id, const yrt_detection *dets, const int *dt, int nd,
                              const similarity *sim, const int *gt, int ng, uint8_t *gt_taken, yrt_error *err) {
  coco_class_acc *acc = &ev->cls[class_id];
  acc->num_gt += ng;
  if (ng > 0) {
    if (acc->n_gtc == acc->cap_gtc) {
      size_t ncap = acc->cap_gtc ? acc->cap_gtc * 2 : 64;
      coco_gt_count *ng2 = (coco_gt_count *)realloc(acc->gtc, ncap * sizeof *ng2);
      if (!ng2) return yrt_set_error(err, YRT_ERR_NOMEM, "coco_eval_add_image: out of memory");
      acc->gtc = ng2;
      acc->cap_gtc = ncap;
    }
    acc->gtc[acc->n_gtc++] = (coco_gt_count){ev->num_images, ng};
  }
  if (nd > ev->max_dets) nd = ev->max_dets;
  memset(gt_taken, 0, (size_t)ng * COCO_NUM_IOU_THRESHOLDS);
  for (int i = 0; i < nd; i++) {
    const yrt_detection *d = &dets[dt[i]];
    uint16_t matched = 0;
    double alike[256]; /* sim(d, gt[j]), once per ground truth (ng > 256: computed per threshold) */
    for (int j = 0; j < ng && ng <= 256; j++) alike[j] = sim->fn(sim, dt[i], gt[j]);
    for (int t = 0; t < COCO_NUM_IOU_THRESHOLDS; t++) {
      double best = fmin(iou_threshold(t), 1 - 1e-10);
      int m = -1;
      for (int j = 0; j < ng; j++) {
        if (gt_taken[t * ng + j]) continue;
        double iou = ng <= 256 ? alike[j] : sim->fn(sim, dt[i], gt[j]);
        if (iou < best) continue;
        best = iou;  /* ties go to the later box, as in pycocotools */
        m = j;
      }
      if (m >= 0) {
        gt_taken[t * ng + m] = 1;
        matched |= (uint16_t)(1u << t);
      }
    }
    yrt_status st = push_record(acc, d->score, matched, ev->num_images, err);
    if (st != YRT_OK) return st;
  }
  return YRT_OK;
}

static yrt_status add_image(coco_eval *ev, const yrt_detection *dets, int n_dets, const coco_gt_box *gts, int n_gts,
                            const similarity *sim, yrt_error *err) {
  if (!ev || n_dets < 0 || n_gts < 0 || (n_dets && !dets) || (n_gts && !gts))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image: bad arguments");
  if (ev->finalized) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image: evaluator already finalized");
  int nc = ev->num_classes;
  for (int i = 0; i < n_dets; i++) {
    const yrt_detection *d = &dets[i];
    if (d->class_id < 0 || d->class_id >= nc)
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image: image %d detection %d: class %d not in [0,%d)",
                           ev->num_images, i, d->class_id, nc);
    if (!isfinite(d->score) || !isfinite(d->x0) || !isfinite(d->y0) || !isfinite(d->x1) || !isfinite(d->y1))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image: image %d detection %d is not finite",
                           ev->num_images, i);
  }
  for (int i = 0; i < n_gts; i++) {
    const coco_gt_box *g = &gts[i];
    if (g->class_id < 0 || g->class_id >= nc)
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image: image %d ground truth %d: class %d not in [0,%d)",
                           ev->num_images, i, g->class_id, nc);
    if (!isfinite(g->x0) || !isfinite(g->y0) || !isfinite(g->x1) || !isfinite(g->y1))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image: image %d ground truth %d is not finite",
                           ev->num_images, i);
  }
  size_t nmax = (size_t)(n_dets > n_gts ? n_dets : n_gts);
  int *di = (int *)malloc((size_t)n_dets * sizeof(int) + 1), *gi = (int *)malloc((size_t)n_gts * sizeof(int) + 1);
  int *tmp = (int *)malloc(nmax * sizeof(int) + 1);
  uint8_t *taken = (uint8_t *)malloc((size_t)n_gts * COCO_NUM_IOU_THRESHOLDS + 1);
  yrt_status st = YRT_OK;
  if (!di || !gi || !tmp || !taken) {
    st = yrt_set_error(err, YRT_ERR_NOMEM, "coco_eval_add_image: out of memory (%d detections, %d boxes)", n_dets, n_gts);
    goto done;
  }
  for (int i = 0; i < n_dets; i++) di[i] = i;
  for (int i = 0; i < n_gts; i++) gi[i] = i;
  stable_sort(di, tmp, n_dets, det_before, dets);
  stable_sort(gi, tmp, n_gts, gt_before, gts);
  /* Walk both class-sorted lists together, one class at a time. */
  for (int a = 0, b = 0; a < n_dets || b < n_gts;) {
    int ca = a < n_dets ? dets[di[a]].class_id : nc, cb = b < n_gts ? gts[gi[b]].class_id : nc;
    int c = ca < cb ? ca : cb;
    int a1 = a, b1 = b;
    while (a1 < n_dets && dets[di[a1]].class_id == c) a1++;
    while (b1 < n_gts && gts[gi[b1]].class_id == c) b1++;
    st = match_class(ev, c, dets, di + a, a1 - a, sim, gi + b, b1 - b, taken, err);
    if (st != YRT_OK) goto done;
    a = a1;
    b = b1;
  }
  ev->num_images++;
done:
  free(di);
  free(gi);
  free(tmp);
  free(taken);
  return st;
}

yrt_status coco_eval_add_image(coco_eval *ev, const yrt_detection *dets, int n_dets, const coco_gt_box *gts,
                               int n_gts, yrt_error *err) {
  const similarity sim = {sim_iou, dets, gts, NULL, NULL, NULL, 0};
  return add_image(ev, dets, n_dets, gts, n_gts, &sim, err);
}

/* COCO's per-keypoint sigmas of the 17 person keypoints (pycocotools), else 1 / nk each (Ultralytics). */
static const double k_coco_sigmas[17] = {.026, .025, .025, .035, .035, .079, .079, .072, .072,
                                         .062, .062, .107, .107, .087, .087, .089, .089};

yrt_status coco_eval_add_image_oks(coco_eval *ev, const yrt_detection *dets, const float *det_kpts, int n_dets,
                                   const coco_gt_box *gts, const float *gt_kpts, int n_gts, int nk, yrt_error *err) {
  if (nk < 1 || nk > COCO_MAX_KEYPOINTS || (n_dets > 0 && !det_kpts) || (n_gts > 0 && !gt_kpts))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image_oks: bad keypoint arguments (%d keypoints)", nk);
  for (int i = 0; i < 3 * nk * (n_dets > n_gts ? n_dets : n_gts); i++) {
    const float *v = i < 3 * nk * n_dets ? &det_kpts[i] : NULL, *w = i < 3 * nk * n_gts ? &gt_kpts[i] : NULL;
    if ((v && !isfinite(*v)) || (w && !isfinite(*w)))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image_oks: image %d: %s keypoint value %d is not finite",
                           ev ? ev->num_images : -1, v && !isfinite(*v) ? "detection" : "ground truth", i);
  }
  double sig[COCO_MAX_KEYPOINTS];
  for (int k = 0; k < nk; k++) sig[k] = nk == 17 ? k_coco_sigmas[k] : 1.0 / nk;
  const similarity sim = {sim_oks, dets, gts, det_kpts, gt_kpts, sig, nk};
  return add_image(ev, dets, n_dets, gts, n_gts, &sim, err);
}

static double sim_probiou(const similarity *s, int i, int j) {
  return coco_probiou(s->dk + (size_t)i * COCO_RBOX_FLOATS, s->gk + (size_t)j * COCO_RBOX_FLOATS);
}
static double sim_poly(const similarity *s, int i, int j) {
  return coco_poly_iou(s->dk + (size_t)i * COCO_RBOX_FLOATS, s->gk + (size_t)j * COCO_RBOX_FLOATS);
}

yrt_status coco_eval_add_image_rotated(coco_eval *ev, const yrt_detection *dets, const float *det_rb, int n_dets,
                                       const coco_gt_box *gts, const float *gt_rb, int n_gts, int poly, yrt_error *err) {
  if ((n_dets > 0 && !det_rb) || (n_gts > 0 && !gt_rb))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image_rotated: rotated boxes missing");
  for (int i = 0; i < COCO_RBOX_FLOATS * (n_dets > n_gts ? n_dets : n_gts); i++) {
    const float *v = i < COCO_RBOX_FLOATS * n_dets ? &det_rb[i] : NULL, *w = i < COCO_RBOX_FLOATS * n_gts ? &gt_rb[i] : NULL;
    if ((v && !isfinite(*v)) || (w && !isfinite(*w)))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_add_image_rotated: image %d: %s rotated box value %d is not finite",
                           ev ? ev->num_images : -1, v && !isfinite(*v) ? "detection" : "ground truth", i);
  }
  const similarity sim = {poly ? sim_poly : sim_probiou, dets, gts, det_rb, gt_rb, NULL, 0};
  return add_image(ev, dets, n_dets, gts, n_gts, &sim, err);
}

/* pycocotools accumulate for one class and threshold over records sorted by score. */
double coco_class_ap(const coco_record *r, const int *order, size_t nd, int num_gt, int t, double *pr,
                       double *rc, int *tp_out) {
  double tp = 0, fp = 0;
  for (size_t i = 0; i < nd; i++) {
    if (r[order[i]].matched & (1u << t)) tp += 1; else fp += 1;
    rc[i] = tp / num_gt;
    pr[i] = tp / (fp + tp + DBL_EPSILON); /* np.spacing(1) */
  }
  if (tp_out) *tp_out = (int)tp;
  for (size_t i = nd; i-- > 1;)
    if (pr[i] > pr[i - 1]) pr[i - 1] = pr[i];
  double sum = 0;
  size_t k = 0;
  for (int q = 0; q < COCO_NUM_RECALL_POINTS; q++) {
    double thr = coco_recall_point(q);
    while (k < nd && rc[k] < thr) k++; /* np.searchsorted(rc, thr, side="left") */
    if (k < nd) sum += pr[k];
  }
  return sum / COCO_NUM_RECALL_POINTS;
}

yrt_status coco_eval_finalize(coco_eval *ev, yrt_error *err) {
  if (!ev) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_finalize: NULL evaluator");
  if (ev->finalized) return YRT_OK;
  size_t nmax = 1;
  for (int c = 0; c < ev->num_classes; c++)
    if (ev->cls[c].n > nmax) nmax = ev->cls[c].n;
  int *order = (int *)malloc(nmax * sizeof(int)), *tmp = (int *)malloc(nmax * sizeof(int));
  double *pr = (double *)malloc(nmax * sizeof(double)), *rc = (double *)malloc(nmax * sizeof(double));
  yrt_status st = YRT_OK;
  if (!order || !tmp || !pr || !rc) {
    st = yrt_set_error(err, YRT_ERR_NOMEM, "coco_eval_finalize: out of memory (%zu records)", nmax);
    goto done;
  }
  for (int c = 0; c < ev->num_classes; c++) {
    coco_class_acc *a = &ev->cls[c];
    a->order = (int *)malloc((a->n ? a->n : 1) * sizeof(int));
    if (!a->order) {
      st = yrt_set_error(err, YRT_ERR_NOMEM, "coco_eval_finalize: out of memory (%zu records)", a->n);
      goto done;
    }
    for (size_t i = 0; i < a->n; i++) order[i] = (int)i;
    stable_sort(order, tmp, (int)a->n, rec_before, a->recs);
    memcpy(a->order, order, a->n * sizeof(int));
    for (int t = 0; t < COCO_NUM_IOU_THRESHOLDS; t++) {
      int tp = 0;
      a->ap[t] = a->num_gt > 0 ? coco_class_ap(a->recs, order, a->n, a->num_gt, t, pr, rc, &tp) : -1.0;
      if (t == 0) a->tp50 = tp;
    }
  }
  ev->finalized = 1;
done:
  free(order);
  free(tmp);
  free(pr);
  free(rc);
  return st;
}

yrt_status coco_eval_class_stats(const coco_eval *ev, int class_id, coco_class_stats *out) {
  if (!ev || !out || !ev->finalized || class_id < 0 || class_id >= ev->num_classes) return YRT_ERR_INVALID_ARG;
  const coco_class_acc *a = &ev->cls[class_id];
  memset(out, 0, sizeof *out);
  out->num_gt = a->num_gt;
  out->num_det = (int)a->n;
  out->num_tp50 = a->tp50;
  double sum = 0;
  for (int t = 0; t < COCO_NUM_IOU_THRESHOLDS; t++) {
    out->ap[t] = a->ap[t];
    sum += a->ap[t];
  }
  out->ap50 = a->ap[0];
  out->ap75 = a->ap[5];
  out->ap50_95 = a->num_gt > 0 ? sum / COCO_NUM_IOU_THRESHOLDS : -1.0;
  out->recall50 = a->num_gt > 0 ? (double)a->tp50 / a->num_gt : -1.0;
  return YRT_OK;
}

yrt_status coco_eval_summary(const coco_eval *ev, coco_summary *out) {
  if (!ev || !out || !ev->finalized) return YRT_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  out->num_images = ev->num_images;
  out->num_classes = ev->num_classes;
  for (int c = 0; c < ev->num_classes; c++) {
    coco_class_stats s;
    if (coco_eval_class_stats(ev, c, &s) != YRT_OK) continue; /* cannot happen: finalized, c in range */
    out->num_gt += s.num_gt;
    out->num_det += s.num_det;
    if (s.num_gt <= 0) continue;
    out->num_classes_with_gt++;
    out->map50 += s.ap50;
    out->map75 += s.ap75;
    out->map50_95 += s.ap50_95;
  }
  if (out->num_classes_with_gt) {
    out->map50 /= out->num_classes_with_gt;
    out->map75 /= out->num_classes_with_gt;
    out->map50_95 /= out->num_classes_with_gt;
  }
  return YRT_OK;
}
