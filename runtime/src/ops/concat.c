/* concat.c — YRT_OP_CONCAT: Concat along one axis, f32 or int8 (inputs requantized to the
 * output's parameters), in one room: its check (the validator calls it through the row), its
 * prepare and run (the row in op_table.c points here). Inputs that are views of the output at
 * their slot (model_validate_views.c) are already in place: nothing to copy. */
#include "concat.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

/* Inputs by their run along the axis: elements each, quantization, and whether already in place. */
typedef struct yrt_exec_concat {
  size_t outer;
  size_t inner[YRT_MAX_NODE_IO];
  yk_qparams qx[YRT_MAX_NODE_IO];
  uint8_t in_place[YRT_MAX_NODE_IO]; /* slot already written by its producer (a view) */
  int n;
} yrt_exec_concat;

YRT_EXEC_STATE_FITS(yrt_exec_concat);
static inline yrt_exec_concat *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_concat, e); }

yrt_status yrt_check_concat(const yrt_node_check *v) {
  const yrt_tensor_rec *y = yrt_node_out(v, 0);
  const int32_t axis = v->n->p[0];
  if (y->dtype != YRT_F32 && y->dtype != YRT_I8) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "dtype %u", (unsigned)y->dtype);
  if (axis < 0 || (uint32_t)axis >= y->rank) return yrt_node_fail(v, YRT_ERR_FORMAT, "axis %d for rank %u", (int)axis, (unsigned)y->rank);
  int64_t sum = 0;
  for (uint32_t k = 0; k < v->n->n_in; k++) {
    const yrt_tensor_rec *x = yrt_node_in(v, (int)k);
    if (x->dtype != y->dtype || x->rank != y->rank) return yrt_node_fail(v, YRT_ERR_SHAPE, "input %u differs in dtype or rank", (unsigned)k);
    for (uint32_t d = 0; d < y->rank; d++)
      if ((int32_t)d != axis && x->dims[d] != y->dims[d])
        return yrt_node_fail(v, YRT_ERR_SHAPE, "input %u axis %u is %d, output %d", (unsigned)k, (unsigned)d, (int)x->dims[d],
                   (int)y->dims[d]);
    sum += x->dims[axis];
  }
  if (sum != y->dims[axis]) return yrt_node_fail(v, YRT_ERR_SHAPE, "inputs add up to %lld on axis %d, output has %d", (long long)sum, (int)axis, (int)y->dims[axis]);
  return yrt_require_per_tensor(v);
}

/* Rows [lo, hi) of the outer loop of a concat. */
static void concat_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_session *s = ((const yrt_node_ctx *)ctx)->s;
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  const yrt_exec_concat *c = st_of(e);
  const void *in[YRT_MAX_NODE_IO];
  size_t total = 0;
  for (int k = 0; k < c->n; k++) {
    in[k] = c->in_place[k] ? NULL : (const uint8_t *)e->in[k] + lo * c->inner[k] * e->esize;
    total += c->inner[k];
  }
  void *out = (uint8_t *)e->out + lo * total * e->esize;
  if (e->esize == 1)
    yk_concat_i8(&s->isa, (const int8_t *const *)in, c->qx, c->inner, c->n, hi - lo, out, e->q[2]);
  else
    yk_concat(in, c->inner, c->n, hi - lo, out, e->esize);
}

yrt_status yrt_run_concat(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_concat *c = st_of(e);
  size_t row = 0;
  for (int k = 0; k < c->n; k++) row += c->inner[k];
  yrt_run_par_out(s, e, concat_range, c->outer, row);
  return YRT_OK;
}

yrt_status yrt_prepare_concat(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *y = &m->tensors[n->out[0]];
  yrt_exec_concat *c = st_of(e);
  const uint32_t axis = (uint32_t)n->p[0];
  c->n = (int)n->n_in;
  c->outer = yrt_dims_product(y, 0, axis);
  int copies = 0;
  for (uint32_t k = 0; k < n->n_in; k++) {
    const yrt_tensor_rec *t = &m->tensors[n->in[k]];
    c->inner[k] = yrt_dims_product(t, axis, t->rank);
    c->qx[k] = yrt_qparams_of(t);
    c->in_place[k] = (uint8_t)yrt_concat_slot_in_place(m, n, k);
    copies += !c->in_place[k];
  }
  if (!copies) e->run = yrt_run_nothing;
  return YRT_OK;
}

int yrt_publish_range_concat(yrt_exec *e) { return yrt_publish_when_run_by(e, yrt_run_concat); }

/* The row's view_in and in_place: input k is a view of the node's output at its slot (a
 * channel concat): nothing to copy. */
int yrt_concat_slot_in_place(const yrt_model *m, const yrt_node_rec *n, uint32_t k) {
  if (k >= n->n_in || n->p[0] != 3) return 0;
  const yrt_tensor_rec *x = &m->tensors[n->in[k]];
  if (!yrt_is_view(x) || x->view_holder - 1 != n->out[0]) return 0;
  int64_t off = 0;
  for (uint32_t j = 0; j < k; j++) off += m->tensors[n->in[j]].dims[3];
  return off == (int64_t)x->view_channel;
}
