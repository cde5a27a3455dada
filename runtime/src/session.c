/* session.c — the executor: a session's arena, threads and prepared nodes, the plans it runs,
 * inputs/outputs and node accessors. Each node is prepared, run and released through its kind's
 * row in the model's op table (op_def.h); no kind and no stage is named here: the pre/post stages
 * sit above (prepost/), and yrt_session_create there composes this executor with them. */
#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "cpu_count.h"
#include "mem.h"
#include "op_def.h"
#include "session_internal.h"
#include "session_par.h"
#include "caller_struct.h"

static void *tensor_ptr(const yrt_session *s, uint32_t t) {
  const yrt_tensor_rec *r = &s->model->tensors[t];
  if (r->kind == YRT_TENSOR_CONST) return (void *)(uintptr_t)yrt_tensor_const_data(s->model, r);
  return s->arena + r->offset;
}

static yrt_status prepare_node(yrt_session *s, uint32_t i, yrt_error *err) {
  const yrt_model *m = s->model;
  yrt_exec *e = &s->exec[i];
  const yrt_node_rec *n = &m->nodes[i];
  const yrt_tensor_rec *y = &m->tensors[n->out[0]];
  e->node = n;
  for (uint32_t k = 0; k < n->n_in; k++) e->in[k] = n->in[k] == YRT_NONE ? NULL : tensor_ptr(s, n->in[k]);
  e->out = tensor_ptr(s, n->out[0]);
  e->esize = yrt_dtype_size(y->dtype);
  e->numel = yrt_tensor_numel(y);
  for (uint32_t k = 0; k < 2 && k < n->n_in; k++) {
    if (n->in[k] == YRT_NONE) continue;
    yrt_shape_of(&m->tensors[n->in[k]], &e->sh[k]);
    e->q[k] = yrt_qparams_of(&m->tensors[n->in[k]]);
  }
  yrt_shape_of(y, &e->sh[2]);
  e->q[2] = yrt_qparams_of(y);
  const yrt_op_def *d = yrt_op_lookup(m->ops, n->op); /* validated: never NULL */
  e->run = d->run;
  return d->prepare ? d->prepare(s, e, err) : YRT_OK;
}

/* Outputs that are not plain f32 get a per-session buffer for their logical float copy. */
static yrt_status alloc_outputs(yrt_session *s, yrt_error *err) {
  const yrt_model *m = s->model;
  s->out_buf = yrt_zalloc(s->alloc, m->plan->n_outputs, sizeof *s->out_buf);
  if (!s->out_buf) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for output table");
  for (uint32_t k = 0; k < m->plan->n_outputs; k++) {
    const yrt_tensor_rec *t = &m->tensors[m->plan_outputs[k]];
    if (t->dtype == YRT_F32 && t->layout == YRT_LAYOUT_PLAIN) continue;
    s->out_buf[k] = yrt_alloc(s->alloc, yrt_tensor_numel(t) * sizeof(float));
    if (!s->out_buf[k]) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for output %u", (unsigned)k);
  }
  return YRT_OK;
}

void yrt_executor_free(yrt_session *s) {
  if (!s) return;
  if (s->exec)
    for (uint32_t i = 0; i < s->n_exec; i++) {
      yrt_exec *e = &s->exec[i];
      const yrt_op_def *d = e->node ? yrt_op_lookup(s->model->ops, e->node->op) : NULL;
      if (d && d->release) d->release(e);
    }
  yrt_free(s->exec);
  if (s->out_buf)
    for (uint32_t k = 0; k < s->model->plan->n_outputs; k++) yrt_free(s->out_buf[k]);
  yrt_free(s->out_buf);
  yrt_free(s->times);
  yrt_plan_free(&s->every);
  yrt_free(s->dynq);
  if (s->pool && s->pool_owned) pthreadpool_destroy(s->pool);
  yrt_thread_pool_destroy(s->par.own);
  yrt_free(s->arena_owned);
  yrt_free(s); /* last: a block of the caller's allocator (its header holds a copy of it) */
}

/* Copies the fields of the caller's options that its struct_size covers; the rest stay zero. */
static yrt_status read_options(const yrt_session_options *in, yrt_session_options *o, yrt_error *err) {
  return yrt_struct_read(in, in->struct_size, offsetof(yrt_session_options, struct_size), sizeof *o, o,
                         "yrt_session_create: options", err);
}

yrt_status yrt_executor_create(const yrt_model *model, const yrt_session_options *opts, const yk_isa *isa,
                               yrt_session **out, yrt_error *err) {
  if (!model || !out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_create: NULL argument");
  *out = NULL;
  yrt_session_options known;
  if (opts) { /* the caller's struct as this library knows it (struct_size: see yolort.h) */
    yrt_status ost = read_options(opts, &known, err);
    if (ost != YRT_OK) return ost;
    opts = &known;
  }
  const size_t need = yrt_model_arena_bytes(model);
  if (opts && opts->arena) {
    if ((uintptr_t)opts->arena % YRT_ALIGN != 0 || opts->arena_bytes < need)
      return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                           "yrt_session_create: caller arena %p of %zu bytes must be %u-aligned and hold %zu bytes",
                           opts->arena, opts->arena_bytes, YRT_ALIGN, need);
  }
  if (opts && opts->max_arena_bytes && need > opts->max_arena_bytes)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt_session_create: the model needs a %zu-byte arena, over the cap of %zu",
                         need, opts->max_arena_bytes);
  if (opts && (opts->num_threads < 0 || opts->num_threads > YRT_MAX_THREADS))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_create: num_threads = %d, must be in [0, %d]",
                         opts->num_threads, YRT_MAX_THREADS);
  if (opts && opts->thread_pool && opts->num_threads > 1)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_session_create: thread_pool and num_threads = %d both given (one or the other)",
                         opts->num_threads);
#if !YRT_HAVE_PTHREADPOOL
  if (opts && opts->thread_pool)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_session_create: thread_pool given, but this build has no pthreadpool "
                         "(YOLORT_PTHREADPOOL=OFF); use num_threads");
#endif
  const yrt_allocator *ua = opts ? opts->allocator : NULL;
  if (ua && (!ua->alloc || !ua->free))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_create: options.allocator without %s function",
                         ua->alloc ? "a free" : "an alloc");
  if (!ua) { /* a session with an allocator never uses XNNPACK (yolort.h): no xnn_initialize either */
    const int xs = yrt_xnn_init();
    if (xs != 0) return yrt_set_error(err, YRT_ERR_BACKEND, "yrt: xnn_initialize failed (%d)", xs);
  }

  yrt_session *s = yrt_zalloc(ua, 1, sizeof *s);
  if (!s) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the session");
  if (ua) {
    s->alloc_copy = *ua;
    s->alloc = &s->alloc_copy;
  }
  s->model = model;
  s->detect_conf = NAN; /* no yrt_session_detect running: every anchor decoded */
  if (isa) s->isa = *isa; /* a converter packing for a named target (model_prepack.c) */
  else yk_isa_detect(&s->isa);
  yrt_status st = YRT_OK;
  if (opts && opts->isa_cap && yk_isa_cap(&s->isa, opts->isa_cap) != 0) {
    st = yrt_set_error(err, YRT_ERR_INVALID_ARG,
                       "yrt_session_create: isa_cap \"%s\" is no ISA level of this CPU's architecture "
                       "(x86-64: avx2, avxvnni, avx512, avx512vnni, amx; ARM: neon, neondot; scalar)",
                       opts->isa_cap);
    goto fail;
  }
  if (opts && opts->arena) {
    s->arena = opts->arena;
    memset(s->arena, 0, need); /* see below */
  } else {
    s->arena_owned = yrt_alloc(s->alloc, need);
    if (!s->arena_owned) {
      st = yrt_set_error(err, YRT_ERR_NOMEM, "yrt: cannot allocate a %zu-byte arena", need);
      goto fail;
    }
    /* Once, at creation: XNNPACK's SIMD kernels read past a tensor's end inside the arena's
     * slack; zeroed bytes keep those reads deterministic (and memory checkers quiet). */
    memset(s->arena_owned, 0, need);
    s->arena = s->arena_owned;
  }
  if (opts && opts->thread_pool) {
    s->pool = opts->thread_pool; /* the caller's: not destroyed with the session */
    s->par.pp = s->pool;
    s->threads = (int)pthreadpool_get_threads_count(s->pool);
  } else {
    /* default and cap: the CPUs we may run on (more threads than cores only wait for a core) */
    const int cpus = yrt_cpu_count();
    s->threads = opts && opts->num_threads > 0 ? opts->num_threads : cpus;
    if (s->threads > cpus && !(opts && opts->oversubscribe)) s->threads = cpus;
    if (s->threads > 1 && !(s->par.own = yrt_thread_pool_create(s->threads, s->alloc))) {
      st = yrt_set_error(err, YRT_ERR_BACKEND, "yrt: cannot create a pool of %d threads", s->threads);
      goto fail;
    }
    if (s->threads < 1) s->threads = 1;
  }
  const size_t nn = model->n_nodes ? model->n_nodes : 1;
  s->exec = yrt_zalloc(s->alloc, nn, sizeof *s->exec);
  s->times = yrt_zalloc(s->alloc, nn, sizeof *s->times);
  s->every.owned = yrt_alloc(s->alloc, nn * sizeof *s->every.owned);
  if (!s->exec || !s->times || !s->every.owned) {
    st = yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for %u nodes", (unsigned)model->n_nodes);
    goto fail;
  }
  s->n_exec = model->n_nodes;
  for (uint32_t i = 0; i < model->n_nodes; i++) s->every.owned[i] = i;
  s->every.nodes = s->every.owned;
  s->every.n_nodes = model->n_nodes;
  s->plan = &s->every;
  { /* one int8 buffer for every dynamically quantized input (the row's dynq): they run one at a time */
    size_t dyn = 0;
    for (uint32_t i = 0; i < model->n_nodes; i++) {
      const yrt_op_def *d = yrt_op_lookup(model->ops, model->nodes[i].op);
      const size_t k = d && d->dynq ? d->dynq(model, &model->nodes[i]) : 0;
      dyn = k > dyn ? k : dyn;
    }
    if (dyn && !(s->dynq = yrt_alloc(s->alloc, (dyn + 2 * YRT_ALIGN) & ~(size_t)(YRT_ALIGN - 1)))) {
      st = yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for dynamic quantization");
      goto fail;
    }
  }
  for (uint32_t i = 0; i < model->n_nodes; i++)
    if ((st = prepare_node(s, i, err)) != YRT_OK) goto fail;
  if ((st = alloc_outputs(s, err)) != YRT_OK) goto fail;
  *out = s;
  return YRT_OK;
fail:
  yrt_executor_free(s);
  return st;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

yrt_status yrt_session_run(yrt_session *s, yrt_error *err) {
  if (!s) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_run: session is NULL");
  const yrt_status st = yrt_session_run_plan(s, s->plan, err);
  yrt_par_rest(s->pool);
  return st;
}

yrt_status yrt_session_run_plan(yrt_session *s, const yrt_plan *p, yrt_error *err) {
  yrt_status st = p->input ? p->input(s, p->input_ctx, err) : YRT_OK;
  if (st != YRT_OK) return st;
  for (uint32_t k = 0; k < p->n_nodes; k++) {
    const uint32_t i = p->nodes[k];
    const yrt_exec *e = &s->exec[i];
    if (atomic_exchange_explicit(&s->cancel, 0, memory_order_relaxed))
      return yrt_set_error(err, YRT_ERR_CANCELLED, "yrt_session_run: cancelled before node %u of %u", (unsigned)i,
                           (unsigned)s->n_exec);
    const uint64_t t0 = s->profiling ? now_ns() : 0;
    st = e->run(s, e, err);
    if (st != YRT_OK) return st;
    if (s->profiling) s->times[i] = now_ns() - t0;
  }
  return p->output ? p->output(s, p->output_ctx, err) : YRT_OK;
}

yrt_status yrt_plan_leave_out(const yrt_session *s, const yrt_plan *base, uint32_t node, yrt_plan *out,
                              yrt_error *err) {
  *out = *base;
  out->owned = yrt_alloc(s->alloc, (base->n_nodes ? base->n_nodes : 1) * sizeof *out->owned);
  if (!out->owned) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for a plan of %u nodes",
                                        (unsigned)base->n_nodes);
  uint32_t n = 0;
  for (uint32_t k = 0; k < base->n_nodes; k++)
    if (base->nodes[k] != node) out->owned[n++] = base->nodes[k];
  out->nodes = out->owned;
  out->n_nodes = n;
  return YRT_OK;
}

void yrt_plan_free(yrt_plan *p) {
  yrt_free(p->owned);
  p->owned = NULL;
  p->nodes = NULL;
  p->n_nodes = 0;
}

int yrt_session_num_threads(const yrt_session *s) { return s ? s->threads : 0; }

pthreadpool_t yrt_session_xnn_pool(yrt_session *s) {
  if (!s->pool && !s->alloc && s->par.own && (s->pool = pthreadpool_create((size_t)s->threads))) {
    s->pool_owned = 1;
    yrt_par_rest(s->pool); /* new workers start spinning: let them sleep until XNNPACK needs them */
  }
  return s->pool;
}

void yrt_session_cancel(yrt_session *s) {
  if (s) atomic_store_explicit(&s->cancel, 1, memory_order_relaxed);
}

yrt_status yrt_session_set_input(yrt_session *s, int index, const float *nchw, size_t count, yrt_error *err) {
  if (!s || !nchw) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_input: NULL argument");
  const yrt_model *m = s->model;
  if (index < 0 || (uint32_t)index >= m->plan->n_inputs)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_input: input %d of %u", index,
                         (unsigned)m->plan->n_inputs);
  const yrt_tensor_rec *t = &m->tensors[m->plan_inputs[index]];
  const size_t numel = yrt_tensor_numel(t);
  if (count != numel) /* refused: the input set before (a frame included) stays in effect */
    return yrt_set_error(err, YRT_ERR_SHAPE, "yrt_session_set_input: %zu values for input %d of %zu", count, index,
                         numel);
  s->plan = &s->every; /* the float input is written again: every node runs */
  float *dst = (float *)(void *)(s->arena + t->offset);
  if (t->layout != YRT_LAYOUT_NHWC) {
    memcpy(dst, nchw, numel * sizeof(float));
    return YRT_OK;
  }
  const size_t n = (size_t)t->dims[0], h = (size_t)t->dims[1], w = (size_t)t->dims[2], c = (size_t)t->dims[3];
  for (size_t b = 0; b < n; b++)
    for (size_t ch = 0; ch < c; ch++) {
      const float *src = nchw + (b * c + ch) * h * w;
      float *d = dst + b * h * w * c + ch;
      for (size_t i = 0; i < h * w; i++) d[i * c] = src[i];
    }
  return YRT_OK;
}

float *yrt_session_input_nhwc(yrt_session *s, int index) {
  if (!s || index < 0 || (uint32_t)index >= s->model->plan->n_inputs) return NULL;
  s->plan = &s->every; /* the caller writes the float input: every node runs */
  const yrt_tensor_rec *t = &s->model->tensors[s->model->plan_inputs[index]];
  if (t->layout != YRT_LAYOUT_NHWC) return NULL;
  return (float *)(void *)(s->arena + t->offset);
}

size_t yrt_session_input_count(const yrt_session *s, int index) {
  if (!s || index < 0 || (uint32_t)index >= s->model->plan->n_inputs) return 0;
  const yrt_tensor_rec *t = &s->model->tensors[s->model->plan_inputs[index]];
  if (t->layout != YRT_LAYOUT_NHWC || t->dtype != YRT_F32) return 0;
  size_t n = 1;
  for (uint32_t d = 0; d < t->rank; d++) n *= (size_t)t->dims[d];
  return n;
}

static yrt_status output_view(yrt_session *s, int index, yrt_tensor_view *view, yrt_error *err) {
  const yrt_model *m = s->model;
  if (index < 0 || (uint32_t)index >= m->plan->n_outputs)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_output: output %d of %u", index,
                         (unsigned)m->plan->n_outputs);
  const yrt_tensor_rec *t = &m->tensors[m->plan_outputs[index]];
  const void *src = s->arena + t->offset;
  const size_t numel = yrt_tensor_numel(t);
  memset(view, 0, sizeof *view);
  view->rank = (int)t->rank;
  view->count = numel;
  for (uint32_t d = 0; d < t->rank; d++) view->dims[d] = t->dims[d];
  float *buf = s->out_buf[index];
  if (!buf) {
    view->data = (float *)(uintptr_t)src;
    return YRT_OK;
  }
  /* I8 -> float first (into buf), then NHWC -> NCHW if needed (in buf via a second pass). */
  const float *f = src;
  if (t->dtype == YRT_I8) {
    const int8_t *q = src;
    if (t->layout != YRT_LAYOUT_NHWC) {
      for (size_t i = 0; i < numel; i++) buf[i] = ((float)q[i] - (float)t->zero_point) * t->scale;
      view->data = buf;
      return YRT_OK;
    }
  }
  const size_t n = (size_t)t->dims[0], h = (size_t)t->dims[1], w = (size_t)t->dims[2], c = (size_t)t->dims[3];
  for (size_t b = 0; b < n; b++)
    for (size_t i = 0; i < h * w; i++)
      for (size_t ch = 0; ch < c; ch++) {
        const size_t from = (b * h * w + i) * c + ch, to = (b * c + ch) * h * w + i;
        buf[to] = t->dtype == YRT_I8 ? ((float)((const int8_t *)src)[from] - (float)t->zero_point) * t->scale
                                     : f[from];
      }
  view->dims[1] = (int)c;
  view->dims[2] = (int)h;
  view->dims[3] = (int)w;
  view->data = buf;
  return YRT_OK;
}

/* yrt_tensor_view is growable: the caller's size says how much of it to write (caller_struct.h). */
yrt_status yrt_session_output_sized(yrt_session *s, int index, yrt_tensor_view *out, size_t out_size, yrt_error *err) {
  if (!s || !out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_output: NULL argument");
  yrt_tensor_view v;
  const yrt_status st = output_view(s, index, &v, err);
  return st ? st : yrt_struct_write(out, out_size, &v, sizeof v, YRT_TENSOR_VIEW_V1_SIZE, "yrt_session_output", err);
}

yrt_status yrt_session_output(yrt_session *s, int index, yrt_tensor_view *view, yrt_error *err) {
  return yrt_session_output_sized(s, index, view, YRT_TENSOR_VIEW_V1_SIZE, err);
}

void yrt_session_set_profiling(yrt_session *s, int enable) {
  if (s) s->profiling = enable != 0;
}

int yrt_session_node_times(const yrt_session *s, uint64_t *ns, int n) {
  if (!s) return 0;
  for (int i = 0; i < n && ns && (uint32_t)i < s->n_exec; i++) ns[i] = s->times[i];
  return (int)s->n_exec;
}

const char *yrt_session_node_kind(const yrt_session *s, int i) {
  if (!s || i < 0 || (uint32_t)i >= s->n_exec) return NULL;
  const yrt_node_rec *n = s->exec[i].node;
  const yrt_op_def *d = yrt_op_lookup(s->model->ops, n->op);
  const char *special = d && d->kind ? d->kind(s->model, n) : NULL;
  return special ? special : yrt_op_table_kind_name(s->model->ops, n->op, s->model->tensors[n->out[0]].dtype);
}

const char *yrt_session_node_name(const yrt_session *s, int i) {
  if (!s || i < 0 || (uint32_t)i >= s->n_exec) return NULL;
  return yrt_model_string(s->model, s->exec[i].node->name);
}
