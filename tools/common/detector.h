/* detector.h — one model + one session + the buffers of the whole image -> detections path
 * (decode, letterbox, run, decode + NMS), shared by yolort-detect, yolort-eval and the tests.
 * Buffers grow between images when needed, never inside yrt_session_run. */
#ifndef YOLORT_DETECTOR_H
#define YOLORT_DETECTOR_H

#include "yolort_image.h"

typedef struct detector {
  yrt_model *model;
  yrt_session *session;
  yrt_model_info info;
  void *lb_scratch;
  size_t lb_scratch_bytes;
  void *pp_scratch;
  size_t pp_scratch_bytes;
  yrt_detection *dets;
  int dets_cap;
} detector;

/* Open MODEL (.yrt or .onnx, see model_open.h) and create a session with `threads`. */
yrt_status detector_open(detector *d, const char *model_path, int threads, int quiet,
                         yrt_error *err);
/* The same around an already loaded model, which d then owns (freed by detector_close, also on
 * failure); name is used in messages. */
yrt_status detector_attach(detector *d, yrt_model *model, const char *name, int threads, yrt_error *err);
void detector_close(detector *d);

/* Run one decoded image. On success *dets points into d (valid until the next call). */
yrt_status detector_run(detector *d, const yrt_image *img, const yrt_postprocess_params *pp,
                        const yrt_detection **dets, int *n, yrt_error *err);

#endif
