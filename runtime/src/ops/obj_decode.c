/* obj_decode.c — YRT_OP_OBJ_DECODE, the decode of objectness heads (YOLOv5 / YOLOv7 anchors,
 * YOLOX), in one room: its check, state, prepare, run and release (the row in op_table.c points
 * here). The int8 tables are made at session creation; a run decodes threaded over anchors into
 * the rows the Detect decode writes, so NMS and the detect API are shared. */
#include <math.h>
#include <stdlib.h>

#include "mem.h"
#include "obj_decode.h"
#include "op_check.h"
#include "yk_obj_decode.h"
#include "session_internal.h"
#include "session_par.h"

_Static_assert(YK_OBJ_MAX_SCALES == YRT_OBJ_MAX_SCALES && YK_OBJ_MAX_ANCHORS == YRT_OBJ_MAX_ANCHORS,
               "the kernel's limits are the format's");

/* Below this many output floats one thread does it all (waking the pool costs more). */
#define OBJ_PAR_MIN 65536

typedef struct yrt_exec_obj {
  yk_obj_params p;
  yk_obj_tables tables[2 * YK_OBJ_MAX_SCALES]; /* per int8 input */
  size_t chunk;
} yrt_exec_obj;

YRT_EXEC_STATE_FITS(yrt_exec_obj *);
/* The node's state: a pointer to its yrt_exec_obj (owned). */
static inline yrt_exec_obj **slot(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_obj *, e); }

/* Checks every count, stride, anchor and shape so the kernel's loops stay inside the tensors. */
yrt_status yrt_check_obj_decode(const yrt_node_check *v) {
  const int32_t *p = v->n->p;
  const int32_t ns = p[YRT_OBJ_P_SCALES], na = p[YRT_OBJ_P_ANCHORS], nc = p[YRT_OBJ_P_CLASSES];
  const int32_t mode = p[YRT_OBJ_P_MODE], split = p[YRT_OBJ_P_SPLIT], per = p[YRT_OBJ_P_PER];
  if (!yrt_range_ok(split, 0, 1)) return yrt_node_fail(v, YRT_ERR_FORMAT, "layout p[4] = %d (0 joint, 1 split)", (int)split);
  if (!yrt_range_ok(ns, 1, split ? 3 : YK_OBJ_MAX_SCALES))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "scales p[0] = %d (1..%d)", (int)ns, split ? 3 : YK_OBJ_MAX_SCALES);
  if (!yrt_range_ok(na, 1, split ? 1 : YK_OBJ_MAX_ANCHORS))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "anchors p[1] = %d (1..%d)", (int)na, split ? 1 : YK_OBJ_MAX_ANCHORS);
  if (!yrt_range_ok(nc, 1, YRT_MAX_CLASSES)) return yrt_node_fail(v, YRT_ERR_FORMAT, "classes p[2] = %d (1..%d)", (int)nc, YRT_MAX_CLASSES);
  if (mode != YRT_OBJ_SIGMOID && mode != YRT_OBJ_EXP) return yrt_node_fail(v, YRT_ERR_FORMAT, "mode p[3] = %d (0 or 1)", (int)mode);
  if (per != 0 && (split || !yrt_range_ok(per, 5 + nc, 5 + nc + 3 * 1024)))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "values per anchor p[%d] = %d (0, or joint %d..%d)", (int)YRT_OBJ_P_PER, (int)per,
                         (int)(5 + nc), (int)(5 + nc + 3 * 1024));
  const uint32_t n_feat = (uint32_t)(split ? 2 * ns : ns);
  if (v->n->n_in != n_feat + 1)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "%u inputs for %d scales (want %u)", (unsigned)v->n->n_in, (int)ns, (unsigned)(n_feat + 1));
  int64_t n_anchors = 0;
  for (int32_t s = 0; s < ns; s++) {
    const int32_t stride = p[YRT_OBJ_P_STRIDE0 + s];
    if (!yrt_range_ok(stride, 1, 4096)) return yrt_node_fail(v, YRT_ERR_FORMAT, "stride p[%d] = %d (1..4096)", (int)(YRT_OBJ_P_STRIDE0 + s), (int)stride);
    for (int k = 0; k <= split; k++) {
      const int i = k ? ns + s : s;
      const yrt_tensor_rec *t = yrt_node_in(v, i);
      if (t->dtype != YRT_F32 && t->dtype != YRT_I8) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "input %d: dtype %u (f32 or i8)", i, (unsigned)t->dtype);
      if (t->rank != 4 || t->layout != YRT_LAYOUT_NHWC || t->dims[0] != 1) return yrt_node_fail(v, YRT_ERR_SHAPE, "input %d must be NHWC [1,H,W,C]", i);
      if (t->dtype == YRT_I8 && t->n_scales > 1) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "input %d has per-channel scales", i);
      const int64_t want = split ? (k ? 1 + nc : 4) : (int64_t)na * (per ? per : 5 + nc);
      if (t->dims[3] != want) return yrt_node_fail(v, YRT_ERR_SHAPE, "input %d: %d channels, want %lld", i, (int)t->dims[3], (long long)want);
      if (k && (t->dims[1] != yrt_node_in(v, s)->dims[1] || t->dims[2] != yrt_node_in(v, s)->dims[2]))
        return yrt_node_fail(v, YRT_ERR_SHAPE, "scale %d: box and score grids differ", (int)s);
    }
    n_anchors += (int64_t)na * yrt_node_in(v, s)->dims[1] * yrt_node_in(v, s)->dims[2];
  }
  const yrt_tensor_rec *an = yrt_node_in(v, (int)n_feat), *y = &v->m->tensors[v->n->out[0]];
  if (an->kind != YRT_TENSOR_CONST || an->dtype != YRT_F32 || yrt_tensor_numel(an) != (size_t)(ns * na * 2))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "input %u: anchors must be a constant f32 [%d, %d, 2]", (unsigned)n_feat, (int)ns, (int)na);
  const float *a = yrt_tensor_const_data(v->m, an);
  for (int32_t k = 0; k < ns * na * 2; k++)
    if (!(a[k] > 0.0f && a[k] <= 65536.0f)) return yrt_node_fail(v, YRT_ERR_FORMAT, "anchor value %d is %g (0 < a <= 65536)", (int)k, (double)a[k]);
  if (y->dtype != YRT_F32 || y->rank != 3 || y->layout != YRT_LAYOUT_PLAIN || y->dims[0] != 1 || y->dims[1] != 4 + nc ||
      y->dims[2] != n_anchors)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output must be f32 [1, %d, %lld]", (int)(4 + nc), (long long)n_anchors);
  return YRT_OK;
}

typedef struct obj_ctx {
  const yrt_session *s;
  const yrt_exec *e;
} obj_ctx;

static void obj_range(const void *ctx, size_t lo, size_t hi) {
  const obj_ctx *t = ctx;
  yk_obj_decode(&t->s->isa, &(*slot(t->e))->p, lo, hi, t->e->out);
}

yrt_status yrt_run_obj_decode(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_obj *d = *slot(e);
  const obj_ctx t = {s, e};
  const int one = yrt_par_threads(&s->par) < 2 || e->numel < OBJ_PAR_MIN;
  yrt_par_ranges(&s->par, d->p.n_anchors, one ? d->p.n_anchors : d->chunk, obj_range, &t);
  return YRT_OK;
}

yrt_status yrt_prepare_obj_decode(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  yrt_exec_obj *d = yrt_zalloc(s->alloc, 1, sizeof *d);
  if (!d) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for obj_decode node");
  *slot(e) = d;
  yk_obj_params *p = &d->p;
  p->n_scales = n->p[YRT_OBJ_P_SCALES]; /* all validated on load */
  p->na = n->p[YRT_OBJ_P_ANCHORS];
  p->nc = n->p[YRT_OBJ_P_CLASSES];
  p->mode = n->p[YRT_OBJ_P_MODE] == YRT_OBJ_EXP ? YK_OBJ_EXP : YK_OBJ_SIGMOID;
  p->per = n->p[YRT_OBJ_P_PER];
  const int split = n->p[YRT_OBJ_P_SPLIT], ns = p->n_scales;
  const float *anchors = yrt_tensor_const_data(m, &m->tensors[n->in[split ? 2 * ns : ns]]);
  size_t first = 0;
  for (int k = 0; k < ns; k++) {
    yk_obj_scale *sc = &p->s[k];
    const yrt_tensor_rec *x = &m->tensors[n->in[k]];
    sc->x = e->in[k];
    sc->h = x->dims[1];
    sc->w = x->dims[2];
    sc->stride = (float)n->p[YRT_OBJ_P_STRIDE0 + k];
    sc->first = first;
    first += (size_t)p->na * (size_t)sc->h * (size_t)sc->w;
    for (int a = 0; a < p->na; a++) {
      sc->anchor[a][0] = anchors[(k * p->na + a) * 2];
      sc->anchor[a][1] = anchors[(k * p->na + a) * 2 + 1];
    }
    if (x->dtype == YRT_I8) {
      yk_obj_tables_init(x->scale, x->zero_point, &d->tables[2 * k]);
      sc->tx = &d->tables[2 * k];
    }
    if (split) {
      const yrt_tensor_rec *c = &m->tensors[n->in[ns + k]];
      sc->score = e->in[ns + k];
      if (c->dtype == YRT_I8) {
        yk_obj_tables_init(c->scale, c->zero_point, &d->tables[2 * k + 1]);
        sc->ts = &d->tables[2 * k + 1];
      }
    }
  }
  p->n_anchors = first;
  d->chunk = yrt_par_chunk(first, 4 * yrt_par_threads(&s->par), 16, 16);
  return YRT_OK;
}

size_t yrt_obj_decode_over(const yrt_session *s, const yrt_exec *e, float conf, int32_t *list) {
  const yk_obj_params *p = &(*slot(e))->p;
  const size_t n = yk_obj_over(p, conf, 0, p->n_anchors, list);
  yk_obj_decode_cols(&s->isa, p, list, n, e->out);
  return n;
}

void yrt_release_obj_decode(yrt_exec *e) {
  yrt_free(*slot(e));
  *slot(e) = NULL;
}
