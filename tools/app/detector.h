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

/* Run one decoded image. On success *dets points into d (valid until the next call); a pose
 * model's keypoints of detection i: yrt_session_keypoints(d->session, i, ...). A classifier
 * (detector_is_classifier) is refused: it has no boxes. */
yrt_status detector_run(detector *d, const yrt_image *img, const yrt_postprocess_params *pp,
                        const yrt_detection **dets, int *n, yrt_error *err);

/* 1 when the model is an image classifier (task "classify": output 0 is [1, num_classes]). */
int detector_is_classifier(const detector *d);
/* Classify one decoded image: the same input step as detector_run, run, then the top_k classes
 * (yrt_session_classify_output) into out (at most cap), sorted by probability. */
yrt_status detector_classify(detector *d, const yrt_image *img, int top_k, yrt_class_prob *out, int cap, int *n,
                             yrt_error *err);

#endif
