/* resize.c — YRT_OP_RESIZE_NEAREST: nearest Resize (an int8 requantization table folded in when given), in one room: its check (the validator calls it
 * through the row), its prepare and run (the row in op_table.c points here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "resize.h"
#include "kernel_kinds.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

typedef struct yrt_exec_resize {
  int n, h, w, c, oh, ow;
  float sh, sw;
  size_t ys;          /* output pixel stride in elements (a Concat's view: its holder's C) */
  const int8_t *lut;  /* int8 with a second input: the requantization table folded in, else NULL */
} yrt_exec_resize;

YRT_EXEC_STATE_FITS(yrt_exec_resize);
static inline yrt_exec_resize *st_of(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_resize, e); }

yrt_status yrt_check_resize(const yrt_node_check *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (v->n->n_in > 1) { /* int8 with a requantization table: any two grids */
    const yrt_tensor_rec *t = yrt_node_in(v, 1);
    if (x->dtype != YRT_I8 || y->dtype != YRT_I8 || x->dims[0] != 1)
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "a table needs int8 input and output, batch 1");
    if (t->kind != YRT_TENSOR_CONST || t->dtype != YRT_I8 || yrt_tensor_numel(t) != 256)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "table is not a constant of 256 int8");
  } else if (x->dtype != y->dtype || !yrt_same_qparams(x, y)) {
    return yrt_node_fail(v, YRT_ERR_FORMAT, "input and output differ in dtype or quantization");
  }
  if (x->rank != 4 || y->rank != 4 || x->dims[0] != y->dims[0] || x->dims[3] != y->dims[3])
    return yrt_node_fail(v, YRT_ERR_SHAPE, "needs NHWC rank 4 with equal N and C");
  if (v->n->p[0] != 0 || v->n->p[1] != 0)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "nearest mode %d / coordinate mode %d (only floor / asymmetric)", (int)v->n->p[0], (int)v->n->p[1]);
  for (int k = 0; k < 2; k++) {
    float s = v->n->f[k];
    if (!(isfinite(s) && s >= 1.0f / 1024 && s <= 1024.0f)) return yrt_node_fail(v, YRT_ERR_FORMAT, "scale f[%d] = %g", k, (double)s);
  }
  return yrt_require_per_tensor(v);
}

static void resize_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  const yrt_exec_resize *r = st_of(e);
  yk_resize_nearest_nhwc_rows(&t->s->isa, e->in[0], r->h, r->w, r->c, e->out, r->ys, r->oh, r->ow, r->sh, r->sw,
                              e->esize, r->lut, (int)lo, (int)hi);
}

yrt_status yrt_run_resize(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_resize *r = st_of(e);
  if (r->n == 1) {
    yrt_run_par(s, e, resize_range, (size_t)r->oh, (size_t)r->ow * (size_t)r->c);
    return YRT_OK;
  }
  yk_resize_nearest_nhwc(e->in[0], r->n, r->h, r->w, r->c, e->out, r->oh, r->ow, r->sh, r->sw, e->esize);
  return YRT_OK;
}

yrt_status yrt_prepare_resize(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &s->model->tensors[n->in[0]], *y = &s->model->tensors[n->out[0]];
  yrt_exec_resize *r = st_of(e);
  r->n = x->dims[0], r->h = x->dims[1], r->w = x->dims[2], r->c = x->dims[3];
  r->oh = y->dims[1], r->ow = y->dims[2];
  r->sh = n->f[0], r->sw = n->f[1];
  r->ys = yrt_pixel_stride(s->model, y);
  r->lut = n->n_in > 1 ? e->in[1] : NULL; /* validated: batch 1, a constant of 256 int8 */
  return YRT_OK;
}

/* The row's view_out: an int8 nearest resize of one image writes its output rows with any pixel
 * stride (its input, never a view, is read whole). */
int yrt_resize_view_out(const yrt_model *m, const yrt_node_rec *n) {
  return m->tensors[n->out[0]].dtype == YRT_I8 && m->tensors[n->in[0]].dims[0] == 1;
}
