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

typedef struct yrt_exec_obb {
  yk_obb_params p;
  yrt_decode_maps m; /* rows: always there (validated on load) */
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
    const yrt_status st = yrt_check_decode_map(v, s, (int)(YRT_OBB_P_STRIDE0 + s));
    if (st != YRT_OK) return st;
    const yrt_tensor_rec *t = yrt_node_in(v, s);
    if (t->rank != 4 || t->layout != YRT_LAYOUT_NHWC || t->dims[0] != 1 || t->dims[3] != 1)
      return yrt_node_fail(v, YRT_ERR_SHAPE, "input %d must be an angle map NHWC [1,H,W,1]", (int)s);
    n_anchors += (int64_t)t->dims[1] * t->dims[2];
  }
  if (!yrt_range_ok(p[YRT_OBB_P_FORM], YRT_OBB_SIGMOID, YRT_OBB_RAW))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "angle form p[%d] = %d (0 sigmoid, 1 raw)", YRT_OBB_P_FORM, (int)p[YRT_OBB_P_FORM]);
  if (p[YRT_OBB_P_FORM] == YRT_OBB_RAW && !(v->m->hdr->flags & YRT_FLAG_OBB_RAW))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "raw angle form (p[%d] = 1) without the header flag OBB_RAW", YRT_OBB_P_FORM);
  const yrt_status st = yrt_check_detection_rows(v, ns, n_anchors);
  if (st != YRT_OK) return st;
  const yrt_tensor_rec *r = yrt_node_in(v, ns);
  const yrt_tensor_rec *y = yrt_node_out(v, 0);
  if (y->dtype != YRT_F32 || y->rank != 3 || y->layout != YRT_LAYOUT_PLAIN || y->dims[0] != 1 ||
      y->dims[1] != r->dims[1] + 1 || y->dims[2] != n_anchors)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output must be f32 [1, %lld, %lld] (the rows, then the angle)",
                         (long long)r->dims[1] + 1, (long long)n_anchors);
  return yrt_require_per_tensor(v);
}

static void obb_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_decode_ctx *t = ctx;
  const yrt_exec_obb *d = *slot(t->e);
  yk_obb_decode(&d->p, d->m.rows, lo, hi, t->conf, t->e->out);
}

yrt_status yrt_run_obb_decode(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  return yrt_decode_maps_run(s, e, &(*slot(e))->m, obb_range);
}

yrt_status yrt_prepare_obb_decode(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_node_rec *n = e->node;
  yrt_exec_obb *d = yrt_zalloc(s->alloc, 1, sizeof *d);
  if (!d) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for obb_decode node");
  *slot(e) = d;
  yk_obb_params *p = &d->p; /* all validated on load */
  p->n_scales = n->p[YRT_OBB_P_SCALES];
  p->raw = n->p[YRT_OBB_P_FORM] == YRT_OBB_RAW;
  yrt_decode_maps_prepare(&d->m, s, e, p->n_scales, 1, &n->p[YRT_OBB_P_STRIDE0], p->s);
  p->n_anchors = d->m.n_anchors;
  p->nc = d->m.nc;
  return YRT_OK;
}

void yrt_release_obb_decode(yrt_exec *e) {
  yrt_free(*slot(e));
  *slot(e) = NULL;
}
