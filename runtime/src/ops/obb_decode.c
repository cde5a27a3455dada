/* obb_decode.c — YRT_OP_OBB_DECODE, the Ultralytics OBB head's rotated boxes, in one room: its
 * check, state, prepare, run and release (the row in op_table.c points here). The int8
 * dequantization tables are made at session creation; a run turns the Detect decode's boxes by
 * their angles, threaded over anchors, into output0's rows [4 + nc + 1][N] that the rotated NMS
 * (postprocess.c) and yrt_session_rbox (session_keypoints.c) read. */
#include <math.h>
#include <stdlib.h>

#include "mem.h"
#include "obb_decode.h"
#include "op_check.h"
#include "pose_decode.h"
#include "session_internal.h"
#include "session_par.h"
#include "yk_obb.h"

/* Below this many output floats one thread does it all (waking the pool costs more). */
#define OBB_PAR_MIN 65536

typedef struct yrt_exec_obb {
  yk_obb_params p;
  float deq[YK_OBB_MAX_SCALES][256]; /* per int8 map */
  const float *rows;                 /* the detection rows [4 + nc][N] */
  size_t chunk;
} yrt_exec_obb;
YRT_EXEC_STATE_FITS(yrt_exec_obb *);
/* The node's state: a pointer to its yrt_exec_obb (owned). */
static inline yrt_exec_obb **slot(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_obb *, e); }

/* Every count, stride and shape bounded so the kernel's loops stay inside the maps and rows. */
yrt_status yrt_check_obb_decode(const yrt_node_check *v) {
  const int32_t *p = v->n->p;
  const int32_t ns = p[YRT_OBB_P_SCALES];
  if (!yrt_range_ok(ns, 1, YK_OBB_MAX_SCALES))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "scales p[0] = %d (1..%d)", (int)ns, YK_OBB_MAX_SCALES);
  if (v->n->n_in != (uint32_t)ns + 1)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "%u inputs for %d scales (want %d: the angle maps, then the detection rows)",
                         (unsigned)v->n->n_in, (int)ns, (int)ns + 1);
  int64_t n_anchors = 0;
  for (int32_t s = 0; s < ns; s++) {
    const int32_t stride = p[YRT_OBB_P_STRIDE0 + s];
    if (!yrt_range_ok(stride, 1, 4096))
      return yrt_node_fail(v, YRT_ERR_FORMAT, "stride p[%d] = %d (1..4096)", (int)(YRT_OBB_P_STRIDE0 + s), (int)stride);
    const yrt_tensor_rec *t = yrt_node_in(v, s);
    if (t->dtype != YRT_F32 && t->dtype != YRT_I8)
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "input %d: dtype %u (f32 or i8)", (int)s, (unsigned)t->dtype);
    if (t->rank != 4 || t->layout != YRT_LAYOUT_NHWC || t->dims[0] != 1 || t->dims[3] != 1)
      return yrt_node_fail(v, YRT_ERR_SHAPE, "input %d must be an angle map NHWC [1,H,W,1]", (int)s);
    n_anchors += (int64_t)t->dims[1] * t->dims[2];
  }
  const yrt_tensor_rec *r = yrt_node_in(v, ns);
  if (r->dtype != YRT_F32 || r->rank != 3 || r->layout != YRT_LAYOUT_PLAIN || r->dims[0] != 1 || r->dims[1] < 5 ||
      r->dims[1] > 4 + YRT_MAX_CLASSES || r->dims[2] != n_anchors)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "input %d: detection rows must be f32 [1, 4 + classes, %lld]", (int)ns,
                         (long long)n_anchors);
  const yrt_tensor_rec *y = yrt_node_out(v, 0);
  if (y->dtype != YRT_F32 || y->rank != 3 || y->layout != YRT_LAYOUT_PLAIN || y->dims[0] != 1 ||
      y->dims[1] != r->dims[1] + 1 || y->dims[2] != n_anchors)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output must be f32 [1, %lld, %lld] (the rows, then the angle)",
                         (long long)r->dims[1] + 1, (long long)n_anchors);
  return yrt_require_per_tensor(v);
}

typedef struct obb_ctx {
  const yrt_exec *e;
  float conf; /* NaN: every anchor */
} obb_ctx;

static void obb_range(const void *ctx, size_t lo, size_t hi) {
  const obb_ctx *t = ctx;
  const yrt_exec_obb *d = *slot(t->e);
  yk_obb_decode(&d->p, d->rows, lo, hi, t->conf, t->e->out);
}

yrt_status yrt_run_obb_decode(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_obb *d = *slot(e);
  /* yrt_session_detect: only anchors whose best score passes conf are turned (the NMS after it
   * takes exactly those) */
  const obb_ctx t = {e, s->detect_conf};
  const int one = yrt_par_threads(&s->par) < 2 || e->numel < OBB_PAR_MIN;
  yrt_par_ranges(&s->par, d->p.n_anchors, one ? d->p.n_anchors : d->chunk, obb_range, &t);
  return YRT_OK;
}

yrt_status yrt_prepare_obb_decode(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  yrt_exec_obb *d = yrt_zalloc(s->alloc, 1, sizeof *d);
  if (!d) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for obb_decode node");
  *slot(e) = d;
  yk_obb_params *p = &d->p; /* all validated on load */
  p->n_scales = n->p[YRT_OBB_P_SCALES];
  const size_t first = yrt_decode_maps_prepare(m, e, p->n_scales, 1, &n->p[YRT_OBB_P_STRIDE0], p->s, d->deq);
  p->n_anchors = first;
  d->rows = e->in[p->n_scales];
  p->nc = (int)m->tensors[n->in[p->n_scales]].dims[1] - 4;
  d->chunk = yrt_par_chunk(first, 4 * yrt_par_threads(&s->par), 16, 16);
  return YRT_OK;
}

void yrt_release_obb_decode(yrt_exec *e) {
  yrt_free(*slot(e));
  *slot(e) = NULL;
}
