/* pose_decode.c — YRT_OP_POSE_DECODE, the keypoint decode of pose heads (Ultralytics Pose; the
 * anchor form of YOLO-Pose objectness heads), in one room:
 * its check, state, prepare, run and release (the row in op_table.c points here). The int8
 * dequantization tables are made at session creation; a run decodes threaded over anchors into
 * the keypoint rows, which yrt_session_keypoints (prepost/keypoints.c) reads per kept box. */
#include <math.h>
#include <stdlib.h>

#include "mem.h"
#include "op_check.h"
#include "pose_decode.h"
#include "session_internal.h"
#include "session_par.h"
#include "yk_pose.h"

/* Below this many output floats one thread does it all (waking the pool costs more). */
#define DECODE_PAR_MIN 65536

typedef struct yrt_exec_pose {
  yk_pose_params p;
  yrt_decode_maps m;
} yrt_exec_pose;
YRT_EXEC_STATE_FITS(yrt_exec_pose *);
/* The node's state: a pointer to its yrt_exec_pose (owned). */
static inline yrt_exec_pose **slot(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_pose *, e); }

/* Every count, stride and shape bounded so the kernel's loops stay inside the maps and rows. */
yrt_status yrt_check_pose_decode(const yrt_node_check *v) {
  const int32_t *p = v->n->p;
  const int32_t ns = p[YRT_POSE_P_SCALES], nk = p[YRT_POSE_P_KPTS], kd = p[YRT_POSE_P_DIMS];
  const int32_t form = p[YRT_POSE_P_FORM], na = form ? p[YRT_POSE_P_ANCHORS] : 1;
  if (form != YRT_POSE_ULTRALYTICS && form != YRT_POSE_ANCHOR)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "form p[%d] = %d (0 Ultralytics, 1 anchor)", (int)YRT_POSE_P_FORM, (int)form);
  if (!yrt_range_ok(ns, 1, form ? YK_POSE_MAX_SCALES : 3))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "scales p[0] = %d (1..%d)", (int)ns, form ? YK_POSE_MAX_SCALES : 3);
  if (!yrt_range_ok(kd, 2, 3)) return yrt_node_fail(v, YRT_ERR_FORMAT, "values per keypoint p[2] = %d (2 or 3)", (int)kd);
  if (!yrt_range_ok(nk, 1, YK_POSE_MAX_VALUES / 3))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "keypoints p[1] = %d (1..%d)", (int)nk, YK_POSE_MAX_VALUES / 3);
  /* anchor form: na vectors of `per` values per cell, the keypoints from `first` on inside each */
  const int32_t first = form ? p[YRT_POSE_P_FIRST] : 0, per = form ? p[YRT_POSE_P_PER] : nk * kd;
  if (form && (!yrt_range_ok(na, 1, 9) || !yrt_range_ok(first, 0, YK_POSE_MAX_VALUES) ||
               !yrt_range_ok(per, first + nk * kd, first + nk * kd)))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "anchor form: %d anchors (1..9), vectors of %d values with keypoints from %d "
                         "(want first + %d x %d)", (int)na, (int)per, (int)first, (int)nk, (int)kd);
  if (v->n->n_in != (uint32_t)ns && v->n->n_in != (uint32_t)ns + 1)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "%u inputs for %d scales (want %d, or %d with the detection rows)",
                         (unsigned)v->n->n_in, (int)ns, (int)ns, (int)ns + 1);
  int64_t n_anchors = 0;
  for (int32_t s = 0; s < ns; s++) {
    const yrt_status st = yrt_check_decode_map(v, s, (int)(YRT_POSE_P_STRIDE0 + s));
    if (st != YRT_OK) return st;
    const yrt_tensor_rec *t = yrt_node_in(v, s);
    if (t->rank != 4 || t->layout != YRT_LAYOUT_NHWC || t->dims[0] != 1)
      return yrt_node_fail(v, YRT_ERR_SHAPE, "input %d must be NHWC [1,H,W,C]", (int)s);
    if (t->dims[3] != (int64_t)na * per)
      return yrt_node_fail(v, YRT_ERR_SHAPE, "input %d: %d channels, want %d anchors x %d values (%d keypoints x %d)", (int)s,
                           (int)t->dims[3], (int)na, (int)per, (int)nk, (int)kd);
    n_anchors += (int64_t)na * t->dims[1] * t->dims[2];
  }
  if (v->n->n_in == (uint32_t)ns + 1) { /* the detection rows whose scores say which anchors can pass */
    const yrt_status st = yrt_check_detection_rows(v, ns, n_anchors);
    if (st != YRT_OK) return st;
  }
  const yrt_tensor_rec *y = yrt_node_out(v, 0);
  if (y->dtype != YRT_F32 || y->rank != 3 || y->layout != YRT_LAYOUT_PLAIN || y->dims[0] != 1 || y->dims[1] != nk * kd ||
      y->dims[2] != n_anchors)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output must be f32 [1, %d, %lld]", (int)(nk * kd), (long long)n_anchors);
  return yrt_require_per_tensor(v);
}

static void pose_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_decode_ctx *t = ctx;
  const yrt_exec_pose *d = *slot(t->e);
  if (isnan(t->conf)) {
    yk_pose_decode(&d->p, lo, hi, t->e->out);
    return;
  }
  /* the others' rows are left as they were */
  const size_t n = d->p.n_anchors;
  for (size_t a = lo; a < hi; a++) {
    const float *sc = d->m.rows + 4 * n + a;
    float best = sc[0];
    for (int c = 1; c < d->m.nc; c++) best = sc[(size_t)c * n] > best ? sc[(size_t)c * n] : best;
    if (best > t->conf) yk_pose_decode(&d->p, a, a + 1, t->e->out);
  }
}

yrt_status yrt_run_pose_decode(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  return yrt_decode_maps_run(s, e, &(*slot(e))->m, pose_range);
}

yrt_status yrt_prepare_pose_decode(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_node_rec *n = e->node;
  yrt_exec_pose *d = yrt_zalloc(s->alloc, 1, sizeof *d);
  if (!d) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for pose_decode node");
  *slot(e) = d;
  yk_pose_params *p = &d->p; /* all validated on load */
  p->n_scales = n->p[YRT_POSE_P_SCALES];
  p->nk = n->p[YRT_POSE_P_KPTS];
  p->kd = n->p[YRT_POSE_P_DIMS];
  p->anchor_form = n->p[YRT_POSE_P_FORM] == YRT_POSE_ANCHOR;
  p->na = p->anchor_form ? n->p[YRT_POSE_P_ANCHORS] : 1;
  p->per = p->anchor_form ? n->p[YRT_POSE_P_PER] : p->nk * p->kd;
  p->first = p->anchor_form ? n->p[YRT_POSE_P_FIRST] : 0;
  yrt_decode_maps_prepare(&d->m, s, e, p->n_scales, p->na, &n->p[YRT_POSE_P_STRIDE0], p->s);
  p->n_anchors = d->m.n_anchors;
  return YRT_OK;
}

void yrt_decode_maps_prepare(yrt_decode_maps *dm, const yrt_session *ses, const yrt_exec *e, int ns, int na,
                             const int32_t *strides, yk_pose_scale *s) {
  const yrt_model *m = ses->model;
  size_t first = 0;
  for (int k = 0; k < ns && k < YK_POSE_MAX_SCALES; k++) {
    const yrt_tensor_rec *x = &m->tensors[e->node->in[k]];
    yk_pose_scale *sc = &s[k];
    sc->x = e->in[k];
    sc->h = (int)x->dims[1];
    sc->w = (int)x->dims[2];
    sc->stride = (float)strides[k];
    sc->first = first;
    first += (size_t)na * (size_t)sc->h * (size_t)sc->w;
    if (x->dtype == YRT_I8) {
      yk_pose_deq_table(x->scale, x->zero_point, dm->deq[k]);
      sc->deq = dm->deq[k];
    }
  }
  dm->n_anchors = first;
  dm->chunk = yrt_par_chunk(first, 4 * yrt_par_threads(&ses->par), 16, 16);
  if (e->node->n_in == (uint32_t)ns + 1) {
    dm->rows = e->in[ns];
    dm->nc = (int)m->tensors[e->node->in[ns]].dims[1] - 4;
  }
}

yrt_status yrt_decode_maps_run(const yrt_session *s, const yrt_exec *e, const yrt_decode_maps *dm, yrt_range_fn fn) {
  const yrt_decode_ctx t = {e, dm->rows ? s->detect_conf : NAN};
  const int one = yrt_par_threads(&s->par) < 2 || e->numel < DECODE_PAR_MIN;
  yrt_par_ranges(&s->par, dm->n_anchors, one ? dm->n_anchors : dm->chunk, fn, &t);
  return YRT_OK;
}

yrt_status yrt_check_decode_map(const yrt_node_check *v, int32_t s, int stride_at) {
  const int32_t stride = v->n->p[stride_at];
  if (!yrt_range_ok(stride, 1, 4096))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "stride p[%d] = %d (1..4096)", stride_at, (int)stride);
  const yrt_tensor_rec *t = yrt_node_in(v, s);
  if (t->dtype != YRT_F32 && t->dtype != YRT_I8)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "input %d: dtype %u (f32 or i8)", (int)s, (unsigned)t->dtype);
  return YRT_OK;
}

yrt_status yrt_check_detection_rows(const yrt_node_check *v, int32_t at, int64_t n_anchors) {
  const yrt_tensor_rec *r = yrt_node_in(v, at);
  if (r->dtype != YRT_F32 || r->rank != 3 || r->layout != YRT_LAYOUT_PLAIN || r->dims[0] != 1 || r->dims[1] < 5 ||
      r->dims[1] > 4 + YRT_MAX_CLASSES || r->dims[2] != n_anchors)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "input %d: detection rows must be f32 [1, 4 + classes, %lld]", (int)at,
                         (long long)n_anchors);
  return YRT_OK;
}

void yrt_release_pose_decode(yrt_exec *e) {
  yrt_free(*slot(e));
  *slot(e) = NULL;
}

int yrt_pose_decode_keypoints(const yrt_node_rec *n, int *dims) {
  if (dims) *dims = n->p[YRT_POSE_P_DIMS];
  return n->p[YRT_POSE_P_KPTS];
}
