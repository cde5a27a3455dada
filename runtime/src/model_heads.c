/* model_heads.c — the task heads of a loaded model (model_heads.h): a segment model's prototypes
 * checked against output0's coefficient rows at load and its mask channels; a pose model's
 * keypoints, from the row of the node that decodes them (its keypoints column); whether output0 carries rotated boxes (an obb decode's rotated column). */
#include <string.h>

#include "model_heads.h"
#include "op_def.h"

static int is_segment(const yrt_model *m) { return strcmp(yrt_model_string(m, m->meta->task), "segment") == 0; }

void yrt_segment_proto_dims(const yrt_tensor_rec *p, int *nm, int *ph, int *pw) {
  const int nhwc = p->layout == YRT_LAYOUT_NHWC;
  *nm = (int)(nhwc ? p->dims[3] : p->dims[1]);
  *ph = (int)(nhwc ? p->dims[1] : p->dims[2]);
  *pw = (int)(nhwc ? p->dims[2] : p->dims[3]);
}

yrt_status yrt_segment_check_model(const yrt_model *m, int64_t extra_rows, yrt_error *err) {
  if (m->plan->n_outputs < 2) return YRT_OK; /* boxes only */
  const yrt_tensor_rec *p = &m->tensors[m->plan_outputs[1]];
  int nm = 0, ph = 0, pw = 0, in_w, in_h;
  in_w = (int)m->meta->input_w, in_h = (int)m->meta->input_h; /* yrt_model_get_info's */
  if (p->rank == 4 && p->dims[0] == 1) yrt_segment_proto_dims(p, &nm, &ph, &pw);
  const int grid = p->rank == 4 && p->dims[0] == 1 && ph >= 1 && pw >= 1 && in_w >= pw && in_h >= ph &&
                   in_h % ph == 0 && in_w % pw == 0 && in_h / ph == in_w / pw;
  if (!grid || (p->dtype != YRT_F32 && p->dtype != YRT_I8) || (int64_t)nm != extra_rows)
    return yrt_set_error(err, YRT_ERR_FORMAT,
                         "yrt: segment model: output0 has %lld rows past 4 + %u classes (mask coefficients) but output1 "
                         "is not their prototypes [1, %lld, H/k, W/k] of the %dx%d input (rank %u, dims %d x %d x %d x %d, "
                         "dtype %u): refused, the coefficients would be read against the wrong prototypes",
                         (long long)extra_rows, (unsigned)m->meta->num_classes, (long long)extra_rows, in_w, in_h,
                         (unsigned)p->rank, p->dims[0], p->rank > 1 ? p->dims[1] : 0, p->rank > 2 ? p->dims[2] : 0,
                         p->rank > 3 ? p->dims[3] : 0, (unsigned)p->dtype);
  return YRT_OK;
}

int yrt_segment_channels(const yrt_model *m) {
  if (!m || !is_segment(m) || m->plan->n_outputs < 2) return 0;
  const yrt_tensor_rec *o = &m->tensors[m->plan_outputs[0]], *p = &m->tensors[m->plan_outputs[1]];
  const int64_t nc = m->meta->num_classes;
  if (o->rank != 3 || o->dims[0] != 1 || o->layout == YRT_LAYOUT_NHWC || o->dtype != YRT_F32 || p->rank != 4) return 0;
  int nm, ph, pw;
  yrt_segment_proto_dims(p, &nm, &ph, &pw);
  if (m->hdr->flags & YRT_FLAG_END2END) return nm >= 1 && o->dims[2] == 6 + nm ? nm : 0; /* [1, K, 6 + nm] rows */
  return nm >= 1 && o->dims[1] == 4 + nc + nm ? nm : 0; /* checked at load (yrt_segment_check_model) */
}

int yrt_model_mask_channels(const yrt_model *model) { return yrt_segment_channels(model); }

int yrt_model_keypoints(const yrt_model *m, int *dims) {
  if (dims) *dims = 0;
  if (!m) return 0;
  for (uint32_t i = 0; i < m->n_nodes; i++) {
    const yrt_op_def *d = yrt_op_lookup(m->ops, m->nodes[i].op);
    if (d && d->keypoints) return d->keypoints(&m->nodes[i], dims);
  }
  return 0;
}

/* The decoded rows [1, 4 + nc (+ extra), N]: output0, or on an end-to-end model the input of the
 * selection that writes output0 (its rows are those rows' columns). */
static uint32_t decoded_rows(const yrt_model *m) {
  const uint32_t out0 = m->plan_outputs[0];
  if (!(m->hdr->flags & YRT_FLAG_END2END)) return out0;
  for (uint32_t i = 0; i < m->n_nodes; i++)
    if (m->nodes[i].n_out >= 1 && m->nodes[i].out[0] == out0 && m->nodes[i].n_in >= 1) return m->nodes[i].in[0];
  return out0;
}

int yrt_model_rotated(const yrt_model *m) {
  if (!m || m->plan->n_outputs < 1) return 0;
  const uint32_t rows = decoded_rows(m);
  for (uint32_t i = 0; i < m->n_nodes; i++) {
    const yrt_op_def *d = yrt_op_lookup(m->ops, m->nodes[i].op);
    if (d && d->rotated && m->nodes[i].out[0] == rows) return 1;
  }
  return 0;
}

yrt_status yrt_e2e_check_columns(const yrt_model *m, int64_t cols, yrt_error *err) {
  int kd = 0;
  const int nk = yrt_model_keypoints(m, &kd), rotated = yrt_model_rotated(m);
  const char *task = yrt_model_string(m, m->meta->task);
  if (strcmp(task, "segment") == 0 && cols > 6) return yrt_segment_check_model(m, cols - 6, err);
  const int64_t want = 6 + (rotated ? 1 : nk > 0 ? (int64_t)nk * kd : 0);
  if (cols == want && rotated == (strcmp(task, "obb") == 0) && (nk > 0) == (strcmp(task, "pose") == 0)) return YRT_OK;
  return yrt_set_error(err, YRT_ERR_FORMAT,
                       "yrt: end-to-end flag set, but output0 is not [1, K, %lld]: task '%.32s', its decode (%s) gives "
                       "6 columns per detection (box, score, class) + %lld (an obb angle, a pose model's keypoints), "
                       "output0 has %lld",
                       (long long)want, task, rotated ? "rotated" : nk > 0 ? "keypoints" : "boxes", (long long)(want - 6),
                       (long long)cols);
}
