/* quant_report.h — yolort-quantize --report: what quantization did to the model, per layer and,
 * with labels, per class (the failure to look for is a class that vanishes while the mean
 * mAP barely moves). */
#ifndef YOLORT_QUANT_REPORT_H
#define YOLORT_QUANT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "yolort.h"

typedef struct quant_report_options {
  const char *path;                /* the report (text) */
  const char *images;              /* JPEGs for the SQNR (and, with labels, the evaluation) */
  const char *labels;              /* YOLO labels of those images, or NULL: no per-class part */
  int sqnr_images;                 /* images for the per-layer SQNR */
  int eval_images;                 /* images evaluated (0: all) */
  int threads;
  int quiet;
  const char *input_line;          /* what the input was ("input: dynamic-quant, ..."), or NULL */
  const char *const *keep_fp32;    /* node names the int8 model keeps in float (NULL-terminated) */
} quant_report_options;

/* Per-layer SQNR of the QDQ model (sqnr.h: int8 against the same model in float, every quantized
 * activation, its drop, output0) and, when o->labels is set, mAP50 / mAP50-95 of the float model
 * and of the int8 model on the labelled images, and the 10 classes that lost most AP50-95 (GT
 * instances, AP of each). float_onnx: the float model that was quantized (serialised). */
yrt_status quant_report_write(const quant_report_options *o, const uint8_t *float_onnx, size_t float_size,
                              const uint8_t *qdq_onnx, size_t qdq_size, yrt_error *err);

#endif
