/* range_search.h — yolort-quantize --range-search: each activation range scaled by the factor
 * that most lowers the model's output error, one tensor at a time.
 * One global percentile is not the best clip for every tensor: a tensor whose extremes carry
 * little of the output is better rounded finely (a narrower range), one whose extremes matter
 * better kept (a wider one). The search scales the range calib_choose picked for each
 * independently chosen tensor (a tie root: its tied Split / Concat / data-movement tensors
 * follow; a SiLU output also moves its conv's SiLU-aware input range) by a factor, measuring the
 * detection-aware output error against the float model (output_error.h) on a few calibration
 * images. Coordinate descent in graph order: 0.9 and 1.12 first, then 0.8 or 1.25 in the
 * direction that improved; a factor is kept only if it lowers the error by more than `min_gain`
 * of it, so noise-sized moves (that would not hold on other images) are left alone.
 * The factors live in calib_result.factor: calib_choose applies them, so every later choice
 * (--auto-mixed, emit) keeps them. */
#ifndef YOLORT_RANGE_SEARCH_H
#define YOLORT_RANGE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "calibrate.h"

typedef struct range_search_options {
  const char *images; /* JPEGs the error is measured on */
  int max_images;     /* how many of them */
  double min_gain;    /* relative error decrease a factor must bring, e.g. 0.002 */
  int passes;         /* sweeps over the tensors (1: one) */
  yrt_calib_method method;
  double percentile;
} range_search_options;

typedef struct range_search_result {
  double int8_db;   /* output error before, dB below the signal */
  double search_db; /* after */
  int searched;     /* tensors tried */
  int changed;      /* tensors whose factor is not 1 */
  int evaluations;  /* models measured */
  int images;
} range_search_result;

/* The candidates of r: tie roots whose range calib_choose picks from their own histogram. */
int range_search_is_candidate(const calib_result *r, int i);

/* Search r->factor (allocated here when NULL) for the (BatchNorm-folded, serialised) float model
 * `folded` calibrated as r with options o. */
yrt_status range_search_run(const uint8_t *folded, size_t folded_size, calib_result *r, const calib_options *o,
                            const range_search_options *so, range_search_result *res, yrt_error *err);

#endif
