/* output_error.h — how far a quantized model's predictions are from the float model's, on a few
 * images, with the float side computed once (yolort-quantize --auto-mixed compares hundreds of
 * candidate models against the same reference).
 * The tensor compared is output0, except on an end-to-end head (DetectTopK: output0 holds the
 * top-k rows, whose order any noise changes): there it is the head's input [1, 4+nc, N], the
 * boxes and class scores of every anchor before the selection, which plays output0's part.
 * A detection tensor [1, 4+nc, N] (or [1, N, 4+nc]) is compared the way detections are judged:
 * in two parts weighted alike, boxes and class scores (pixels up to the input size would
 * otherwise drown scores in 0..1), and each anchor's box error weighted by the anchor's best
 * float score: a background anchor's box (its DFL distribution flat, its coordinates jumping by
 * tens of pixels at any perturbation) is never drawn, and measured unweighted it dominated the
 * sum and made every layer's effect look random (yolo11n: two layers that each removed ~27% of
 * the error raised it together). The error is the mean over the parts of noise / signal (sums
 * of squared differences / of squares, weighted); another tensor is one part. */
#ifndef YOLORT_OUTPUT_ERROR_H
#define YOLORT_OUTPUT_ERROR_H

#include <stddef.h>

#include "onnx.pb-c.h"
#include "yolort.h"

typedef struct output_ref {
  char *tensor;   /* the compared tensor's name, or NULL for output0 */
  char **paths;   /* images */
  float **data;   /* [images]: the float model's tensor on each image */
  float **weight; /* [images][N]: each anchor's best float score (split tensors only) */
  size_t *count;  /* [images] */
  int boxes_first; /* 1: [1, 4+nc, N]; 2: [1, N, 4+nc]; 0: one part */
  int rows, cols;  /* the tensor's last two dims when split */
  int images;
  int threads;
} output_ref;

/* Run the float model m on the first max_images JPEGs of images_dir (0: all) and keep the
 * compared tensor of each. */
yrt_status output_ref_open(output_ref *r, const Onnx__ModelProto *m, const char *images_dir,
                           int max_images, int threads, yrt_error *err);
/* The error (above: mean relative noise of the parts) of the model q (a QDQ model; keep_fp32:
 * node names converted in float, NULL-terminated, may be NULL). */
yrt_status output_ref_error(const output_ref *r, const Onnx__ModelProto *q, const char *const *keep_fp32,
                            double *error, yrt_error *err);
void output_ref_close(output_ref *r);

/* The error in dB: -10 log10(error), capped to [-100, 100] (an SQNR when there is one part). */
double output_ref_db(double error);

#endif
