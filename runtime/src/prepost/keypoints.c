/* keypoints.c — what a detection carries besides its box, read from its output0 column
 * (issue 36): a pose model's keypoints, an obb model's rotated box. The decode keeps the output0
 * column of each detection it returns and the letterbox it mapped boxes through;
 * yrt_session_keypoints reads that column's keypoint rows, decoded by the graph's pose_decode
 * node, yrt_session_rbox its rotated box (obb_decode's rows), and both map them to source-image
 * pixels as the boxes. The columns come from the NMS scratch
 * (yrt_postprocess_kept_anchors, as masks read theirs), copied into this file's own storage (one
 * per anchor, made at session creation). Also yrt_session_postprocess: the decode + NMS of a run
 * whose input the caller wrote, with the detect stage's scratch. The state lives with the
 * stages (stages.h); the model's keypoint count and rotation are the model's (model_heads.c).
 * An end-to-end model's output0 is [K, 6 + extra] instead (DETECT_TOPK carried the rows past the
 * scores): a detection is a row, its extra values columns 6.. of it (row_stride / col_stride). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "frame_orient.h"
#include "keypoints.h"
#include "model_heads.h"
#include "postprocess_internal.h"
#include "probiou.h"
#include "stages.h"

struct yrt_kpt_state {
  int nk, kd;          /* keypoints per detection, values each (0: none) */
  int rotated;         /* an obb model: output0 has the angle row after the scores */
  int row0;            /* output0's first keypoint row: 4 + classes (end-to-end: column 6) */
  int e2e;             /* output0 is [K, 6 + extra] rows, one per detection */
  int n_dets;          /* detections of the last decode (0: none, or unknown columns) */
  int has_lb;
  yrt_letterbox lb;    /* how that decode mapped boxes */
  yrt_orient_map orient; /* then an oriented frame's turn back (rot, mir 0: none) */
  int32_t *anchor_of;  /* [anchors] output0 column of detection i */
};

yrt_status yrt_keypoints_state_create(yrt_session *s, int anchors, yrt_error *err) {
  int kd = 0;
  const int nk = yrt_model_keypoints(s->model, &kd), rotated = yrt_model_rotated(s->model);
  if ((nk < 1 && !rotated) || anchors < 1) return YRT_OK;
  struct yrt_kpt_state *k = yrt_zalloc(s->alloc, 1, sizeof *k);
  if (k) k->anchor_of = yrt_alloc(s->alloc, sizeof *k->anchor_of * (size_t)anchors);
  if (!k || !k->anchor_of) {
    yrt_keypoints_state_free(k);
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the keypoint columns");
  }
  k->nk = nk > 0 ? nk : 0;
  k->kd = nk > 0 ? kd : 0;
  k->rotated = rotated;
  k->e2e = (s->model->hdr->flags & YRT_FLAG_END2END) != 0;
  k->row0 = k->e2e ? 6 : 4 + (int)s->model->meta->num_classes; /* rows checked at load (model_load.c) */
  yrt_stages_of(s)->kpt = k;
  return YRT_OK;
}

void yrt_keypoints_state_free(struct yrt_kpt_state *k) {
  if (k) yrt_free(k->anchor_of);
  yrt_free(k);
}

void yrt_keypoints_record(yrt_session *s, const yrt_letterbox *lb, int n_dets, const int *anchors) {
  if (!yrt_stages_of(s)->kpt) return;
  yrt_stages_of(s)->kpt->n_dets = anchors ? n_dets : 0; /* at most the anchors: NMS keeps each once */
  for (int i = 0; i < yrt_stages_of(s)->kpt->n_dets; i++) yrt_stages_of(s)->kpt->anchor_of[i] = anchors[i];
  yrt_stages_of(s)->kpt->has_lb = lb != NULL;
  if (lb) yrt_stages_of(s)->kpt->lb = *lb;
  memset(&yrt_stages_of(s)->kpt->orient, 0, sizeof yrt_stages_of(s)->kpt->orient);
}

yrt_status yrt_keypoints_record_frame(yrt_session *s, const yrt_frame *frame, yrt_error *err) {
  return yrt_stages_of(s)->kpt ? yrt_orient_map_of(frame, &yrt_stages_of(s)->kpt->orient, err) : YRT_OK;
}

yrt_status yrt_session_postprocess(yrt_session *s, const yrt_letterbox *lb, const yrt_postprocess_params *params,
                                   yrt_detection *dets, int cap, int *n_dets, yrt_error *err) {
  if (n_dets) *n_dets = 0;
  if (!s || !n_dets || (!dets && cap > 0))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_postprocess: NULL argument");
  yrt_keypoints_record(s, NULL, 0, NULL);
  yrt_postprocess_params known;
  memset(&known, 0, sizeof known); /* the defaults write the first version's fields only */
  yrt_status st = params ? yrt_postprocess_params_read(params, &known, "yrt_session_postprocess: params", err)
                         : yrt_model_postprocess_defaults(s->model, &known);
  if (st != YRT_OK) return st;
  yrt_tensor_view out;
  if ((st = yrt_session_output(s, 0, &out, err)) != YRT_OK) return st;
  const int nc = (int)s->model->meta->num_classes;
  if ((st = yrt_postprocess_check_class_conf(&known, nc, "yrt_session_postprocess", err)) != YRT_OK) return st;
  const int e2e = (s->model->hdr->flags & YRT_FLAG_END2END) != 0;
  int32_t *rows = yrt_stages_of(s)->detect_list; /* an end-to-end session's kept rows (detect.c) */
  if (e2e && out.rank == 3 && out.dims[2] >= 6 && rows)
    st = yrt_postprocess_e2e_rows(out.data, out.dims[1], out.dims[2], yrt_model_rotated(s->model), nc, lb, &known, dets,
                                  cap, n_dets, rows, err);
  else if (!yrt_stages_of(s)->pp_scratch || out.rank != 3 || out.dims[0] != 1 || nc < 1 || out.dims[1] < 4 + nc)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "yrt_session_postprocess: output0 is not a detection tensor [1, 4 + classes, anchors]");
  else if (yrt_stages_of(s)->kpt && yrt_stages_of(s)->kpt->rotated)
    st = yrt_postprocess_rotated_known(out.data, nc, out.dims[2], lb, &known, yrt_stages_of(s)->pp_scratch, dets, cap,
                                       n_dets, err);
  else
    st = yrt_postprocess_known(out.data, nc, out.dims[2], lb, &known, yrt_stages_of(s)->pp_scratch, dets, cap, n_dets,
                               err);
  if (st != YRT_OK) return st;
  for (int i = 0; i < *n_dets; i++) dets[i].name = yrt_model_class_name(s->model, dets[i].class_id);
  yrt_keypoints_record(s, lb, *n_dets,
                       e2e ? rows : yrt_postprocess_kept_anchors(yrt_stages_of(s)->pp_scratch, out.dims[2]));
  return YRT_OK;
}

/* Where detection column a's value r is in output0 v: v[r * rs + a * cs]. */
static void strides_of(const struct yrt_kpt_state *k, const yrt_tensor_view *v, size_t *rs, size_t *cs) {
  *rs = k->e2e ? 1 : (size_t)v->dims[2];
  *cs = k->e2e ? (size_t)v->dims[2] : 1;
}

/* Input pixels -> source-image pixels, as the boxes (postprocess.c: scale_boxes + clip). */
static float unletterbox(float v, float pad, float ratio, int size, float offset) {
  return fminf(fmaxf((v - pad) / ratio, 0.0f), (float)size) + offset;
}

yrt_status yrt_session_keypoints(yrt_session *s, int det_index, yrt_keypoint *out, int capacity, int *count,
                                 yrt_error *err) {
  if (count) *count = 0;
  if (!s || !count || (!out && capacity > 0))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_keypoints: NULL argument");
  const struct yrt_kpt_state *k = yrt_stages_of(s)->kpt;
  if (!k || k->nk < 1) return YRT_OK; /* no keypoints in this model */
  if (det_index < 0 || det_index >= k->n_dets)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_session_keypoints: detection %d, the last yrt_session_detect / yrt_session_postprocess "
                         "returned %d",
                         det_index, k->n_dets);
  if (capacity < k->nk)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_keypoints: room for %d keypoints, the model has %d",
                         capacity, k->nk);
  yrt_tensor_view v;
  const yrt_status st = yrt_session_output(s, 0, &v, err);
  if (st != YRT_OK) return st;
  size_t n, cs;
  strides_of(k, &v, &n, &cs);
  const size_t a = (size_t)k->anchor_of[det_index];
  const float *rows = v.data + (size_t)k->row0 * n + a * cs;
  const yrt_letterbox *lb = k->has_lb ? &k->lb : NULL;
  const float ry = lb && lb->ratio_y > 0.0f ? lb->ratio_y : lb ? lb->ratio : 1.0f;
  for (int i = 0; i < k->nk; i++) {
    const size_t r = (size_t)i * (size_t)k->kd;
    float x = rows[r * n], y = rows[(r + 1) * n];
    if (lb) {
      x = unletterbox(x, lb->pad_left, lb->ratio, lb->src_w, lb->offset_x);
      y = unletterbox(y, lb->pad_top, ry, lb->src_h, lb->offset_y);
    }
    yrt_orient_map_point(&k->orient, &x, &y);
    out[i].x = x;
    out[i].y = y;
    out[i].score = k->kd == 3 ? rows[(r + 2) * n] : 1.0f;
  }
  *count = k->nk;
  return YRT_OK;
}

/* Input pixels -> source-image pixels without the clip (a rotated box may reach past the image). */
static void unletterbox_point(const yrt_letterbox *lb, float *x, float *y) {
  if (!lb) return;
  const float ry = lb->ratio_y > 0.0f ? lb->ratio_y : lb->ratio;
  *x = (*x - lb->pad_left) / lb->ratio + lb->offset_x;
  *y = (*y - lb->pad_top) / ry + lb->offset_y;
}

yrt_status yrt_session_rbox(yrt_session *s, int det_index, yrt_rbox *out, size_t out_size, yrt_error *err) {
  if (!s || !out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_rbox: NULL argument");
  const struct yrt_kpt_state *k = yrt_stages_of(s)->kpt;
  if (!k || !k->rotated)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt_session_rbox: the model has no rotated boxes (task '%.32s')",
                         yrt_model_task(s->model));
  if (out_size < offsetof(yrt_rbox, corners))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_rbox: out_size %zu, at least %zu (cx .. angle)", out_size,
                         offsetof(yrt_rbox, corners));
  if (det_index < 0 || det_index >= k->n_dets)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_session_rbox: detection %d, the last yrt_session_detect / yrt_session_postprocess "
                         "returned %d",
                         det_index, k->n_dets);
  yrt_tensor_view v;
  const yrt_status st = yrt_session_output(s, 0, &v, err);
  if (st != YRT_OK) return st;
  size_t n, cs;
  strides_of(k, &v, &n, &cs);
  const float *col = v.data + (size_t)k->anchor_of[det_index] * cs;
  const float angle_row = col[(size_t)k->row0 * n];
  /* the corners mapped one by one (exact for any letterbox, turn or mirror), the box read back
   * off them: centre, the sides from corner 0 to 1 (w) and 1 to 2 (h), w's direction */
  float c[4][2];
  yrt_rbox_corners(col[0], col[n], col[2 * n], col[3 * n], angle_row, c);
  yrt_rbox r;
  r.cx = r.cy = 0;
  for (int i = 0; i < 4; i++) {
    unletterbox_point(k->has_lb ? &k->lb : NULL, &c[i][0], &c[i][1]);
    yrt_orient_map_point(&k->orient, &c[i][0], &c[i][1]);
    r.cx += c[i][0] / 4;
    r.cy += c[i][1] / 4;
  }
  /* wv = (c0 + c1) / 2 - centre; hv = (c0 + c3) / 2 - centre */
  const float wx = (c[0][0] + c[1][0]) / 2 - r.cx, wy = (c[0][1] + c[1][1]) / 2 - r.cy;
  const float hx = (c[0][0] + c[3][0]) / 2 - r.cx, hy = (c[0][1] + c[3][1]) / 2 - r.cy;
  r.w = 2 * sqrtf(wx * wx + wy * wy);
  r.h = 2 * sqrtf(hx * hx + hy * hy);
  /* Ultralytics regularize_rboxes: the angle modulo pi/2, w and h swapped when it was in
   * [pi/2, pi) modulo pi */
  float t = atan2f(wy, wx);
  const float pi = 3.14159265f;
  float tm = fmodf(t, pi);
  if (tm < 0) tm += pi;
  if (tm >= pi / 2) {
    const float sw = r.w;
    r.w = r.h;
    r.h = sw;
  }
  t = fmodf(tm, pi / 2);
  r.angle = t >= 0 && t < pi / 2 ? t : 0.0f;
  memcpy(r.corners, c, sizeof c);
  memcpy(out, &r, out_size < sizeof r ? out_size : sizeof r);
  return YRT_OK;
}
