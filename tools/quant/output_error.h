/* output_error.h — how far a quantized model's predictions are from the float model's, on a few
 * images, with the float side computed once (yolort-quantize --auto-mixed compares hundreds of
 * candidate models against the same reference).
 * The tensor compared is output0, except on an end-to-end head (DetectTopK: output0 holds the
 * top-k rows, whose order any noise changes): there it is the head's input [1, 4+nc, N], the
 * boxes and class scores of every anchor before the selection, which plays output0's part. */
#ifndef YOLORT_OUTPUT_ERROR_H
#define YOLORT_OUTPUT_ERROR_H

#include <stddef.h>

#include "onnx.pb-c.h"
#include "yolort.h"

typedef struct output_ref {
  char *tensor;   /* the compared tensor's name, or NULL for output0 */
  char **paths;   /* images */
  float **data;   /* [images]: the float model's tensor on each image */
  size_t *count;  /* [images] */
  int images;
  int threads;
} output_ref;

/* Run the float model m on the first max_images JPEGs of images_dir (0: all) and keep the
 * compared tensor of each. */
yrt_status output_ref_open(output_ref *r, const Onnx__ModelProto *m, const char *images_dir,
                           int max_images, int threads, yrt_error *err);
/* Signal (sum of the reference's squares) and noise (sum of squared differences) of the model q
 * (a QDQ model; keep_fp32: node names converted in float, NULL-terminated, may be NULL). */
yrt_status output_ref_error(const output_ref *r, const Onnx__ModelProto *q, const char *const *keep_fp32,
                            double *signal, double *noise, yrt_error *err);
void output_ref_close(output_ref *r);

/* 10 log10(signal / noise), capped to [-100, 100]. */
double output_ref_db(double signal, double noise);

#endif
