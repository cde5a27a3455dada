/* transpose.c — YRT_OP_TRANSPOSE: Transpose by a permutation of physical axes, in one room: its check (the validator calls it
 * through the row), its prepare and run (the row in op_table.c points here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "transpose.h"
#include "kernel_kinds.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

typedef struct yrt_exec_transpose {
  int perm[YK_MAX_RANK];
  /* the leading axes the perm leaves in place, as `outer` independent slabs of `inner`
   * elements, each transposed as slab (shape [1, rest], perm sub_perm): threaded over slabs */
  size_t outer, inner;
  yk_shape slab;
  int sub_perm[YK_MAX_RANK];
} yrt_exec_transpose;

YRT_EXEC_STATE_FITS(yrt_exec_transpose);
static inline yrt_exec_transpose *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_transpose, e); }

yrt_status yrt_check_transpose(const yrt_node_check *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (x->dtype != y->dtype || !yrt_same_qparams(x, y)) return yrt_node_fail(v, YRT_ERR_FORMAT, "input and output differ in dtype or quantization");
  if (x->rank != y->rank) return yrt_node_fail(v, YRT_ERR_SHAPE, "rank %u -> %u", (unsigned)x->rank, (unsigned)y->rank);
  int seen[YRT_MAX_RANK] = {0};
  for (uint32_t k = 0; k < x->rank; k++) {
    int32_t pk = v->n->p[k];
    if (pk < 0 || (uint32_t)pk >= x->rank || seen[pk]) return yrt_node_fail(v, YRT_ERR_FORMAT, "perm is not a permutation (p[%u] = %d)", (unsigned)k, (int)pk);
    seen[pk] = 1;
    if (y->dims[k] != x->dims[pk]) return yrt_node_fail(v, YRT_ERR_SHAPE, "output dim %u is %d, input dim %d is %d", (unsigned)k, (int)y->dims[k], (int)pk, (int)x->dims[pk]);
  }
  return yrt_require_per_tensor(v);
}

/* Slabs [lo, hi) of a transpose whose leading axes stay in place (attention heads): each slab
 * is the same transpose of its own contiguous block, in and out. */
static void transpose_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  const yrt_exec_transpose *t = st_of(e);
  yk_shape sh = t->slab;
  sh.d[0] = (int64_t)(hi - lo);
  const size_t off = lo * t->inner * e->esize;
  yk_transpose(&((const yrt_node_ctx *)ctx)->s->isa, (const uint8_t *)e->in[0] + off, &sh, (uint8_t *)e->out + off,
               t->sub_perm, e->esize);
}

yrt_status yrt_run_transpose(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_transpose *t = st_of(e);
  if (t->outer > 1) /* each thread moves its own heads: the next node's rows stay on it */
    yrt_run_par(s, e, transpose_range, t->outer, t->inner);
  else
    yk_transpose(&s->isa, e->in[0], &e->sh[0], e->out, t->perm, e->esize);
  return YRT_OK;
}

yrt_status yrt_prepare_transpose(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &s->model->tensors[n->in[0]];
  yrt_exec_transpose *t = st_of(e);
  for (uint32_t d = 0; d < YK_MAX_RANK; d++) t->perm[d] = d < x->rank ? n->p[d] : (int)d;
  /* p: leading axes in place; none, or all (a copy), or one slab: not split */
  uint32_t p = 0;
  while (p < x->rank && t->perm[p] == (int)p) p++;
  t->outer = p >= 1 && p < x->rank ? yrt_dims_product(x, 0, p) : 1;
  if (t->outer < 2) return YRT_OK;
  t->inner = yrt_dims_product(x, p, x->rank);
  t->slab.rank = (int)(x->rank - p) + 1;
  t->slab.d[0] = 1;
  for (uint32_t d = p; d < x->rank; d++) {
    t->slab.d[d - p + 1] = x->dims[d];
    t->sub_perm[d - p + 1] = t->perm[d] - (int)p + 1;
  }
  t->sub_perm[0] = 0;
  for (int d = t->slab.rank; d < YK_MAX_RANK; d++) t->sub_perm[d] = d;
  return YRT_OK;
}
