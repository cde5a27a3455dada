/* slice.c — YRT_OP_SLICE: a strided Slice (an NHWC Split's part), in one room: its check (the
 * validator calls it through the row), its prepare and run (the row in op_table.c points
 * here). A slice whose output is a view at the place it would copy to is a no-op; one reading
 * a view slices the view's holder. */
#include <string.h>

#include "slice.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

typedef struct yrt_exec_slice {
  int64_t starts[YK_MAX_RANK], steps[YK_MAX_RANK];
} yrt_exec_slice;

YRT_EXEC_STATE_FITS(yrt_exec_slice);
static inline yrt_exec_slice *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_slice, e); }

yrt_status yrt_check_slice(const yrt_node_check *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (x->dtype != y->dtype || !yrt_same_qparams(x, y)) return yrt_node_fail(v, YRT_ERR_FORMAT, "input and output differ in dtype or quantization");
  if (x->rank != y->rank) return yrt_node_fail(v, YRT_ERR_SHAPE, "rank %u -> %u", (unsigned)x->rank, (unsigned)y->rank);
  for (uint32_t d = 0; d < x->rank; d++) {
    const int64_t start = v->n->p[d], step = v->n->p[6 + d], len = x->dims[d];
    const int64_t last = start + (int64_t)(y->dims[d] - 1) * step;
    if (step == 0 || start < 0 || start >= len || last < 0 || last >= len)
      return yrt_node_fail(v, YRT_ERR_SHAPE, "axis %u: start %lld step %lld count %d leaves [0, %lld)", (unsigned)d,
                 (long long)start, (long long)step, (int)y->dims[d], (long long)len);
  }
  return yrt_require_per_tensor(v);
}

/* Rows [lo, hi) of axis 1 of a slice whose output has a leading dim of 1 (an NHWC Split). */
static void slice_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  int64_t starts[YK_MAX_RANK];
  memcpy(starts, st_of(e)->starts, sizeof starts);
  starts[1] += (int64_t)lo * st_of(e)->steps[1];
  yk_shape so = e->sh[2];
  so.d[1] = (int64_t)(hi - lo);
  size_t row = 1;
  for (int d = 2; d < so.rank; d++) row *= (size_t)so.d[d];
  yk_slice(e->in[0], &e->sh[0], (uint8_t *)e->out + lo * row * e->esize, &so, starts, st_of(e)->steps,
           e->esize);
}

yrt_status yrt_run_slice(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yk_shape *so = &e->sh[2];
  if (so->rank >= 3 && so->d[0] == 1 && so->d[1] > 1) {
    yrt_run_par_out(s, e, slice_range, (size_t)so->d[1], e->numel / (size_t)so->d[1]);
    return YRT_OK;
  }
  yk_slice(e->in[0], &e->sh[0], e->out, &e->sh[2], st_of(e)->starts, st_of(e)->steps, e->esize);
  yrt_measure_out(s, e);
  return YRT_OK;
}

yrt_status yrt_prepare_slice(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &m->tensors[n->in[0]];
  if (yrt_slice_is_in_place(m, n)) e->run = yrt_run_nothing;
  for (uint32_t d = 0; d < YK_MAX_RANK; d++) {
    st_of(e)->starts[d] = d < x->rank ? n->p[d] : 0;
    st_of(e)->steps[d] = d < x->rank ? n->p[6 + d] : 1;
  }
  if (yrt_is_view(x)) { /* slice the holder: same elements, its shape and strides */
    const yrt_tensor_rec *h = &m->tensors[x->view_holder - 1];
    yrt_shape_of(h, &e->sh[0]);
    e->in[0] = s->arena + h->offset;
    st_of(e)->starts[3] += x->view_channel;
  }
  return YRT_OK;
}

int yrt_publish_range_slice(yrt_exec *e) { return yrt_publish_when_run_by(e, yrt_run_slice); }

/* ---- views (the row's view_in, view_out, in_place) */

/* First channel of t inside its root (0 when t is not a view). */
static uint32_t channel_base(const yrt_tensor_rec *t) { return t->view_holder ? t->view_channel : 0; }

/* The output is a view of the input's holder at the place the slice would copy it to (a channel
 * range, every other axis whole): running it copies nothing. */
int yrt_slice_is_in_place(const yrt_model *m, const yrt_node_rec *n) {
  const yrt_tensor_rec *x = &m->tensors[n->in[0]], *y = &m->tensors[n->out[0]];
  if (!yrt_is_view(y) || yrt_view_root(m, n->in[0]) != yrt_view_root(m, n->out[0]) || x->rank != 4) return 0;
  for (int d = 0; d < 4; d++)
    if (n->p[6 + d] != 1 || (d < 3 && (n->p[d] != 0 || x->dims[d] != y->dims[d]))) return 0;
  return (int64_t)y->view_channel == (int64_t)channel_base(x) + n->p[3];
}

/* Any input view: prepare slices the view's holder. */
int yrt_slice_view_in(const yrt_model *m, const yrt_node_rec *n, uint32_t k) {
  (void)m, (void)n;
  return k == 0;
}

int yrt_slice_in_place(const yrt_model *m, const yrt_node_rec *n, uint32_t k) {
  return k == 0 && yrt_slice_is_in_place(m, n);
}
