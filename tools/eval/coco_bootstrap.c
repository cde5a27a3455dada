/* coco_bootstrap.c — how sure a difference of mAP between two models is, from the images alone:
 * a paired bootstrap. A resample draws the evaluated images with replacement; since COCO matching
 * is per image, each image's matched records are reused as they are, counted once per copy, and
 * only the accumulation (precision / recall per class) is redone. Both models see the same
 * resample, so what they share (hard images, rare classes) cancels in the difference. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coco_map.h"
#include "coco_map_internal.h"

yrt_status coco_eval_weighted_map(const coco_eval *ev, const int *w, double *map50, double *map50_95,
                                  yrt_error *err) {
  if (!ev || !w || !map50 || !map50_95 || !ev->finalized)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_eval_weighted_map: bad arguments (finalized first)");
  size_t cap = 0;
  int *ord = NULL;
  double *pr = NULL, *rc = NULL;
  double s50 = 0, s5095 = 0;
  int ncls = 0;
  yrt_status st = YRT_OK;
  for (int c = 0; c < ev->num_classes; c++) {
    const coco_class_acc *a = &ev->cls[c];
    long ngw = 0;
    for (size_t k = 0; k < a->n_gtc; k++) ngw += (long)w[a->gtc[k].image] * a->gtc[k].n;
    if (ngw <= 0) continue;
    size_t nd = 0;
    for (size_t i = 0; i < a->n; i++) nd += (size_t)w[a->recs[i].image];
    if (nd > cap) {
      cap = nd;
      free(ord);
      free(pr);
      free(rc);
      ord = (int *)malloc(cap * sizeof *ord);
      pr = (double *)malloc(cap * sizeof *pr);
      rc = (double *)malloc(cap * sizeof *rc);
      if (!ord || !pr || !rc) {
        st = yrt_set_error(err, YRT_ERR_NOMEM, "coco_eval_weighted_map: out of memory (%zu records)", cap);
        break;
      }
    }
    size_t k = 0; /* the records by score, each once per copy of its image */
    for (size_t i = 0; i < a->n; i++)
      for (int r = 0; r < w[a->recs[a->order[i]].image]; r++) ord[k++] = a->order[i];
    double sum = 0, ap0 = 0;
    for (int t = 0; t < COCO_NUM_IOU_THRESHOLDS; t++) {
      const double ap = coco_class_ap(a->recs, ord, nd, (int)ngw, t, pr, rc, NULL);
      if (t == 0) ap0 = ap;
      sum += ap;
    }
    s50 += ap0;
    s5095 += sum / COCO_NUM_IOU_THRESHOLDS;
    ncls++;
  }
  free(ord);
  free(pr);
  free(rc);
  if (st != YRT_OK) return st;
  *map50 = ncls ? s50 / ncls : 0.0;
  *map50_95 = ncls ? s5095 / ncls : 0.0;
  return YRT_OK;
}

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* mean, standard error (sample standard deviation) and the 2.5 / 97.5 percentiles (nearest rank)
 * of v[0..n), sorted in place. */
static void describe(double *v, int n, double *mean, double *se, double *lo, double *hi) {
  double m = 0, ss = 0;
  for (int i = 0; i < n; i++) m += v[i];
  m /= n;
  for (int i = 0; i < n; i++) ss += (v[i] - m) * (v[i] - m);
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  *mean = m;
  *se = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
  *lo = v[(int)floor(0.025 * (n - 1) + 0.5)];
  *hi = v[(int)floor(0.975 * (n - 1) + 0.5)];
}

yrt_status coco_bootstrap_diff(const coco_eval *a, const coco_eval *b, int reps, unsigned long long seed,
                               coco_bootstrap *out, yrt_error *err) {
  if (!a || !b || !out || !a->finalized || !b->finalized || reps < 1 || reps > 1000000)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_bootstrap_diff: bad arguments (reps %d)", reps);
  if (a->num_images != b->num_images || a->num_classes != b->num_classes || a->num_images < 1)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "coco_bootstrap_diff: the evaluations differ (%d / %d images, %d / %d classes)",
                         a->num_images, b->num_images, a->num_classes, b->num_classes);
  const int n = a->num_images;
  memset(out, 0, sizeof *out);
  out->reps = reps;
  out->num_images = n;
  out->seed = seed;
  int *w = (int *)malloc((size_t)n * sizeof *w);
  double *d50 = (double *)malloc((size_t)reps * sizeof *d50), *d95 = (double *)malloc((size_t)reps * sizeof *d95);
  yrt_status st = YRT_OK;
  if (!w || !d50 || !d95) st = yrt_set_error(err, YRT_ERR_NOMEM, "coco_bootstrap_diff: out of memory");
  double a50 = 0, a95 = 0, b50 = 0, b95 = 0;
  for (int i = 0; !st && i < n; i++) w[i] = 1;
  if (!st) st = coco_eval_weighted_map(a, w, &a50, &a95, err);
  if (!st) st = coco_eval_weighted_map(b, w, &b50, &b95, err);
  out->d50 = b50 - a50;
  out->d50_95 = b95 - a95;
  uint64_t s = seed;
  for (int r = 0; !st && r < reps; r++) {
    memset(w, 0, (size_t)n * sizeof *w);
    for (int i = 0; i < n; i++) w[splitmix64(&s) % (uint64_t)n]++;
    st = coco_eval_weighted_map(a, w, &a50, &a95, err);
    if (!st) st = coco_eval_weighted_map(b, w, &b50, &b95, err);
    d50[r] = b50 - a50;
    d95[r] = b95 - a95;
  }
  if (!st) {
    describe(d50, reps, &out->mean50, &out->se50, &out->lo50, &out->hi50);
    describe(d95, reps, &out->mean50_95, &out->se50_95, &out->lo50_95, &out->hi50_95);
  }
  free(w);
  free(d50);
  free(d95);
  return st;
}

void coco_print_bootstrap(FILE *f, const coco_bootstrap *bs) {
  fprintf(f, "paired bootstrap over images (%d resamples of %d images, seed %llu), B - A in points:\n", bs->reps,
          bs->num_images, bs->seed);
  fprintf(f, "  mAP50-95 %+7.2f  (resamples: mean %+7.2f, standard error %.2f, 95%% interval [%+.2f, %+.2f])\n",
          100 * bs->d50_95, 100 * bs->mean50_95, 100 * bs->se50_95, 100 * bs->lo50_95, 100 * bs->hi50_95);
  fprintf(f, "  mAP50    %+7.2f  (resamples: mean %+7.2f, standard error %.2f, 95%% interval [%+.2f, %+.2f])\n",
          100 * bs->d50, 100 * bs->mean50, 100 * bs->se50, 100 * bs->lo50, 100 * bs->hi50);
}
