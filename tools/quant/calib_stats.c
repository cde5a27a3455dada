/* calib_stats.c — histograms and range choosers (see calib_stats.h). */
#include "calib_stats.h"

#include <math.h>
#include <string.h>

void calib_hist_init(calib_hist *h) {
  memset(h, 0, sizeof *h);
  h->min = INFINITY;
  h->max = -INFINITY;
}

/* Double the range by merging bins pairwise towards the centre. */
static void widen(calib_hist *h) {
  const int half = YRT_CALIB_BINS / 2;
  uint64_t nb[YRT_CALIB_BINS];
  memset(nb, 0, sizeof nb);
  for (int i = 0; i < YRT_CALIB_BINS; i++) {
    /* bin i covers [-r + i*w, ...); in the new histogram it falls into bin half/2 + i/2 */
    nb[half / 2 + i / 2] += h->bins[i];
  }
  memcpy(h->bins, nb, sizeof nb);
  h->range *= 2.0;
}

void calib_hist_add(calib_hist *h, const float *x, size_t n) {
  double bmin = INFINITY, bmax = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    const double v = x[i];
    if (v != v) continue; /* NaN: ignore */
    if (v < bmin) bmin = v;
    if (v > bmax) bmax = v;
  }
  if (bmin > bmax) return;
  if (bmin < h->min) h->min = bmin;
  if (bmax > h->max) h->max = bmax;
  const double amax = fmax(fabs(bmin), fabs(bmax));
  if (h->range == 0.0) {
    if (amax == 0.0) {
      h->bins[YRT_CALIB_BINS / 2] += n;
      h->count += n;
      return;
    }
    h->range = amax;
  }
  while (amax > h->range) widen(h);
  const double scale = YRT_CALIB_BINS / (2.0 * h->range);
  for (size_t i = 0; i < n; i++) {
    const double v = x[i];
    if (v != v) continue;
    int b = (int)floor((v + h->range) * scale);
    if (b < 0) b = 0;
    if (b >= YRT_CALIB_BINS) b = YRT_CALIB_BINS - 1;
    h->bins[b]++;
    h->count++;
  }
}

static double bin_lo(const calib_hist *h, int b) {
  return -h->range + (2.0 * h->range) * b / YRT_CALIB_BINS;
}

/* Upper edge of the bin where the samples below reach `frac` of all: the high bound a
 * percentile keeps (never below the true quantile, at bin edge resolution). */
static double quantile_hi(const calib_hist *h, double frac) {
  const double target = frac * (double)h->count;
  double acc = 0;
  for (int b = 0; b < YRT_CALIB_BINS; b++) {
    acc += (double)h->bins[b];
    if (acc >= target) return bin_lo(h, b + 1);
  }
  return h->range;
}

/* Its mirror for the low bound: the lower edge of the bin holding the sample `frac` of the way
 * up (never above the true quantile). The upper edge would clip a whole bin: a SiLU output's
 * negative tail (>= -0.28) often lies in one bin, and losing it moves every negative value to 0 —
 * a bias the next conv sums over its whole window. */
static double quantile_lo(const calib_hist *h, double frac) {
  const double target = frac * (double)h->count;
  double acc = 0;
  for (int b = 0; b < YRT_CALIB_BINS; b++) {
    acc += (double)h->bins[b];
    if (acc > target) return bin_lo(h, b);
  }
  return h->range;
}

double calib_entropy_threshold(const uint64_t *abs_bins, int nbins, double range) {
  /* TensorRT's calibration: for each candidate threshold i, P = histogram clipped at bin i with
   * the outliers folded into its last bin; Q = the clipped histogram WITHOUT the outliers, merged
   * into 128 levels and spread back uniformly over the non-empty bins of each level. Q misses the
   * clipped mass, which is what makes a too-small threshold expensive. Keep the i minimising
   * KL(P || Q) (empty Q bins under non-empty P get a small epsilon). */
  const int levels = 128;
  const int step = 8;
  double best_kl = INFINITY;
  int best_i = nbins;
  double p[YRT_CALIB_BINS], q[YRT_CALIB_BINS];
  if (nbins > YRT_CALIB_BINS) nbins = YRT_CALIB_BINS;
  if (nbins <= levels) return range;
  for (int i = levels; i <= nbins; i += step) {
    double outliers = 0;
    for (int j = i; j < nbins; j++) outliers += (double)abs_bins[j];
    for (int j = 0; j < i; j++) p[j] = (double)abs_bins[j];
    p[i - 1] += outliers;
    for (int l = 0; l < levels; l++) {
      const int s = (int)((long)l * i / levels), e = (int)((long)(l + 1) * i / levels);
      double sum = 0;
      int nz = 0;
      for (int j = s; j < e; j++) {
        sum += (double)abs_bins[j];
        nz += abs_bins[j] > 0;
      }
      for (int j = s; j < e; j++) q[j] = abs_bins[j] > 0 ? sum / nz : 0;
    }
    double ps = 0, qs = 0;
    for (int j = 0; j < i; j++) ps += p[j], qs += q[j];
    if (ps <= 0 || qs <= 0) continue;
    double kl = 0;
    for (int j = 0; j < i; j++) {
      if (p[j] <= 0) continue;
      const double pj = p[j] / ps, qj = q[j] > 0 ? q[j] / qs : 1e-4 / qs;
      kl += pj * log(pj / qj);
    }
    if (kl < best_kl) {
      best_kl = kl;
      best_i = i;
    }
  }
  return range * best_i / nbins;
}

/* Expected squared error of int8 quantization over [lo, hi] under the histogram: clipped
 * values pay their distance to the bound, the others the uniform rounding noise step^2/12. */
static double range_mse(const calib_hist *h, double lo, double hi) {
  const double step = (hi - lo) / 255.0, w = 2.0 * h->range / YRT_CALIB_BINS;
  const double in_err = step * step / 12.0;
  double e = 0;
  for (int b = 0; b < YRT_CALIB_BINS; b++) {
    if (!h->bins[b]) continue;
    const double v = -h->range + (b + 0.5) * w;
    const double d = v < lo ? lo - v : (v > hi ? v - hi : 0.0);
    e += (double)h->bins[b] * (d > 0 ? d * d : in_err);
  }
  return e;
}

/* Shrink each bound in turn (coordinate descent over 120 geometric candidates per side, down to
 * 0.75% of the observed extreme). */
static void mse_range(const calib_hist *h, double *lo, double *hi) {
  double l = *lo, u = *hi;
  for (int pass = 0; pass < 2; pass++) {
    double best = range_mse(h, l, u), bu = u, bl = l;
    for (int k = 1; k <= 120; k++) {
      const double cu = *hi * pow(0.96, k);
      if (cu <= 0) break;
      const double e = range_mse(h, l, cu);
      if (e < best) best = e, bu = cu;
    }
    u = bu;
    for (int k = 1; k <= 120 && *lo < 0; k++) {
      const double cl = *lo * pow(0.96, k);
      const double e = range_mse(h, cl, u);
      if (e < best) best = e, bl = cl;
    }
    l = bl;
  }
  *lo = l;
  *hi = u;
}

void calib_choose_range(const calib_hist *h, yrt_calib_method m, double percentile, double *lo,
                        double *hi) {
  double l = h->count ? h->min : 0.0, u = h->count ? h->max : 0.0;
  if (h->count && h->range > 0) {
    if (m == YRT_CALIB_PERCENTILE) {
      const double tail = (100.0 - percentile) / 100.0;
      const double ql = quantile_lo(h, tail), qu = quantile_hi(h, 1.0 - tail);
      l = fmax(l, ql);
      u = fmin(u, qu);
    } else if (m == YRT_CALIB_MSE) {
      double l0 = fmin(l, 0.0), u0 = fmax(u, 0.0);
      mse_range(h, &l0, &u0);
      l = l0;
      u = u0;
    } else if (m == YRT_CALIB_ENTROPY) {
      /* fold into |x| histogram over [0, range] */
      uint64_t ab[YRT_CALIB_BINS / 2];
      const int half = YRT_CALIB_BINS / 2;
      for (int i = 0; i < half; i++) ab[i] = h->bins[half + i] + h->bins[half - 1 - i];
      const double t = calib_entropy_threshold(ab, half, h->range);
      l = fmax(l, -t);
      u = fmin(u, t);
    }
  }
  if (l > 0) l = 0;
  if (u < 0) u = 0;
  if (u - l < 1e-8) u = l + 1e-8;
  *lo = l;
  *hi = u;
}

void calib_int8_params(double lo, double hi, float *scale, int32_t *zero_point) {
  if (lo > 0) lo = 0;
  if (hi < 0) hi = 0;
  double s = (hi - lo) / 255.0;
  if (s <= 0) s = 1e-8;
  double zp = nearbyint(-128.0 - lo / s);
  if (zp < -128) zp = -128;
  if (zp > 127) zp = 127;
  *scale = (float)s;
  *zero_point = (int32_t)zp;
}

const char *calib_method_name(yrt_calib_method m) {
  switch (m) {
    case YRT_CALIB_MINMAX: return "minmax";
    case YRT_CALIB_PERCENTILE: return "percentile";
    case YRT_CALIB_ENTROPY: return "entropy";
    case YRT_CALIB_MSE: return "mse";
  }
  return "?";
}

int calib_method_parse(const char *s, yrt_calib_method *m) {
  if (!strcmp(s, "minmax")) *m = YRT_CALIB_MINMAX;
  else if (!strcmp(s, "percentile")) *m = YRT_CALIB_PERCENTILE;
  else if (!strcmp(s, "entropy")) *m = YRT_CALIB_ENTROPY;
  else if (!strcmp(s, "mse")) *m = YRT_CALIB_MSE;
  else return -1;
  return 0;
}
