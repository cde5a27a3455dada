/* detector.c — see detector.h. */
#include "detector.h"

#include <stdlib.h>
#include <string.h>

#include "model_open.h"

yrt_status detector_open(detector *d, const char *model_path, int threads, int quiet,
                         yrt_error *err) {
  memset(d, 0, sizeof *d);
  yrt_model *model = NULL;
  yrt_status st = yrt_open_model(model_path, quiet, &model, err);
  return st ? st : detector_attach(d, model, model_path, threads, err);
}

yrt_status detector_attach(detector *d, yrt_model *model, const char *model_path, int threads, yrt_error *err) {
  memset(d, 0, sizeof *d);
  d->model = model;
  yrt_status st = yrt_model_get_info(d->model, &d->info);
  yrt_session_options so;
  yrt_session_options_init(&so);
  so.num_threads = threads;
  if (!st) st = yrt_session_create(d->model, &so, &d->session, err);
  /* the whole-image path needs input 0 to be the RGB image META names (one, float NHWC) */
  if (!st && yrt_session_input_count(d->session, 0) != (size_t)d->info.input_w * (size_t)d->info.input_h * 3)
    st = yrt_set_error(err, YRT_ERR_SHAPE,
                       "%s: input 0 is not a %dx%d RGB image (it holds %zu floats); detection needs a model "
                       "whose input is [1,3,H,W]",
                       model_path, d->info.input_w, d->info.input_h, yrt_session_input_count(d->session, 0));
  if (st) detector_close(d);
  return st;
}

void detector_close(detector *d) {
  yrt_session_free(d->session);
  yrt_model_free(d->model);
  free(d->lb_scratch);
  free(d->pp_scratch);
  free(d->dets);
  memset(d, 0, sizeof *d);
}

static int ensure(void **buf, size_t *have, size_t need) {
  if (*have >= need && *buf) return 0;
  void *p = realloc(*buf, need ? need : 1);
  if (!p) return -1;
  *buf = p;
  *have = need;
  return 0;
}

int detector_is_classifier(const detector *d) { return strcmp(yrt_model_task(d->model), "classify") == 0; }

/* The input step of both paths: the image into the session's input (today the letterbox; the
 * model's stored preprocessing replaces this one call). */
static yrt_status write_input(detector *d, const yrt_image *img, yrt_letterbox *lb, yrt_error *err) {
  const int W = d->info.input_w, H = d->info.input_h;
  if (ensure(&d->lb_scratch, &d->lb_scratch_bytes, yrt_letterbox_scratch_bytes(img->w, img->h, W, H)))
    return yrt_set_error(err, YRT_ERR_NOMEM, "detector: out of memory");
  float *input = yrt_session_input_nhwc(d->session, 0);
  if (!input) return yrt_set_error(err, YRT_ERR_SHAPE, "detector: model has no image input");
  yrt_preprocess pre; /* the model's own: channel order, scale, placement, resize mode */
  yrt_status st = yrt_model_get_preprocess(d->model, &pre);
  if (!st) st = yrt_preprocess_f32(img, &pre, W, H, input, yrt_session_input_count(d->session, 0), d->lb_scratch, lb, err);
  return st;
}

yrt_status detector_classify(detector *d, const yrt_image *img, int top_k, yrt_class_prob *out, int cap, int *n,
                             yrt_error *err) {
  *n = 0;
  yrt_letterbox lb;
  yrt_status st = write_input(d, img, &lb, err);
  if (!st) st = yrt_session_run(d->session, err);
  if (!st) st = yrt_session_classify_output(d->session, top_k, out, cap, n, err);
  return st;
}

/* yrt_postprocess leaves name NULL (it has no model); yrt_session_detect's callers get names, and
 * so do the CLIs' (-o labels, --json) whichever path decoded. */
static void name_detections(detector *d, int n) {
  for (int i = 0; i < n; i++) d->dets[i].name = yrt_model_class_name(d->model, d->dets[i].class_id);
}

yrt_status detector_run(detector *d, const yrt_image *img, const yrt_postprocess_params *pp,
                        const yrt_detection **dets, int *n, yrt_error *err) {
  if (detector_is_classifier(d))
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "classify models have no boxes: this one's output is [1, %d] class probabilities "
                         "(yolort-detect prints its top-5 classes; yrt_session_classify)",
                         d->info.num_classes);
  yrt_letterbox lb;
  yrt_status st = write_input(d, img, &lb, err);
  if (!st) st = yrt_session_run(d->session, err);
  yrt_tensor_view out;
  if (!st) st = yrt_session_output(d->session, 0, &out, err);
  if (st) return st;
  if (d->info.end2end) { /* final detections: no decode, no NMS */
    if (out.rank != 3 || out.dims[0] != 1 || out.dims[2] < 6)
      return yrt_set_error(err, YRT_ERR_SHAPE, "detector: end-to-end output0 is not [1, K, 6 (+ extra)]");
    if (d->dets_cap < pp->max_detections) {
      yrt_detection *p = realloc(d->dets, sizeof(yrt_detection) * (size_t)(pp->max_detections ? pp->max_detections : 1));
      if (!p) return yrt_set_error(err, YRT_ERR_NOMEM, "detector: out of memory");
      d->dets = p;
      d->dets_cap = pp->max_detections;
    }
    /* pose / obb: through the session, which keeps each detection's row (keypoints, rotated box) */
    st = yrt_model_keypoints(d->model, NULL) > 0 || yrt_model_rotated(d->model)
             ? yrt_session_postprocess(d->session, &lb, pp, d->dets, d->dets_cap, n, err)
             : yrt_postprocess_e2e(out.data, out.dims[1], d->info.num_classes, &lb, pp, d->dets, d->dets_cap, n, err);
    *dets = d->dets;
    if (!st) name_detections(d, *n);
    return st;
  }
  /* the classes are META's (checked against output0's rows at load): a segment model's mask
   * coefficients after the scores are not classes */
  const int nc = d->info.num_classes;
  if (out.rank != 3 || out.dims[0] != 1 || nc < 1 || out.dims[1] < 4 + nc)
    return yrt_set_error(err, YRT_ERR_SHAPE, "detector: output0 is not [1, 4 + %d classes, anchors]", nc);
  const int na = out.dims[2];
  if (ensure(&d->pp_scratch, &d->pp_scratch_bytes, yrt_postprocess_scratch_bytes(na, pp->max_detections)))
    return yrt_set_error(err, YRT_ERR_NOMEM, "detector: out of memory");
  if (d->dets_cap < pp->max_detections) {
    yrt_detection *p = realloc(d->dets, sizeof(yrt_detection) * (size_t)pp->max_detections);
    if (!p) return yrt_set_error(err, YRT_ERR_NOMEM, "detector: out of memory");
    d->dets = p;
    d->dets_cap = pp->max_detections;
  }
  /* a pose / obb model: through the session, which keeps each detection's column (keypoints,
   * rotated box) and runs the rotated NMS */
  st = yrt_model_keypoints(d->model, NULL) > 0 || yrt_model_rotated(d->model)
           ? yrt_session_postprocess(d->session, &lb, pp, d->dets, d->dets_cap, n, err)
           : yrt_postprocess(out.data, nc, na, &lb, pp, d->pp_scratch, d->dets, d->dets_cap, n, err);
  *dets = d->dets;
  if (!st) name_detections(d, *n);
  return st;
}
