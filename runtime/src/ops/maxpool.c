/* maxpool.c — YRT_OP_MAXPOOL: NHWC max pooling, in one room: its check (the validator calls it
 * through the row), its prepare and run (the row in op_table.c points here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "maxpool.h"
#include "kernel_kinds.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

typedef struct yrt_exec_pool {
  yk_pool_params p;
  int n, h, w, c, oh, ow;
} yrt_exec_pool;

YRT_EXEC_STATE_FITS(yrt_exec_pool);
static inline yrt_exec_pool *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_pool, e); }

yrt_status yrt_check_maxpool(const yrt_node_check *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  const int32_t *p = v->n->p;
  if (x->dtype != y->dtype || (y->dtype != YRT_F32 && y->dtype != YRT_I8) || !yrt_same_qparams(x, y))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "input and output must be f32, or i8 with equal quantization");
  if (x->rank != 4 || y->rank != 4 || x->dims[0] != y->dims[0] || x->dims[3] != y->dims[3])
    return yrt_node_fail(v, YRT_ERR_SHAPE, "needs NHWC rank 4 with equal N and C");
  for (int k = 0; k < 2; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_KERNEL)) return yrt_node_fail(v, YRT_ERR_FORMAT, "kernel p[%d] = %d", k, (int)p[k]);
  for (int k = 2; k < 4; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_STRIDE)) return yrt_node_fail(v, YRT_ERR_FORMAT, "stride p[%d] = %d", k, (int)p[k]);
  for (int k = 8; k < 10; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_KERNEL)) return yrt_node_fail(v, YRT_ERR_FORMAT, "dilation p[%d] = %d", k, (int)p[k]);
  const int64_t eff_h = (int64_t)p[8] * (p[0] - 1) + 1, eff_w = (int64_t)p[9] * (p[1] - 1) + 1;
  /* Pads smaller than the window (as ONNX requires) keep every window on real data. */
  if (!yrt_range_ok(p[4], 0, YRT_MAX_PAD) || !yrt_range_ok(p[6], 0, YRT_MAX_PAD) || !yrt_range_ok(p[5], 0, YRT_MAX_PAD) ||
      !yrt_range_ok(p[7], 0, YRT_MAX_PAD) || p[4] >= eff_h || p[6] >= eff_h || p[5] >= eff_w || p[7] >= eff_w)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "pads %d,%d,%d,%d must be >= 0 and smaller than the window", (int)p[4], (int)p[5], (int)p[6], (int)p[7]);
  if (!yrt_window_ok(x->dims[1], p[0], p[2], p[4], p[6], p[8], y->dims[1]) ||
      !yrt_window_ok(x->dims[2], p[1], p[3], p[5], p[7], p[9], y->dims[2]))
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output %dx%d does not follow from input %dx%d and the window", (int)y->dims[1],
               (int)y->dims[2], (int)x->dims[1], (int)x->dims[2]);
  return yrt_require_per_tensor(v);
}

/* Output rows [lo, hi) of a max pool (one image): the input from the first row they read, the
 * top padding what is left of it above that row, so every window keeps its taps. */
static void maxpool_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_session *s = ((const yrt_node_ctx *)ctx)->s;
  const yrt_exec *e = ((const yrt_node_ctx *)ctx)->e;
  const yrt_exec_pool *p = st_of(e);
  yk_pool_params q = p->p;
  const int first = (int)lo * q.sh - q.pad_t, s0 = first > 0 ? first : 0;
  q.pad_t = -first + s0;
  const size_t in_off = (size_t)s0 * (size_t)p->w * (size_t)p->c, out_off = lo * (size_t)p->ow * (size_t)p->c;
  if (e->esize == 1)
    yk_maxpool_nhwc_i8(&s->isa, (const int8_t *)e->in[0] + in_off, 1, p->h - s0, p->w, p->c,
                       (int8_t *)e->out + out_off, (int)(hi - lo), p->ow, &q);
  else
    yk_maxpool_nhwc_f32(&s->isa, (const float *)e->in[0] + in_off, 1, p->h - s0, p->w, p->c,
                        (float *)e->out + out_off, (int)(hi - lo), p->ow, &q);
}

yrt_status yrt_run_maxpool(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_pool *p = st_of(e);
  if (p->n == 1) {
    yrt_run_par(s, e, maxpool_range, (size_t)p->oh, (size_t)p->ow * (size_t)p->c);
    return YRT_OK;
  }
  if (e->esize == 1)
    yk_maxpool_nhwc_i8(&s->isa, e->in[0], p->n, p->h, p->w, p->c, e->out, p->oh, p->ow, &p->p);
  else
    yk_maxpool_nhwc_f32(&s->isa, e->in[0], p->n, p->h, p->w, p->c, e->out, p->oh, p->ow, &p->p);
  return YRT_OK;
}

yrt_status yrt_prepare_maxpool(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &s->model->tensors[n->in[0]], *y = &s->model->tensors[n->out[0]];
  yrt_exec_pool *p = st_of(e);
  const int32_t *q = n->p;
  yk_pool_params pp = {q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9]};
  p->p = pp;
  p->n = x->dims[0], p->h = x->dims[1], p->w = x->dims[2], p->c = x->dims[3];
  p->oh = y->dims[1], p->ow = y->dims[2];
  return YRT_OK;
}
