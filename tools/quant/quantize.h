/* quantize.h — yolort-quantize as one library call: the options its command line parsed, and the
 * run (recover the float network, fold, calibrate, optional range search / mixed precision /
 * bias correction, write the QDQ ONNX, the .yrt and the report). The program
 * (tools/cli/yolort-quantize.c) only parses and checks its arguments. */
#ifndef YOLORT_QUANTIZE_H
#define YOLORT_QUANTIZE_H

#include "auto_mixed.h"
#include "calibrate.h"
#include "quant_report.h"
#include "range_search.h"

typedef struct bc_run {
  int passes;     /* 0: no bias correction */
  int observed;   /* measure the int8 output, not the accumulator (bias_correct.h) */
  int global;     /* reference: the float network end to end (bias_correct.h) */
  int wave_levels; /* conv levels corrected per wave with global */
  int max_images; /* 0: all */
  const char *dir;
} bc_run;

typedef struct quantize_job {
  const char *in, *dir, *out;        /* model, calibration images, the QDQ ONNX written */
  const char *yrt_out, *float_out;   /* NULL: not written */
  const char *preprocess;            /* --preprocess SPEC recorded in the model, NULL: none */
  const char *const *excl;           /* --exclude names (n_excl of them) */
  int n_excl;
  calib_options o;                   /* o.exclude is set by the run (exclusions + stem + mixed) */
  int all, weight_all, float_stem, silu_range;
  bc_run bc;                         /* bc.dir / bc.max_images 0: the calibration's */
  int auto_mixed;
  auto_mixed_options ao;
  int range_search;
  range_search_options so;
  quant_report_options ro;
  int int16_stem;                    /* --int16-stem N: the first N convs read int16 (0: off) */
  const char *const *int16;          /* --int16 PATTERN names (n_int16), convs reading int16 */
  int n_int16;
} quantize_job;

/* Runs the job, printing what it writes on stdout and its progress on stderr. */
yrt_status quantize_run(const quantize_job *job, yrt_error *err);

#endif
