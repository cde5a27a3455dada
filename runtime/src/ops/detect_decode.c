/* detect_decode.c — YRT_OP_DETECT_DECODE, the Ultralytics Detect head's decode, in one room: its
 * check, state, prepare, run, release and threshold-aware form (the row in op_table.c points
 * here). Everything but the decode itself is done at session creation: the kernel parameters,
 * and the 256-entry exp / sigmoid tables of int8 inputs. Runs threaded over anchors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "detect_decode.h"
#include "op_check.h"
#include "session_internal.h"
#include "session_par.h"
#include "yk_detect.h"
#include "yk_inline.h"

/* Below this many output floats one thread does it all (waking the pool costs more). */
#define DETECT_PAR_MIN 65536
/* Tasks cover whole 64-byte lines of each output row. */
#define DETECT_ALIGN 16

/* Detect decode: every count, stride and shape bounded, so the kernel's anchor loops and its
 * stack scratch (yk_detect.h limits) stay inside the tensors. */
yrt_status yrt_check_detect(const yrt_node_check *v) {
  const int32_t *p = v->n->p;
  const int32_t ns = p[YRT_DETECT_P_SCALES], r = p[YRT_DETECT_P_REG_MAX], nc = p[YRT_DETECT_P_CLASSES];
  if (!yrt_range_ok(ns, 1, 3)) return yrt_node_fail(v, YRT_ERR_FORMAT, "scales p[0] = %d (1..3)", (int)ns);
  if (v->n->n_in != (uint32_t)(2 * ns + 1))
    return yrt_node_fail(v, YRT_ERR_FORMAT, "%u inputs for %d scales (want %d)", (unsigned)v->n->n_in, (int)ns, (int)(2 * ns + 1));
  if (!yrt_range_ok(r, 1, 64)) return yrt_node_fail(v, YRT_ERR_FORMAT, "reg_max p[1] = %d (1..64)", (int)r);
  if (!yrt_range_ok(nc, 1, YRT_MAX_CLASSES)) return yrt_node_fail(v, YRT_ERR_FORMAT, "classes p[2] = %d (1..%d)", (int)nc, YRT_MAX_CLASSES);
  if (!yrt_range_ok(p[YRT_DETECT_P_XYXY], 0, 1)) return yrt_node_fail(v, YRT_ERR_FORMAT, "xyxy p[%d] = %d (0 or 1)", (int)YRT_DETECT_P_XYXY, (int)p[YRT_DETECT_P_XYXY]);
  int64_t n_anchors = 0;
  for (int32_t s = 0; s < ns; s++) {
    const int32_t stride = p[YRT_DETECT_P_STRIDE0 + s];
    if (!yrt_range_ok(stride, 1, 4096)) return yrt_node_fail(v, YRT_ERR_FORMAT, "stride p[%d] = %d (1..4096)", (int)(YRT_DETECT_P_STRIDE0 + s), (int)stride);
    const yrt_tensor_rec *b = yrt_node_in(v, s), *c = yrt_node_in(v, ns + s);
    for (int k = 0; k < 2; k++) {
      const yrt_tensor_rec *t = k ? c : b;
      if (t->dtype != YRT_F32 && t->dtype != YRT_I8)
        return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "input %d: dtype %u (f32 or i8)", (int)(k ? ns + s : s), (unsigned)t->dtype);
      if (t->rank != 4 || t->layout != YRT_LAYOUT_NHWC || t->dims[0] != 1)
        return yrt_node_fail(v, YRT_ERR_SHAPE, "input %d must be NHWC [1,H,W,C]", (int)(k ? ns + s : s));
    }
    if (b->dims[3] != 4 * r || c->dims[3] != nc)
      return yrt_node_fail(v, YRT_ERR_SHAPE, "scale %d: %d box / %d class channels, want %d / %d", (int)s, (int)b->dims[3],
                 (int)c->dims[3], (int)(4 * r), (int)nc);
    if (b->dims[1] != c->dims[1] || b->dims[2] != c->dims[2])
      return yrt_node_fail(v, YRT_ERR_SHAPE, "scale %d: box grid %dx%d, class grid %dx%d", (int)s, (int)b->dims[1],
                 (int)b->dims[2], (int)c->dims[1], (int)c->dims[2]);
    n_anchors += (int64_t)b->dims[1] * b->dims[2];
  }
  const yrt_tensor_rec *proj = yrt_node_in(v, 2 * ns), *y = yrt_node_out(v, 0);
  if (proj->kind != YRT_TENSOR_CONST || proj->dtype != YRT_F32 || yrt_tensor_numel(proj) != (size_t)r)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "input %d: DFL projection must be a constant f32 [%d]", (int)(2 * ns), (int)r);
  const float *pw = yrt_tensor_const_data(v->m, proj);
  for (int32_t j = 0; j < r; j++)
    if (!isfinite(pw[j])) return yrt_node_fail(v, YRT_ERR_FORMAT, "DFL projection[%d] is not finite", (int)j);
  if (y->dtype != YRT_F32 || y->rank != 3 || y->layout != YRT_LAYOUT_PLAIN || y->dims[0] != 1 ||
      y->dims[1] != 4 + nc || y->dims[2] != n_anchors)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output must be f32 [1, %d, %lld]", (int)(4 + nc), (long long)n_anchors);
  return yrt_require_per_tensor(v);
}

typedef struct yrt_exec_detect {
  yk_detect_params p;
  size_t scan_chunk;     /* anchors per task of the threshold scan */
  uint32_t *scan_counts; /* per scan task: anchors it listed (owned) */
  float tables[2 * YK_DETECT_MAX_SCALES][256]; /* box exp / class sigmoid per scale */
  size_t chunk;                                /* anchors per pool task */
  uint8_t sig_monotonic[YK_DETECT_MAX_SCALES]; /* int8 cls: table non-decreasing, so the best
                                                  score is the table at the largest q */
} yrt_exec_detect;

YRT_EXEC_STATE_FITS(yrt_exec_detect *);
/* The node's state: a pointer to its yrt_exec_detect (owned). */
static inline yrt_exec_detect **slot(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_detect *, e); }

typedef struct detect_ctx {
  const yrt_session *s;
  const yrt_exec *e;
} detect_ctx;

static void detect_range(const void *ctx, size_t lo, size_t hi) {
  const detect_ctx *t = ctx;
  yk_detect_decode(&t->s->isa, &(*slot(t->e))->p, lo, hi, t->e->out);
}

yrt_status yrt_run_detect(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_detect *d = *slot(e);
  const detect_ctx t = {s, e};
  const int one = yrt_par_threads(&s->par) < 2 || e->numel < DETECT_PAR_MIN;
  yrt_par_ranges(&s->par, d->p.n_anchors, one ? d->p.n_anchors : d->chunk, detect_range, &t);
  return YRT_OK;
}

yrt_status yrt_prepare_detect(yrt_session *s, yrt_exec *e, yrt_error *err) {
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  yrt_exec_detect *d = yrt_zalloc(s->alloc, 1, sizeof *d);
  if (!d) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for detect_decode node");
  *slot(e) = d;
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
      d->sig_monotonic[k] = 1;
      for (int i = 1; i < 256; i++)
        if (sc->cls_sig[i] < sc->cls_sig[i - 1]) d->sig_monotonic[k] = 0;
    }
  }
  p->n_anchors = first;
  d->chunk = yrt_par_chunk(first, 4 * yrt_par_threads(&s->par), DETECT_ALIGN, DETECT_ALIGN);
  /* the scan: one range per thread (a range's list starts at its first anchor, then compacted) */
  d->scan_chunk = yrt_par_threads(&s->par) < 2 ? first : yrt_par_chunk(first, yrt_par_threads(&s->par), 2048, 64);
  if (!d->scan_chunk) d->scan_chunk = 1;
  d->scan_counts = yrt_zalloc(s->alloc, first / d->scan_chunk + 1, sizeof *d->scan_counts);
  if (!d->scan_counts) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for detect_decode node");
  return YRT_OK;
}

/* Best class score of an int8 anchor, exactly as the full decode's table gives it (a table
 * that is not monotonic: the scan below cannot use a threshold on q). */
static float best_score_i8(const int8_t *q, int nc, const float *sig) {
  float b = sig[q[0] + 128];
  for (int c = 1; c < nc; c++) b = sig[q[c] + 128] > b ? sig[q[c] + 128] : b;
  return b;
}

enum { OVER_NONE, OVER_ALL, OVER_I8, OVER_I8_TABLE, OVER_F32 };

typedef struct over_ctx {
  const yrt_session *s;
  const yrt_exec_detect *d;
  int mode[YK_DETECT_MAX_SCALES];
  int8_t t8[YK_DETECT_MAX_SCALES]; /* OVER_I8: listed when some code is over it */
  float conf, logit;
  int32_t *list;
} over_ctx;

/* Anchors [lo, hi) over the threshold, listed from list[lo] (room for hi - lo), in order. */
static void over_range(const void *ctx, size_t lo, size_t hi) {
  const over_ctx *o = ctx;
  const yk_detect_params *p = &o->d->p;
  int32_t *list = o->list + lo;
  size_t n = 0;
  for (int k = 0; k < p->n_scales; k++) {
    const yk_detect_scale *sc = &p->s[k];
    const size_t first = sc->first, last = first + (size_t)sc->h * (size_t)sc->w;
    const size_t a0 = lo > first ? lo : first, a1 = hi < last ? hi : last;
    if (a0 >= a1 || o->mode[k] == OVER_NONE) continue;
    const size_t nc = (size_t)p->nc, count = a1 - a0;
    const int8_t *q = (const int8_t *)sc->cls + (a0 - first) * nc;
    switch (o->mode[k]) {
    case OVER_ALL:
      for (size_t a = a0; a < a1; a++) list[n++] = (int32_t)a;
      break;
    case OVER_I8:
      n += yk_detect_over_i8(&o->s->isa, q, count, p->nc, o->t8[k], (int32_t)a0, list + n);
      break;
    case OVER_I8_TABLE:
      for (size_t a = a0; a < a1; a++, q += nc)
        if (best_score_i8(q, p->nc, sc->cls_sig) > o->conf) list[n++] = (int32_t)a;
      break;
    default:
      n += yk_detect_over_f32(&o->s->isa, (const float *)sc->cls + (a0 - first) * nc, count, p->nc, o->logit,
                              (int32_t)a0, list + n);
    }
  }
  o->d->scan_counts[lo / o->d->scan_chunk] = (uint32_t)n;
}

size_t yrt_detect_decode_over(const yrt_session *s, const yrt_exec *e, float conf, int32_t *list) {
  const yrt_exec_detect *d = *slot(e);
  const yk_detect_params *p = &d->p;
  over_ctx o = {.s = s, .d = d, .conf = conf, .list = list};
  /* float logits: sigmoid(x) > conf  <=>  x > logit(conf); a margin keeps anchors the float
   * sigmoid might round either way, and the exact test is postprocess's on the decoded score */
  o.logit = conf <= 0.0f ? -INFINITY : conf >= 1.0f ? INFINITY : logf(conf / (1.0f - conf)) - 1e-3f;
  for (int k = 0; k < p->n_scales; k++) {
    const yk_detect_scale *sc = &p->s[k];
    if (sc->cls_sig && d->sig_monotonic[k]) {
      /* a non-decreasing table: sig[max q] > conf  <=>  max q >= the first q whose score passes */
      int pass = 0;
      while (pass < 256 && !(sc->cls_sig[pass] > conf)) pass++;
      o.mode[k] = pass == 0 ? OVER_ALL : pass == 256 ? OVER_NONE : OVER_I8;
      o.t8[k] = (int8_t)(pass == 0 || pass == 256 ? 0 : pass - 129);
    } else {
      o.mode[k] = sc->cls_sig ? OVER_I8_TABLE : OVER_F32;
    }
  }
  /* the class blocks the convs left in both cores' caches: scanned on both */
  yrt_par_ranges(&s->par, p->n_anchors, d->scan_chunk, over_range, &o);
  size_t n = 0;
  for (size_t lo = 0; lo < p->n_anchors; lo += d->scan_chunk) {
    const size_t got = d->scan_counts[lo / d->scan_chunk];
    if (lo != n) memmove(list + n, list + lo, got * sizeof *list);
    n += got;
  }
  /* Packed: listed anchor j into column j of rows n floats apart, runs of neighbours at once
   * (written at their own columns, each anchor's 4 + nc values would be as many cold lines). */
  for (size_t j = 0, r; j < n; j = r) {
    for (r = j + 1; r < n && list[r] == list[r - 1] + 1; r++) {
    }
    yk_detect_decode_cols(&s->isa, p, (size_t)list[j], (size_t)list[r - 1] + 1, e->out, n, j);
  }
  return n;
}

void yrt_release_detect(yrt_exec *e) {
  if (*slot(e)) yrt_free((*slot(e))->scan_counts);
  yrt_free(*slot(e));
  *slot(e) = NULL;
}
