/* gather.c — YRT_OP_GATHER: Gather with constant int32 indices along one axis, in one room: its check (the validator calls it
 * through the row), its prepare and run (the row in op_table.c points here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gather.h"
#include "kernel_kinds.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

typedef struct yrt_exec_gather {
  int axis;
  const int32_t *idx;
  size_t n_idx;
} yrt_exec_gather;

YRT_EXEC_STATE_FITS(yrt_exec_gather);
static inline yrt_exec_gather *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_gather, e); }

yrt_status yrt_check_gather(const yrt_node_check *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *ix = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  const int32_t axis = v->n->p[0];
  if (x->dtype != y->dtype || x->dtype == YRT_I32 || !yrt_same_qparams(x, y)) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "data must be f32 or i8, same as output");
  if (ix->kind != YRT_TENSOR_CONST || ix->dtype != YRT_I32) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "indices must be a constant i32 tensor");
  if (axis < 0 || (uint32_t)axis >= x->rank) return yrt_node_fail(v, YRT_ERR_FORMAT, "axis %d for rank %u", (int)axis, (unsigned)x->rank);
  if (y->rank != x->rank - 1 + ix->rank) return yrt_node_fail(v, YRT_ERR_SHAPE, "output rank %u, want %u", (unsigned)y->rank, (unsigned)(x->rank - 1 + ix->rank));
  uint32_t o = 0;
  for (uint32_t d = 0; d < x->rank; d++) {
    if ((int32_t)d == axis) {
      for (uint32_t k = 0; k < ix->rank; k++)
        if (y->dims[o++] != ix->dims[k]) return yrt_node_fail(v, YRT_ERR_SHAPE, "output dim %u differs from the indices' shape", o - 1);
    } else if (y->dims[o++] != x->dims[d]) {
      return yrt_node_fail(v, YRT_ERR_SHAPE, "output dim %u differs from data dim %u", o - 1, (unsigned)d);
    }
  }
  const int32_t *idx = yrt_tensor_const_data(v->m, ix);
  const size_t n = yrt_tensor_numel(ix);
  const int64_t len = x->dims[axis];
  for (size_t k = 0; k < n; k++)
    if (idx[k] < -len || idx[k] >= len) return yrt_node_fail(v, YRT_ERR_SHAPE, "index[%zu] = %d outside [-%lld, %lld)", k, (int)idx[k], (long long)len, (long long)len);
  return yrt_require_per_tensor(v);
}

yrt_status yrt_run_gather(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  yk_gather(e->in[0], &e->sh[0], st_of(e)->axis, st_of(e)->idx, st_of(e)->n_idx, e->out, e->esize);
  return YRT_OK;
}

yrt_status yrt_prepare_gather(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_model *m = s->model;
  const yrt_tensor_rec *ix = &m->tensors[e->node->in[1]];
  st_of(e)->axis = e->node->p[0];
  st_of(e)->idx = yrt_tensor_const_data(m, ix);
  st_of(e)->n_idx = yrt_tensor_numel(ix);
  return YRT_OK;
}
