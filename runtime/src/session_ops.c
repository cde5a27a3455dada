/* session_ops.c — every non-conv node: shapes and parameters worked out once from the validated
 * records, then a runner that only calls the yk_* kernel. */
#include <stdlib.h>
#include <string.h>

#include "kernel_kinds.h"
#include "session_internal.h"


typedef struct par_task {
  const yrt_session *s;
  const yrt_exec *e;
  size_t n, chunk; /* flat ops: elements; concat: outer rows */
} par_task;

/* Range [lo, hi) of a flat element-wise node. */
static void flat_range(const yrt_session *s, const yrt_exec *e, size_t lo, size_t hi) {
  const size_t n = hi - lo;
  switch (e->node->op) {
    case YRT_OP_UNARY:
      yk_unary_f32(&s->isa, e->node->p[0], e->node->f[0], (const float *)e->in[0] + lo, (float *)e->out + lo, n);
      break;
    case YRT_OP_LUT:
      yk_lut_i8(&s->isa, (const int8_t *)e->in[0] + lo, (int8_t *)e->out + lo, n, e->in[1]);
      break;
    case YRT_OP_QUANTIZE:
      yk_quantize_f32_i8(&s->isa, (const float *)e->in[0] + lo, (int8_t *)e->out + lo, n, e->q[2].scale,
                         e->q[2].zero_point);
      break;
    case YRT_OP_DEQUANTIZE:
      yk_dequantize_i8_f32(&s->isa, (const int8_t *)e->in[0] + lo, (float *)e->out + lo, n, e->q[0].scale,
                           e->q[0].zero_point);
      break;
    default:
      break;
  }
}

/* Rows [lo, hi) of the outer loop of a concat. */
static void concat_range(const yrt_session *s, const yrt_exec *e, size_t lo, size_t hi) {
  const yrt_exec_concat *c = &e->u.concat;
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

/* Rows [lo, hi) of axis 1 of a slice whose output has a leading dim of 1 (an NHWC Split). */
static void slice_range(const yrt_exec *e, size_t lo, size_t hi) {
  int64_t starts[YK_MAX_RANK];
  memcpy(starts, e->u.slice.starts, sizeof starts);
  starts[1] += (int64_t)lo * e->u.slice.steps[1];
  yk_shape so = e->sh[2];
  so.d[1] = (int64_t)(hi - lo);
  size_t row = 1;
  for (int d = 2; d < so.rank; d++) row *= (size_t)so.d[d];
  yk_slice(e->in[0], &e->sh[0], (uint8_t *)e->out + lo * row * e->esize, &so, starts, e->u.slice.steps,
           e->esize);
}

/* Rows [lo, hi) of the batch * M output rows of a matmul: rows are independent (each output
 * lane sums over k in the same order however M is split), so threading is bit-exact. */
static void matmul_range(const yrt_session *s, const yrt_exec *e, size_t lo, size_t hi) {
  const yrt_exec_matmul *mm = &e->u.matmul;
  while (lo < hi) {
    const size_t bt = lo / mm->m, r0 = lo % mm->m;
    const size_t rows = hi - lo < mm->m - r0 ? hi - lo : mm->m - r0;
    yk_matmul_f32(&s->isa, (const float *)e->in[0] + bt * mm->a_stride + r0 * mm->k,
                  (const float *)e->in[1] + bt * mm->b_stride, (float *)e->out + (bt * mm->m + r0) * mm->n, 1,
                  0, 0, rows, mm->k, mm->n);
    lo += rows;
  }
}

/* Outer slices [lo, hi) of a softmax. */
static void softmax_range(const yrt_session *s, const yrt_exec *e, size_t lo, size_t hi) {
  const size_t slice = e->u.softmax.len * e->u.softmax.inner;
  yk_softmax_f32(&s->isa, (const float *)e->in[0] + lo * slice, (float *)e->out + lo * slice, hi - lo,
                 e->u.softmax.len, e->u.softmax.inner);
}

/* Rows [lo, hi) of axis 1 of a binary node (output [1, R, ...]): an input with R rows is
 * offset, one broadcasting along axis 1 (dim 1) is read whole. */
static void binary_range(const yrt_session *s, const yrt_exec *e, size_t lo, size_t hi) {
  yk_shape sh[3] = {e->sh[0], e->sh[1], e->sh[2]};
  const void *in[2];
  void *out = NULL;
  for (int k = 0; k < 3; k++) {
    size_t row = 1;
    for (int d = 2; d < sh[k].rank; d++) row *= (size_t)sh[k].d[d];
    const size_t off = sh[k].d[1] == 1 ? 0 : lo * row * e->esize;
    if (sh[k].d[1] != 1 || k == 2) sh[k].d[1] = (int64_t)(hi - lo);
    if (k < 2) in[k] = (const uint8_t *)e->in[k] + off;
    else out = (uint8_t *)e->out + off;
  }
  if (e->esize == 1)
    yk_binary_i8(&s->isa, e->node->p[0], in[0], &sh[0], e->q[0], in[1], &sh[1], e->q[1], out, &sh[2],
                 e->q[2]);
  else
    yk_binary_f32(&s->isa, e->node->p[0], in[0], &sh[0], in[1], &sh[1], out, &sh[2]);
}

static void par_fn(void *ctx, size_t i) {
  const par_task *t = ctx;
  const size_t lo = i * t->chunk, hi = lo + t->chunk < t->n ? lo + t->chunk : t->n;
  switch (t->e->node->op) {
    case YRT_OP_CONCAT: concat_range(t->s, t->e, lo, hi); break;
    case YRT_OP_SLICE: slice_range(t->e, lo, hi); break;
    case YRT_OP_MATMUL: matmul_range(t->s, t->e, lo, hi); break;
    case YRT_OP_SOFTMAX: softmax_range(t->s, t->e, lo, hi); break;
    case YRT_OP_BINARY: binary_range(t->s, t->e, lo, hi); break;
    default: flat_range(t->s, t->e, lo, hi); break;
  }
}

/* Run n units (elements or rows of unit_elems elements) in parallel when it pays. */
static void run_par(const yrt_session *s, const yrt_exec *e, size_t n, size_t unit_elems) {
  const size_t threads = s->pool ? pthreadpool_get_threads_count(s->pool) : 1;
  if (threads < 2 || n < 2 || n * unit_elems < 2 * YRT_PAR_MIN_ELEMS) {
    par_task t = {s, e, n, n};
    par_fn(&t, 0);
    return;
  }
  size_t tasks = 4 * threads;
  size_t chunk = (n + tasks - 1) / tasks;
  if (chunk * unit_elems < YRT_PAR_MIN_ELEMS / 4) chunk = (YRT_PAR_MIN_ELEMS / 4 + unit_elems - 1) / unit_elems;
  if (unit_elems == 1) chunk = (chunk + 63) & ~(size_t)63; /* flat ops: whole SIMD blocks */
  par_task t = {s, e, n, chunk};
  pthreadpool_parallelize_1d(s->pool, par_fn, &t, (n + chunk - 1) / chunk, 0);
}

static yrt_status run_binary(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yk_shape *so = &e->sh[2];
  if (so->rank >= 3 && so->d[0] == 1 && so->d[1] > 1) {
    run_par(s, e, (size_t)so->d[1], e->numel / (size_t)so->d[1]);
    return YRT_OK;
  }
  binary_range(s, e, 0, so->rank >= 2 ? (size_t)so->d[1] : 1);
  return YRT_OK;
}

static yrt_status run_unary(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  run_par(s, e, e->numel, 1);
  return YRT_OK;
}

static yrt_status run_lut(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  run_par(s, e, e->numel, 1);
  return YRT_OK;
}

static yrt_status run_concat(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_concat *c = &e->u.concat;
  size_t row = 0;
  for (int k = 0; k < c->n; k++) row += c->inner[k];
  run_par(s, e, c->outer, row);
  return YRT_OK;
}

/* A node that is already done: an in-place slice, a concat whose inputs all are views. */
static yrt_status run_nothing(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)e, (void)err;
  return YRT_OK;
}

static yrt_status run_slice(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yk_shape *so = &e->sh[2];
  if (so->rank >= 3 && so->d[0] == 1 && so->d[1] > 1) {
    run_par(s, e, (size_t)so->d[1], e->numel / (size_t)so->d[1]);
    return YRT_OK;
  }
  yk_slice(e->in[0], &e->sh[0], e->out, &e->sh[2], e->u.slice.starts, e->u.slice.steps, e->esize);
  return YRT_OK;
}

static yrt_status run_transpose(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  yk_transpose(e->in[0], &e->sh[0], e->out, e->u.transpose.perm, e->esize);
  return YRT_OK;
}

static yrt_status run_reshape(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  memcpy(e->out, e->in[0], e->numel * e->esize); /* never overlapping (memory plan check) */
  return YRT_OK;
}

static yrt_status run_maxpool(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_pool *p = &e->u.pool;
  if (e->esize == 1)
    yk_maxpool_nhwc_i8(&s->isa, e->in[0], p->n, p->h, p->w, p->c, e->out, p->oh, p->ow, &p->p);
  else
    yk_maxpool_nhwc_f32(&s->isa, e->in[0], p->n, p->h, p->w, p->c, e->out, p->oh, p->ow, &p->p);
  return YRT_OK;
}

static yrt_status run_resize(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  const yrt_exec_resize *r = &e->u.resize;
  yk_resize_nearest_nhwc(e->in[0], r->n, r->h, r->w, r->c, e->out, r->oh, r->ow, r->sh, r->sw, e->esize);
  return YRT_OK;
}

static yrt_status run_matmul(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_matmul *mm = &e->u.matmul;
  run_par(s, e, mm->batch * mm->m, mm->n * mm->k); /* weigh rows by their work, k MACs per output */
  return YRT_OK;
}

static yrt_status run_softmax(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  run_par(s, e, e->u.softmax.outer, e->u.softmax.len * e->u.softmax.inner);
  return YRT_OK;
}

static yrt_status run_quantize(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  run_par(s, e, e->numel, 1);
  return YRT_OK;
}

static yrt_status run_dequantize(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  run_par(s, e, e->numel, 1);
  return YRT_OK;
}

static yrt_status run_gather(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  yk_gather(e->in[0], &e->sh[0], e->u.gather.axis, e->u.gather.idx, e->u.gather.n_idx, e->out, e->esize);
  return YRT_OK;
}

/* Product of dims [from, to) of t. */
static size_t dims_product(const yrt_tensor_rec *t, uint32_t from, uint32_t to) {
  size_t p = 1;
  for (uint32_t d = from; d < to && d < t->rank; d++) p *= (size_t)t->dims[d];
  return p;
}

yrt_status yrt_exec_prepare_op(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &m->tensors[n->in[0]], *y = &m->tensors[n->out[0]];
  switch ((enum yrt_op)n->op) {
    case YRT_OP_BINARY: e->run = run_binary; break;
    case YRT_OP_UNARY: e->run = run_unary; break;
    case YRT_OP_LUT: e->run = run_lut; break;
    case YRT_OP_CONCAT: {
      e->run = run_concat;
      yrt_exec_concat *c = &e->u.concat;
      const uint32_t axis = (uint32_t)n->p[0];
      c->n = (int)n->n_in;
      c->outer = dims_product(y, 0, axis);
      int copies = 0;
      for (uint32_t k = 0; k < n->n_in; k++) {
        const yrt_tensor_rec *t = &m->tensors[n->in[k]];
        c->inner[k] = dims_product(t, axis, t->rank);
        c->qx[k] = yrt_qparams_of(t);
        c->in_place[k] = (uint8_t)yrt_concat_slot_in_place(m, n, k);
        copies += !c->in_place[k];
      }
      if (!copies) e->run = run_nothing;
      break;
    }
    case YRT_OP_SLICE:
      e->run = yrt_slice_is_in_place(m, n) ? run_nothing : run_slice;
      for (uint32_t d = 0; d < YK_MAX_RANK; d++) {
        e->u.slice.starts[d] = d < x->rank ? n->p[d] : 0;
        e->u.slice.steps[d] = d < x->rank ? n->p[6 + d] : 1;
      }
      if (yrt_is_view(x)) { /* slice the holder: same elements, its shape and strides */
        const yrt_tensor_rec *h = &m->tensors[x->view_holder - 1];
        yrt_shape_of(h, &e->sh[0]);
        e->in[0] = s->arena + h->offset;
        e->u.slice.starts[3] += x->view_channel;
      }
      break;
    case YRT_OP_TRANSPOSE:
      e->run = run_transpose;
      for (uint32_t d = 0; d < YK_MAX_RANK; d++) e->u.transpose.perm[d] = d < x->rank ? n->p[d] : (int)d;
      break;
    case YRT_OP_RESHAPE: e->run = run_reshape; break;
    case YRT_OP_MAXPOOL: {
      e->run = run_maxpool;
      yrt_exec_pool *p = &e->u.pool;
      const int32_t *q = n->p;
      yk_pool_params pp = {q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9]};
      p->p = pp;
      p->n = x->dims[0], p->h = x->dims[1], p->w = x->dims[2], p->c = x->dims[3];
      p->oh = y->dims[1], p->ow = y->dims[2];
      break;
    }
    case YRT_OP_RESIZE_NEAREST: {
      e->run = run_resize;
      yrt_exec_resize *r = &e->u.resize;
      r->n = x->dims[0], r->h = x->dims[1], r->w = x->dims[2], r->c = x->dims[3];
      r->oh = y->dims[1], r->ow = y->dims[2];
      r->sh = n->f[0], r->sw = n->f[1];
      break;
    }
    case YRT_OP_MATMUL: {
      e->run = run_matmul;
      const yrt_tensor_rec *b = &m->tensors[n->in[1]];
      yrt_exec_matmul *mm = &e->u.matmul;
      const uint32_t r = y->rank;
      mm->m = (size_t)x->dims[r - 2];
      mm->k = (size_t)x->dims[r - 1];
      mm->n = (size_t)b->dims[r - 1];
      mm->batch = dims_product(y, 0, r - 2);
      mm->a_stride = dims_product(x, 0, r - 2) == 1 && mm->batch > 1 ? 0 : mm->m * mm->k;
      mm->b_stride = dims_product(b, 0, r - 2) == 1 && mm->batch > 1 ? 0 : mm->k * mm->n;
      break;
    }
    case YRT_OP_SOFTMAX: {
      e->run = run_softmax;
      const uint32_t axis = (uint32_t)n->p[0];
      e->u.softmax.outer = dims_product(x, 0, axis);
      e->u.softmax.len = (size_t)x->dims[axis];
      e->u.softmax.inner = dims_product(x, axis + 1, x->rank);
      break;
    }
    case YRT_OP_QUANTIZE: e->run = run_quantize; break;
    case YRT_OP_DEQUANTIZE: e->run = run_dequantize; break;
    case YRT_OP_GATHER: {
      e->run = run_gather;
      const yrt_tensor_rec *ix = &m->tensors[n->in[1]];
      e->u.gather.axis = n->p[0];
      e->u.gather.idx = yrt_tensor_const_data(m, ix);
      e->u.gather.n_idx = yrt_tensor_numel(ix);
      break;
    }
    case YRT_OP_CONV2D:
    case YRT_OP_DETECT_DECODE: /* session_conv.c, session_detect.c */
    case YRT_OP_COUNT_:
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: op %u has no executor", (unsigned)n->op);
  }
  return YRT_OK;
}

void yrt_exec_release(yrt_exec *e) {
  if (!e->node || e->node->op != YRT_OP_CONV2D) return;
  yrt_exec_conv *c = &e->u.conv;
  if (c->op) xnn_delete_operator(c->op);
  free(c->requant);
  free(c->kscale);
  free(c->zero_bias);
  if (c->own == 1) free(c->qc.packed);
  free(c->dw_w);
  c->dw_w = NULL;
  c->own = 0;
  c->op = NULL;
  c->requant = c->kscale = NULL;
  c->zero_bias = NULL;
}
