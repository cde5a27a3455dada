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

static double norm_cdf(double x) {
  return 0.5 * erfc(-x / sqrt(2.0));
}

/* norm_cdf^-1(p), p in (0, 1): bisection, to the last bit; a handful of calls a report, so no
 * rational approximation (and its table of constants) is worth it. */
static double norm_quantile(double p) {
  double lo = -40.0, hi = 40.0;
  for (int i = 0; i < 200 && hi - lo > 0; i++) {
    const double m = 0.5 * (lo + hi);
    if (m <= lo || m >= hi) break;
    if (norm_cdf(m) < p) lo = m;
    else hi = m;
  }
  return 0.5 * (lo + hi);
}

/* nearest rank of sorted v[0..n) at level p (clamped to [0, 1]) */
static double rank_at(const double *v, int n, double p) {
  p = p < 0 ? 0 : p > 1 ? 1 : p;
  return v[(int)floor(p * (n - 1) + 0.5)];
}

yrt_status coco_boot_describe(double d, double *v, int reps, const double *jack, int n, coco_boot_stat *out,
                              yrt_error *err) {
  if (!v || reps < 1 || !out)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_boot_describe: bad arguments (reps %d)", reps);
  memset(out, 0, sizeof *out);
  out->d = d;
  double m = 0, ss = 0, below = 0;
  for (int i = 0; i < reps; i++) m += v[i];
  m /= reps;
  for (int i = 0; i < reps; i++) {
    ss += (v[i] - m) * (v[i] - m);
    below += v[i] < d ? 1.0 : v[i] == d ? 0.5 : 0.0;
  }
  qsort(v, (size_t)reps, sizeof *v, cmp_double);
  out->mean = m;
  out->bias = m - d;
  out->se = reps > 1 ? sqrt(ss / (reps - 1)) : 0.0;
  out->below = below / reps;
  out->pct_lo = rank_at(v, reps, 0.025);
  out->pct_hi = rank_at(v, reps, 0.975);
  out->basic_lo = 2 * d - out->pct_hi;
  out->basic_hi = 2 * d - out->pct_lo;
  if (jack && n >= 2) {
    double jm = 0, s2 = 0, s3 = 0;
    for (int i = 0; i < n; i++) jm += jack[i];
    jm /= n;
    for (int i = 0; i < n; i++) {
      const double e = jm - jack[i];
      s2 += e * e;
      s3 += e * e * e;
    }
    out->accel = s2 > 0 ? s3 / (6.0 * pow(s2, 1.5)) : 0.0;
  }
  out->bca_lo = out->bca_hi = NAN;
  if (out->below <= 0 || out->below >= 1) {
    out->z0 = out->below <= 0 ? -INFINITY : INFINITY;
    return YRT_OK;
  }
  out->z0 = norm_quantile(out->below);
  double lim[2], lev[2];
  for (int k = 0; k < 2; k++) {
    const double za = norm_quantile(k ? 0.975 : 0.025), den = 1.0 - out->accel * (out->z0 + za);
    if (!(den > 0)) return YRT_OK;
    lev[k] = norm_cdf(out->z0 + (out->z0 + za) / den);
    lim[k] = rank_at(v, reps, lev[k]);
  }
  out->bca_plo = lev[0];
  out->bca_phi = lev[1];
  out->bca_lo = lim[0];
  out->bca_hi = lim[1];
  out->bca_ok = 1;
  return YRT_OK;
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
  double *j50 = (double *)malloc((size_t)n * sizeof *j50), *j95 = (double *)malloc((size_t)n * sizeof *j95);
  yrt_status st = YRT_OK;
  if (!w || !d50 || !d95 || !j50 || !j95) st = yrt_set_error(err, YRT_ERR_NOMEM, "coco_bootstrap_diff: out of memory");
  double a50 = 0, a95 = 0, b50 = 0, b95 = 0, p50 = 0, p95 = 0;
  for (int i = 0; !st && i < n; i++) w[i] = 1;
  if (!st) st = coco_eval_weighted_map(a, w, &a50, &a95, err);
  if (!st) st = coco_eval_weighted_map(b, w, &b50, &b95, err);
  p50 = b50 - a50;
  p95 = b95 - a95;
  /* the jackknife (BCa's acceleration): image i left out, all others once */
  for (int i = 0; !st && i < n; i++) {
    w[i] = 0;
    st = coco_eval_weighted_map(a, w, &a50, &a95, err);
    if (!st) st = coco_eval_weighted_map(b, w, &b50, &b95, err);
    w[i] = 1;
    j50[i] = b50 - a50;
    j95[i] = b95 - a95;
  }
  uint64_t s = seed;
  for (int r = 0; !st && r < reps; r++) {
    memset(w, 0, (size_t)n * sizeof *w);
    for (int i = 0; i < n; i++) w[splitmix64(&s) % (uint64_t)n]++;
    st = coco_eval_weighted_map(a, w, &a50, &a95, err);
    if (!st) st = coco_eval_weighted_map(b, w, &b50, &b95, err);
    d50[r] = b50 - a50;
    d95[r] = b95 - a95;
  }
  if (!st) st = coco_boot_describe(p50, d50, reps, j50, n, &out->m50, err);
  if (!st) st = coco_boot_describe(p95, d95, reps, j95, n, &out->m50_95, err);
  free(w);
  free(d50);
  free(d95);
  free(j50);
  free(j95);
  return st;
}

static void print_stat(FILE *f, const char *name, const coco_boot_stat *x, int reps) {
  fprintf(f, "  %-8s %+7.2f  resamples: mean %+.2f (bias %+.2f), standard error %.2f, %.1f%% below %+.2f\n", name,
          100 * x->d, 100 * x->mean, 100 * x->bias, 100 * x->se, 100 * x->below, 100 * x->d);
  if (x->bca_ok) {
    fprintf(f, "    95%% BCa        [%+.2f, %+.2f]  bias-corrected (z0 %+.3f) and accelerated (a %+.4f, jackknife "
               "over the images), levels %.2f%% / %.2f%%: the one to quote\n", 100 * x->bca_lo, 100 * x->bca_hi,
            x->z0, x->accel, 100 * x->bca_plo, 100 * x->bca_phi);
    const double tail = fmin(x->bca_plo, 1.0 - x->bca_phi) * reps;
    if (tail < 10)
      fprintf(f, "                   (%.0f resamples beyond an end: it moves with the seed; more resamples settle it)\n",
              tail);
  } else
    fprintf(f, "    95%% BCa        undefined (z0 %+.3f, a %+.4f: the resamples leave no room to correct); quote "
               "basic\n", x->z0, x->accel);
  fprintf(f, "    95%% basic      [%+.2f, %+.2f]  2 d - the percentiles: removes the bias, mirrors any skew\n",
          100 * x->basic_lo, 100 * x->basic_hi);
  fprintf(f, "    95%% percentile [%+.2f, %+.2f]  the resamples' 2.5 / 97.5 percentiles as they are: moved by "
             "the bias\n", 100 * x->pct_lo, 100 * x->pct_hi);
}

void coco_print_bootstrap(FILE *f, const coco_bootstrap *bs) {
  fprintf(f, "paired bootstrap over images (%d resamples of %d images, seed %llu), B - A in points:\n", bs->reps,
          bs->num_images, bs->seed);
  print_stat(f, "mAP50-95", &bs->m50_95, bs->reps);
  print_stat(f, "mAP50", &bs->m50, bs->reps);
}
