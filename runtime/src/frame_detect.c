/* frame_detect.c — yrt_session_detect: frame -> input, run, decode + NMS, names; the NMS scratch
 * is made once at session creation (yrt_detect_scratch_create) so a detect call never allocates. */
#include <stdlib.h>

#include "session_internal.h"

/* output0's logical shape when it is a detection tensor [1, 4 + classes, anchors], else 0. */
static int detect_shape(const yrt_model *m, int *classes, int *anchors) {
  if (m->plan->n_outputs < 1) return 0;
  const yrt_tensor_rec *t = &m->tensors[m->plan_outputs[0]];
  if (t->rank != 3 || t->dims[0] != 1 || t->dims[1] < 5 || t->layout == YRT_LAYOUT_NHWC) return 0;
  *classes = (int)t->dims[1] - 4;
  *anchors = (int)t->dims[2];
  return 1;
}

yrt_status yrt_detect_scratch_create(yrt_session *s, yrt_error *err) {
  int classes, anchors;
  if (!detect_shape(s->model, &classes, &anchors)) return YRT_OK;
  s->pp_scratch = malloc(yrt_postprocess_scratch_bytes(anchors, 0));
  if (!s->pp_scratch) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the NMS scratch");
  return YRT_OK;
}

yrt_status yrt_session_detect(yrt_session *s, const yrt_frame *frame, const yrt_postprocess_params *params,
                              yrt_detection *dets, int cap, int *n_dets, yrt_error *err) {
  if (n_dets) *n_dets = 0;
  if (!s || !frame || !n_dets || (!dets && cap > 0))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_detect: NULL argument");
  int classes, anchors;
  if (!s->pp_scratch || !detect_shape(s->model, &classes, &anchors))
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt_session_detect: output0 is not [1, 4 + classes, anchors]");
  yrt_postprocess_params def;
  if (!params) {
    yrt_postprocess_defaults(&def);
    params = &def;
  }
  yrt_letterbox lb;
  yrt_status st = yrt_session_set_frame(s, frame, &lb, err);
  if (st == YRT_OK) st = yrt_session_run(s, err);
  yrt_tensor_view out;
  if (st == YRT_OK) st = yrt_session_output(s, 0, &out, err);
  if (st == YRT_OK)
    st = yrt_postprocess(out.data, classes, anchors, &lb, params, s->pp_scratch, dets, cap, n_dets, err);
  if (st != YRT_OK) return st;
  for (int i = 0; i < *n_dets; i++) dets[i].name = yrt_model_class_name(s->model, dets[i].class_id);
  return YRT_OK;
}
