/* classify.c — yrt_session_classify / yrt_session_classify_output: the top-k classes of a
 * classifier's output 0 (task "classify", checked at load: float, num_classes elements), with a
 * softmax when the converter recorded logits (YRT_FLAG_CLASS_LOGITS). No allocation: the
 * selection is an insertion into the caller's array. */
#include <math.h>
#include <string.h>

#include "session_internal.h"

static int is_classifier(const yrt_model *m) { return strcmp(yrt_model_task(m), "classify") == 0; }

static yrt_status refuse(const yrt_model *m, const char *fn, yrt_error *err) {
  const char *task = yrt_model_task(m);
  return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                       "%s: the model's task is '%.32s', not 'classify': its output 0 is not class probabilities "
                       "(a detector: use yrt_session_detect)",
                       fn, *task ? task : "(not recorded)");
}

/* Does (v, i) rank before (w, j)? Higher score first, then lower class id. */
static int before(float v, int i, float w, int j) { return v > w || (v == w && i < j); }

static yrt_status classify_output(yrt_session *s, const char *fn, int top_k, yrt_class_prob *out, int cap, int *n,
                                  yrt_error *err) {
  const yrt_model *m = s->model;
  if (!is_classifier(m)) return refuse(m, fn, err);
  if (top_k < 1) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: top_k %d (must be >= 1)", fn, top_k);
  yrt_tensor_view v;
  yrt_status st = yrt_session_output(s, 0, &v, err);
  if (st != YRT_OK) return st;
  const int nc = (int)m->meta->num_classes; /* == v.count (model_load.c check_classify) */
  int k = top_k < cap ? top_k : cap;
  if (k > nc) k = nc;
  const float *x = v.data;
  int have = 0;
  float maxv = -INFINITY;
  for (int i = 0; i < nc; i++) {
    const float xi = x[i];
    if (isnan(xi)) continue;
    if (xi > maxv) maxv = xi;
    if (k < 1 || (have == k && !before(xi, i, out[k - 1].prob, out[k - 1].class_id))) continue;
    int j = have < k ? have++ : k - 1; /* the slot it takes, then moved up to its rank */
    while (j > 0 && before(xi, i, out[j - 1].prob, out[j - 1].class_id)) {
      out[j] = out[j - 1];
      j--;
    }
    out[j].class_id = i;
    out[j].prob = xi;
    out[j].name = NULL;
  }
  if ((m->hdr->flags & YRT_FLAG_CLASS_LOGITS) && have > 0) {
    double sum = 0.0; /* softmax over every class, shifted by the largest logit */
    for (int i = 0; i < nc; i++)
      if (!isnan(x[i])) sum += exp((double)x[i] - (double)maxv);
    for (int j = 0; j < have; j++) out[j].prob = (float)(exp((double)out[j].prob - (double)maxv) / sum);
  }
  for (int j = 0; j < have; j++) out[j].name = yrt_model_class_name(m, out[j].class_id);
  *n = have;
  return YRT_OK;
}

yrt_status yrt_session_classify_output(yrt_session *s, int top_k, yrt_class_prob *out, int cap, int *n,
                                       yrt_error *err) {
  if (n) *n = 0;
  if (!s || !n || (!out && cap > 0) || cap < 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_classify_output: NULL argument or cap < 0");
  return classify_output(s, "yrt_session_classify_output", top_k, out, cap, n, err);
}

yrt_status yrt_session_classify(yrt_session *s, const yrt_frame *frame, int top_k, yrt_class_prob *out, int cap,
                                int *n, yrt_error *err) {
  if (n) *n = 0;
  if (!s || !frame || !n || (!out && cap > 0) || cap < 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_classify: NULL argument or cap < 0");
  if (!is_classifier(s->model)) return refuse(s->model, "yrt_session_classify", err);
  if (top_k < 1) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_classify: top_k %d (must be >= 1)", top_k);
  /* the input step: whatever the frame path writes for this model (one call, not redone here) */
  yrt_status st = yrt_session_set_frame(s, frame, NULL, err);
  if (st == YRT_OK) st = yrt_session_run(s, err);
  if (st == YRT_OK) st = classify_output(s, "yrt_session_classify", top_k, out, cap, n, err);
  yrt_par_rest(s->pool); /* the frame's burst of parallel work is over */
  return st;
}
