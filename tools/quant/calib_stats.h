/* calib_stats.h — per-tensor activation statistics for post-training quantization, and the
 * range choosers: MinMax, Percentile and Entropy (KL divergence, TensorRT style).
 *
 * A calib_hist sees every value a tensor takes over the calibration images. Its histogram
 * covers [-absmax, absmax] with YRT_CALIB_BINS bins; when a later batch exceeds the range, the
 * bins are merged pairwise and the range doubled (counts are kept exactly, resolution halves). */
#ifndef YOLORT_CALIB_STATS_H
#define YOLORT_CALIB_STATS_H

#include <stddef.h>
#include <stdint.h>

#define YRT_CALIB_BINS 2048

typedef enum yrt_calib_method {
  YRT_CALIB_MINMAX = 0,
  YRT_CALIB_PERCENTILE = 1,
  YRT_CALIB_ENTROPY = 2,
  YRT_CALIB_MSE = 3, /* range minimising the expected squared error (clipping + rounding) */
} yrt_calib_method;

typedef struct calib_hist {
  double min, max;  /* exact extremes seen */
  double range;     /* histogram covers [-range, range]; 0 until the first non-zero value */
  uint64_t count;
  uint64_t bins[YRT_CALIB_BINS];
} calib_hist;

void calib_hist_init(calib_hist *h);
void calib_hist_add(calib_hist *h, const float *x, size_t n);

/* Chosen float range [lo, hi] (lo <= 0 <= hi). percentile is e.g. 99.99 (for PERCENTILE): each
 * tail keeps that share, its bound at the outer edge of the histogram bin holding the quantile
 * (both sides round outwards, so negating the data negates the range), within [min, max]. */
void calib_choose_range(const calib_hist *h, yrt_calib_method m, double percentile, double *lo,
                        double *hi);

/* Asymmetric int8 parameters for [lo, hi]: scale = (hi - lo) / 255, zp = round(-128 - lo/scale). */
void calib_int8_params(double lo, double hi, float *scale, int32_t *zero_point);

/* Entropy threshold (on |x|) of a histogram of absolute values with nbins bins over [0, range];
 * exposed for tests. Returns the threshold in value units. */
double calib_entropy_threshold(const uint64_t *abs_bins, int nbins, double range);

const char *calib_method_name(yrt_calib_method m);
int calib_method_parse(const char *s, yrt_calib_method *m); /* 0 on success */

#endif
