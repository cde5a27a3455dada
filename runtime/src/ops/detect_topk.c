/* detect_topk.c — YRT_OP_DETECT_TOPK, the end-to-end (NMS-free) head's selection, in one room:
 * check, prepare, run, release (the row in op_table.c points here). Prepare allocates the
 * kernel's scratch once (the selection itself never allocates). */
#include <stdlib.h>

#include "mem.h"
#include "detect_topk.h"
#include "op_check.h"
#include "session_internal.h"
#include "yk_topk.h"

typedef struct yrt_exec_topk {
  int nc, ne, n, k;
  void *scratch; /* owned */
} yrt_exec_topk;

YRT_EXEC_STATE_FITS(yrt_exec_topk);
static inline yrt_exec_topk *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_topk, e); }

/* End-to-end selection: [1, 4+nc+ne, N] f32 in, [1, K, 6+ne] f32 out, K <= N; ne extra rows
 * (keypoints, mask coefficients, angle) carried with the box, 0 in files before them. */
yrt_status yrt_check_topk(const yrt_node_check *v) {
  const int32_t nc = v->n->p[0], k = v->n->p[1], ne = v->n->p[2];
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (!yrt_range_ok(nc, 1, YRT_MAX_CLASSES)) return yrt_node_fail(v, YRT_ERR_FORMAT, "classes p[0] = %d (1..%d)", (int)nc, YRT_MAX_CLASSES);
  if (!yrt_range_ok(ne, 0, YRT_TOPK_MAX_EXTRA)) return yrt_node_fail(v, YRT_ERR_FORMAT, "extra rows p[2] = %d (0..%d)", (int)ne, YRT_TOPK_MAX_EXTRA);
  if (x->dtype != YRT_F32 || x->rank != 3 || x->layout != YRT_LAYOUT_PLAIN || x->dims[0] != 1 || x->dims[1] != 4 + nc + ne)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "input must be f32 [1, %d, N]", (int)(4 + nc + ne));
  if (!yrt_range_ok(k, 1, x->dims[2])) return yrt_node_fail(v, YRT_ERR_FORMAT, "k p[1] = %d (1..%d anchors)", (int)k, (int)x->dims[2]);
  if ((int64_t)k * nc > INT32_MAX / 2) return yrt_node_fail(v, YRT_ERR_FORMAT, "k x classes = %lld too large", (long long)k * nc);
  if (y->dtype != YRT_F32 || y->rank != 3 || y->layout != YRT_LAYOUT_PLAIN || y->dims[0] != 1 || y->dims[1] != k || y->dims[2] != 6 + ne)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output must be f32 [1, %d, %d]", (int)k, (int)(6 + ne));
  return YRT_OK;
}

yrt_status yrt_prepare_topk(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  st_of(e)->nc = n->p[0];
  st_of(e)->k = n->p[1];
  st_of(e)->ne = n->p[2];
  st_of(e)->n = (int)m->tensors[n->in[0]].dims[2];
  st_of(e)->scratch = yrt_alloc(s->alloc, yk_topk_scratch_bytes(st_of(e)->nc, st_of(e)->n, st_of(e)->k));
  if (!st_of(e)->scratch)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the top-k of node '%s'",
                         yrt_model_string(m, n->name));
  return YRT_OK;
}

yrt_status yrt_run_topk(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  yk_detect_topk_rows(e->in[0], st_of(e)->nc, st_of(e)->ne, st_of(e)->n, st_of(e)->k, e->out, st_of(e)->scratch);
  return YRT_OK;
}

void yrt_release_topk(yrt_exec *e) {
  yrt_free(st_of(e)->scratch);
  st_of(e)->scratch = NULL;
}
