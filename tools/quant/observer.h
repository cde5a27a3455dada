/* observer.h — run an ONNX model on images and read chosen intermediate tensors.
 * The model is converted in memory with those tensors added as graph outputs: they then exist
 * as float outputs in logical layout after every run (and are not fused away). Used by
 * calibration (observe the float model) and by per-layer SQNR (float vs int8). */
#ifndef YOLORT_OBSERVER_H
#define YOLORT_OBSERVER_H

#include "onnx.pb-c.h"
#include "yolort.h"

typedef struct observer {
  yrt_model *model;
  yrt_session *session;
  yrt_model_info info;
  int n;        /* observed tensors */
  int *index;   /* output index of observed tensor k (an observed tensor that already is a graph
                   output, as in tiny graphs, is not added twice) */
  void *scratch;
  size_t scratch_bytes;
} observer;

/* keep_fp32: node names converted in float (NULL-terminated, may be NULL). */
yrt_status observer_open(observer *o, const Onnx__ModelProto *m, char *const *names, int n,
                         const char *const *keep_fp32, int threads, yrt_error *err);
/* Decode + letterbox + run one JPEG. */
yrt_status observer_run_image(observer *o, const char *jpeg_path, yrt_error *err);
/* Observed tensor k (0..n-1) of the last run; output 0 of the model is index -1. */
yrt_status observer_get(observer *o, int k, yrt_tensor_view *v, yrt_error *err);
void observer_close(observer *o);

#endif
