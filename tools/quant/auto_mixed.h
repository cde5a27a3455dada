/* auto_mixed.h — yolort-quantize --auto-mixed: keep in float the few int8 layers whose float
 * version removes the most output error per millisecond, under a latency budget.
 * Each candidate (an int8 conv with its SiLU) is made float alone: the benefit is the fraction of
 * the all-int8 model's output error it removes (output_error.h, on a few images against the float
 * model); its cost is measured by profiling it against the all-int8 model (node_cost.h) — for the
 * most beneficial `timed` candidates. mixed_select.h picks greedily by benefit / cost within the
 * budget; the chosen set is then measured together and, should its cost exceed the budget (costs
 * are not exactly additive), the last choices are dropped until it fits.
 * The candidate models are the calibration's own: the same histograms, with the exclusions the
 * choice adds (auto_mixed_subset), so the result equals a calibration run with --exclude. */
#ifndef YOLORT_AUTO_MIXED_H
#define YOLORT_AUTO_MIXED_H

#include <stddef.h>
#include <stdint.h>

#include "calibrate.h"
#include "mixed_select.h"

typedef struct auto_mixed_options {
  double budget_ms;   /* used when >= 0 */
  double budget_pct;  /* else: this % of the all-int8 time */
  const char *images; /* JPEGs the error is measured on */
  int max_images;     /* how many of them */
  int runs;           /* profiled runs per latency comparison (each node's fastest) */
  int threads;        /* threads of the profiled runs */
  int timed;          /* candidates whose cost is measured, most beneficial first (0: all) */
  yrt_calib_method method;
  double percentile;
} auto_mixed_options;

typedef struct auto_mixed_result {
  mixed_candidate *c;
  int n;
  mixed_summary s;
  char *tensor;  /* the compared tensor (NULL: output0) */
  char **keep;   /* the chosen groups' node names, NULL-terminated */
} auto_mixed_result;

/* The calibration result r restricted to what a calibration with o->exclude selects in the
 * (BatchNorm-folded float) model m: same histograms, that run's ties. The parameters are chosen
 * by calib_choose afterwards. A tensor r never observed -> YRT_ERR_INVALID_ARG. */
yrt_status auto_mixed_subset(const Onnx__ModelProto *m, const calib_result *r, const calib_options *o,
                             calib_result *out, yrt_error *err);

/* Choose. folded: the float model that was calibrated (serialised); r: its calibration (o's
 * exclusions: the layers already float). */
yrt_status auto_mixed_run(const uint8_t *folded, size_t folded_size, const calib_result *r,
                          const calib_options *o, const auto_mixed_options *ao, auto_mixed_result *res,
                          yrt_error *err);
void auto_mixed_result_free(auto_mixed_result *res);

#endif
