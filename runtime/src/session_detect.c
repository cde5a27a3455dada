/* session_detect.c — YRT_OP_DETECT_DECODE: the Detect head's decode as one node. Everything
 * but the decode itself is done at session creation: the kernel parameters, and the 256-entry
 * exp / sigmoid tables of int8 inputs. Runs threaded over anchors. */
#include <stdlib.h>

#include "session_internal.h"
#include "yk_detect.h"
#include "yk_inline.h"

/* Below this many output floats one thread does it all (waking the pool costs more). */
#define DETECT_PAR_MIN 65536
/* Tasks cover whole 64-byte lines of each output row. */
#define DETECT_ALIGN 16

typedef struct yrt_exec_detect {
  yk_detect_params p;
  float tables[2 * YK_DETECT_MAX_SCALES][256]; /* box exp / class sigmoid per scale */
  size_t chunk;                                /* anchors per pool task */
} yrt_exec_detect;

typedef struct detect_task {
  const yrt_session *s;
  const yrt_exec *e;
} detect_task;

static void detect_fn(void *ctx, size_t i) {
  const detect_task *t = ctx;
  const yrt_exec_detect *d = t->e->u.detect;
  const size_t lo = i * d->chunk, hi = lo + d->chunk < d->p.n_anchors ? lo + d->chunk : d->p.n_anchors;
  yk_detect_decode(&t->s->isa, &d->p, lo, hi, t->e->out);
}

static yrt_status run_detect(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_detect *d = e->u.detect;
  const size_t threads = s->pool ? pthreadpool_get_threads_count(s->pool) : 1;
  if (threads < 2 || e->numel < DETECT_PAR_MIN) {
    yk_detect_decode(&s->isa, &d->p, 0, d->p.n_anchors, e->out);
    return YRT_OK;
  }
  detect_task t = {s, e};
  pthreadpool_parallelize_1d(s->pool, detect_fn, &t, (d->p.n_anchors + d->chunk - 1) / d->chunk, 0);
  return YRT_OK;
}

yrt_status yrt_exec_prepare_detect(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  yrt_exec_detect *d = calloc(1, sizeof *d);
  if (!d) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for detect_decode node");
  e->u.detect = d;
  e->run = run_detect;
  const int ns = n->p[YRT_DETECT_P_SCALES]; /* all validated on load */
  yk_detect_params *p = &d->p;
  p->n_scales = ns;
  p->reg_max = n->p[YRT_DETECT_P_REG_MAX];
  p->nc = n->p[YRT_DETECT_P_CLASSES];
  p->xyxy = n->p[YRT_DETECT_P_XYXY];
  p->proj = e->in[2 * ns];
  size_t first = 0;
  for (int k = 0; k < ns; k++) {
    const yrt_tensor_rec *b = &m->tensors[n->in[k]], *c = &m->tensors[n->in[ns + k]];
    yk_detect_scale *sc = &p->s[k];
    sc->box = e->in[k];
    sc->cls = e->in[ns + k];
    sc->h = b->dims[1];
    sc->w = b->dims[2];
    sc->stride = (float)n->p[YRT_DETECT_P_STRIDE0 + k];
    sc->first = first;
    first += (size_t)sc->h * (size_t)sc->w;
    if (b->dtype == YRT_I8 && p->reg_max == 1) { /* distances without DFL: dequantize by table */
      for (int i = 0; i < 256; i++) d->tables[2 * k][i] = yk_dequantize1((int8_t)(i - 128), b->scale, b->zero_point);
      sc->box_exp = d->tables[2 * k];
    } else if (b->dtype == YRT_I8) {
      yk_detect_exp_table(b->scale, d->tables[2 * k]);
      sc->box_exp = d->tables[2 * k];
      sc->box_no_max = yk_detect_box_no_max(b->scale);
    }
    if (c->dtype == YRT_I8) {
      yk_detect_sigmoid_table(&s->isa, c->scale, c->zero_point, d->tables[2 * k + 1]);
      sc->cls_sig = d->tables[2 * k + 1];
    }
  }
  p->n_anchors = first;
  const size_t threads = s->pool ? pthreadpool_get_threads_count(s->pool) : 1;
  size_t chunk = (first + 4 * threads - 1) / (4 * threads);
  chunk = (chunk + DETECT_ALIGN - 1) / DETECT_ALIGN * DETECT_ALIGN;
  d->chunk = chunk ? chunk : DETECT_ALIGN;
  return YRT_OK;
}

void yrt_exec_release_detect(yrt_exec *e) {
  if (!e->node || e->node->op != YRT_OP_DETECT_DECODE) return;
  free(e->u.detect);
  e->u.detect = NULL;
}
