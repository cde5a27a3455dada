/* sqnr.h — per-layer signal-to-quantization-noise ratio of an int8 (QDQ) model against the same
 * model run in float, on real images, and mixed precision chosen from it.
 * SQNR(T) = 10 log10(sum x_f^2 / sum (x_q - x_f)^2) over every element of T on every image.
 * A layer's own damage is its "drop": the worst SQNR among its observed inputs minus its own. */
#ifndef YOLORT_SQNR_H
#define YOLORT_SQNR_H

#include <stdio.h>

#include "onnx.pb-c.h"
#include "yolort.h"

typedef struct sqnr_layer {
  char *tensor;   /* quantized activation */
  char *node;     /* node producing it ("" for a graph input) */
  char *op;       /* its op type */
  double signal, noise, db, drop;
} sqnr_layer;

typedef struct sqnr_report {
  sqnr_layer *l;  /* in graph order */
  int n;
  double out_db;  /* output0 */
  int images;
} sqnr_report;

typedef struct sqnr_options {
  const char *images; /* folder of JPEGs */
  int max_images;     /* 0: all */
  int threads;
  int quiet;
} sqnr_options;

/* Per-layer SQNR of the QDQ model m. */
yrt_status sqnr_measure(const Onnx__ModelProto *m, const sqnr_options *o, sqnr_report *r,
                        yrt_error *err);
/* SQNR of output0 only, with `keep` nodes in float. */
yrt_status sqnr_output(const Onnx__ModelProto *m, const char *const *keep, const sqnr_options *o,
                       double *db, yrt_error *err);
/* Greedy mixed precision: keep the Conv(+SiLU) groups with the largest drop in float, one at a
 * time, until output0 reaches budget_db (or max_groups are kept). *keep is a NULL-terminated
 * malloc'ed list of malloc'ed node names. */
yrt_status sqnr_auto_mixed(const Onnx__ModelProto *m, const sqnr_report *r, double budget_db,
                           int max_groups, const sqnr_options *o, char ***keep, double *final_db,
                           yrt_error *err);
/* The per-layer table (tensor, op, SQNR, drop; layers under 15 dB flagged) and output0's SQNR. */
void sqnr_report_print(const sqnr_report *r, FILE *f);
void sqnr_report_free(sqnr_report *r);
void sqnr_free_names(char **names);

#endif
