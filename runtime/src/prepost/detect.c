/* detect.c — the detect stage, yrt_session_detect: frame -> input (the frame stage), run, decode +
 * NMS, names, then the masks' and keypoints' records. Its state is made once at session creation
 * (yrt_detect_stage_create) so a detect call never allocates: the NMS scratch, and when a decode
 * node with a threshold-aware form (its row's detect_over) writes output0, a plan of its own: the
 * frame's plan without that node, then that form as the output stage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mem.h"
#include "keypoints.h"
#include "op_def.h"
#include "postprocess_internal.h"
#include "segment.h"
#include "stages.h"

static int is_end2end(const yrt_model *m) { return (m->hdr->flags & YRT_FLAG_END2END) != 0; }
static int is_classifier(const yrt_model *m) { return strcmp(yrt_model_task(m), "classify") == 0; }

/* output0's logical shape when it is a detection tensor [1, 4 + classes (+ masks), anchors], else 0. An
 * end-to-end model's [1, k, 6 (+ extra)] final rows: *anchors = k, *classes from META. */
static int detect_shape(const yrt_model *m, int *classes, int *anchors) {
  if (m->plan->n_outputs < 1) return 0;
  const yrt_tensor_rec *t = &m->tensors[m->plan_outputs[0]];
  if (is_end2end(m)) {
    yrt_model_info info;
    yrt_model_get_info(m, &info);
    if (t->rank != 3 || t->dims[0] != 1 || t->dims[2] < 6 || info.num_classes < 1) return 0; /* columns checked at load */
    *classes = info.num_classes;
    *anchors = (int)t->dims[1];
    return 1;
  }
  /* the rows were checked against META's class count at load; a segment model's mask
   * coefficients after the scores are not classes */
  const int nc = (int)m->meta->num_classes;
  if (t->rank != 3 || t->dims[0] != 1 || nc < 1 || t->dims[1] < 4 + nc || t->layout == YRT_LAYOUT_NHWC) return 0;
  *classes = nc;
  *anchors = (int)t->dims[2];
  return 1;
}

/* The fused decode node that writes output0 straight into the arena (what yrt_session_output
 * returns as is), else YRT_NONE: then yrt_session_detect decodes every anchor. */
static uint32_t output_decode_node(const yrt_session *s) {
  const yrt_model *m = s->model;
  const uint32_t out0 = m->plan_outputs[0];
  if (s->out_buf[0] || m->tensors[out0].dtype != YRT_F32) return YRT_NONE;
  uint32_t found = YRT_NONE;
  for (uint32_t i = 0; i < s->n_exec; i++) {
    const yrt_node_rec *n = s->exec[i].node;
    if (!n) continue;
    const yrt_op_def *d = yrt_op_lookup(m->ops, n->op);
    if (d && d->detect_over && n->out[0] == out0) found = i;
    for (uint32_t k = 0; k < n->n_in; k++)
      if (n->in[k] == out0) return YRT_NONE; /* another node reads all of output0 */
  }
  return found;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The output stage of the threshold-aware plan: the decode node's detect_over lists the anchors
 * whose best class score can pass the threshold and packs them decoded into output0. */
static yrt_status decode_over(yrt_session *s, void *ctx, yrt_error *err) {
  (void)err;
  yrt_stages *g = ctx;
  g->over_t0 = s->profiling ? now_ns() : 0;
  const yrt_exec *e = &s->exec[g->detect_node];
  g->over_n = yrt_op_lookup(s->model->ops, e->node->op)->detect_over(s, e, g->over_conf, g->detect_list);
  return YRT_OK;
}

yrt_status yrt_detect_stage_create(yrt_session *s, yrt_error *err) {
  int classes, anchors;
  yrt_stages *g = yrt_stages_of(s);
  g->detect_node = YRT_NONE;
  if (is_classifier(s->model) || !detect_shape(s->model, &classes, &anchors)) return YRT_OK;
  if (is_end2end(s->model)) { /* no NMS: the kept rows (detect_list) and what they carry (keypoints, rbox) */
    if (!(g->detect_list = yrt_alloc(s->alloc, (size_t)anchors * sizeof *g->detect_list)))
      return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the end-to-end rows");
    const yrt_status sst = yrt_segment_create(s->model, s->alloc, anchors, &g->segment, err);
    return sst != YRT_OK ? sst : yrt_keypoints_state_create(s, anchors, err);
  }
  g->pp_scratch = yrt_alloc(s->alloc, yrt_postprocess_scratch_bytes(anchors, 0));
  g->detect_list = yrt_alloc(s->alloc, (size_t)anchors * sizeof *g->detect_list);
  if (!g->pp_scratch || !g->detect_list)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the NMS scratch");
  g->detect_node = output_decode_node(s);
  if (g->detect_node != YRT_NONE) {
    const yrt_status pst = yrt_plan_leave_out(s, yrt_frame_plan(s), g->detect_node, &g->detect_plan, err);
    if (pst != YRT_OK) return pst;
    g->detect_plan.output = decode_over;
    g->detect_plan.output_ctx = g;
  }
  const yrt_status st = yrt_segment_create(s->model, s->alloc, anchors, &g->segment, err);
  return st != YRT_OK ? st : yrt_keypoints_state_create(s, anchors, err);
}

void yrt_detect_stage_free(yrt_stages *g) {
  yrt_plan_free(&g->detect_plan);
  yrt_free(g->pp_scratch);
  yrt_segment_free(g->segment);
  yrt_free(g->detect_list);
  yrt_keypoints_state_free(g->kpt);
}

yrt_status yrt_session_detect(yrt_session *s, const yrt_frame *frame, const yrt_postprocess_params *params,
                              yrt_detection *dets, int cap, int *n_dets, yrt_error *err) {
  if (n_dets) *n_dets = 0;
  if (!s || !frame || !n_dets || (!dets && cap > 0))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_detect: NULL argument");
  int classes, anchors;
  yrt_stages *g = yrt_stages_of(s);
  const int e2e = is_end2end(s->model);
  if (is_classifier(s->model))
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "yrt_session_detect: the model is a classifier (task 'classify', output0 [1, %u] class "
                         "scores): it has no boxes; use yrt_session_classify",
                         (unsigned)s->model->meta->num_classes);
  if ((!g->pp_scratch && !e2e) || !detect_shape(s->model, &classes, &anchors))
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt_session_detect: output0 is not [1, 4 + classes, anchors]");
  yrt_postprocess_params known;
  yrt_status st0;
  if (!params) {
    memset(&known, 0, sizeof known); /* the defaults write the first version's fields only */
    yrt_model_postprocess_defaults(s->model, &known);
  } else { /* the caller's struct as this library knows it (struct_size) */
    const yrt_status pst = yrt_postprocess_params_read(params, &known, "yrt_session_detect: params", err);
    if (pst != YRT_OK) return pst;
  }
  params = &known;
  yrt_segment_forget(g->segment);
  yrt_keypoints_record(s, NULL, 0, NULL); /* none until this call's detections */
  st0 = yrt_postprocess_check_class_conf(params, classes, "yrt_session_detect", err);
  if (st0 != YRT_OK) return st0;
  yrt_letterbox lb;
  yrt_status st = yrt_session_set_frame(s, frame, &lb, err); /* the input stage: the frame's plan */
  /* Threshold-aware decode: the plan leaves the decode node out and ends with its threshold-aware
   * form: only anchors whose best class score can pass conf get DFL + sigmoid, packed into output0
   * as a [4 + nc][n_list] tensor in anchor order (so NMS ties break alike); same detections as
   * decoding every anchor. */
  const float pre = yrt_postprocess_min_conf(params); /* per-class thresholds: the lowest */
  const int sparse = g->detect_node != YRT_NONE && !isnan(pre);
  s->detect_conf = pre; /* per-detection rows only where a box can pass (pose) */
  g->over_conf = pre;
  g->over_n = 0;
  g->over_t0 = 0;
  if (st == YRT_OK) st = yrt_session_run_plan(s, sparse ? &g->detect_plan : s->plan, err);
  s->detect_conf = NAN;
  yrt_tensor_view out;
  if (st == YRT_OK) st = yrt_session_output(s, 0, &out, err);
  const size_t n_list = sparse ? g->over_n : 0;
  const uint64_t t0 = sparse ? g->over_t0 : 0;
  if (st == YRT_OK && e2e)
    st = yrt_postprocess_e2e_rows(out.data, anchors, (int)out.dims[2], yrt_model_rotated(s->model), classes, &lb, params,
                                  dets, cap, n_dets, g->detect_list, err);
  else if (st == YRT_OK && yrt_stages_of(s)->kpt && yrt_model_rotated(s->model)) /* obb: rotated NMS (never sparse) */
    st = yrt_postprocess_rotated_known(out.data, classes, anchors, &lb, params, g->pp_scratch, dets, cap, n_dets, err);
  else if (st == YRT_OK)
    st = yrt_postprocess_known(out.data, classes, sparse ? (int)n_list : anchors, &lb, params, g->pp_scratch, dets,
                               cap, n_dets, err);
  if (t0) s->times[g->detect_node] = now_ns() - t0; /* the node's slot: its threshold-aware decode + NMS */
  yrt_par_rest(s->pool); /* the frame's burst of parallel work is over */
  if (st == YRT_OK) st = yrt_frame_map_detections(frame, dets, *n_dets, err); /* an oriented frame's boxes */
  if (st != YRT_OK) return st;
  if (g->segment && !e2e) /* masks read output0's coefficient rows: only there when decoded in full */
    yrt_segment_record(g->segment, dets, *n_dets, yrt_postprocess_kept_anchors(g->pp_scratch, sparse ? (int)n_list : anchors), &lb,
                       !sparse);
  if (g->segment && e2e) /* an end-to-end model's: the kept rows carry the coefficients */
    yrt_segment_record(g->segment, dets, *n_dets, g->detect_list, &lb, 1);
  if (!e2e && !sparse) /* keypoint rows too (a pose model's output0 is a Concat: never packed) */
    yrt_keypoints_record(s, &lb, *n_dets, yrt_postprocess_kept_anchors(g->pp_scratch, anchors));
  if (e2e) /* an end-to-end model's: the rows each detection came from */
    yrt_keypoints_record(s, &lb, *n_dets, g->detect_list);
  if ((st = yrt_keypoints_record_frame(s, frame, err)) != YRT_OK) return st; /* an oriented frame's keypoints */
  for (int i = 0; i < *n_dets; i++) dets[i].name = yrt_model_class_name(s->model, dets[i].class_id);
  return YRT_OK;
}
