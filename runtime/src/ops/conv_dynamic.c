/* conv_dynamic.c — YRT_OP_CONV2D's dynamically quantized path (onnxruntime quantize_dynamic
 * models; ops/conv.c dispatches here): f32 x quantized on every run with its measured range
 * (or the range its producer published through its row's publish_range), int8 weights, our
 * conv kernel in its float-output mode, f32 bias and output. onnxruntime's arithmetic
 * (ConvInteger, Cast, Mul by x_scale * w_scale, Add bias): the exact integer sum, one float
 * multiply, then the float bias; channels whose export weights do not fit int8 are stored
 * minus an offset k (CONV2D input 3) and get k * sum(x - x_zp) added back in integers.
 * A depthwise conv (one input channel per output channel: YOLO11's head DWConvs, the attention's
 * position conv) runs the same arithmetic in its own loop over channel blocks (dw16: weights plus
 * offsets, tap-major, so the channel loop is contiguous and vectorises); any other grouping the
 * scalar reference yrt_conv_ref_dyn. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "mem.h"
#include "conv_paths.h"
#include "kernel_kinds.h"

/* The channels with a weight offset. exact[i]: the kernel's sum for the channel stays below
 * 2^24 in magnitude (255 * sum|w| < 2^24), so it runs at scale 1 and its float output is the
 * integer itself: acc + k * window sum is formed in integers, then scaled once (onnxruntime's
 * rounding); otherwise the term is scaled and added in float (one more rounding). */
typedef struct yrt_conv_woff {
  const int32_t *k; /* [cout] the node's offsets */
  int n;            /* channels with k != 0 */
  int *ch;          /* [n] those channels */
  uint8_t *exact;   /* [n] */
  float *scale;     /* [n] x_scale * w_scale of the channel, this run */
  int32_t *wsum;    /* [output pixels] window sums of (x - x_zp), this run */
} yrt_conv_woff;

typedef struct dyn_ctx {
  const yrt_session *s;
  const float *x;
  int8_t *q;
  size_t chunk;
  float scale;
  int32_t zp;
  float *lohi; /* [2 * YRT_RANGE_SLOTS]: each range's min and max */
} dyn_ctx;

static void dyn_minmax_range(const void *ctx, size_t lo, size_t hi) {
  const dyn_ctx *t = ctx;
  const size_t i = lo / t->chunk;
  yk_minmax_f32(&t->s->isa, t->x + lo, hi - lo, &t->lohi[2 * i], &t->lohi[2 * i + 1]);
}

static void dyn_quant_range(const void *ctx, size_t lo, size_t hi) {
  const dyn_ctx *t = ctx;
  yk_quantize_f32_i8(&t->s->isa, t->x + lo, t->q + lo, hi - lo, t->scale, t->zp);
}

/* onnxruntime's DynamicQuantizeLinear, shifted to int8: range [min(0, lo), max(0, hi)] over
 * 255 steps, zero point round(-min / scale) in [0, 255], minus 128 (uint8 -> int8). The range
 * comes from the producer's activation pass when it published it (c->x_src), else from a pass
 * over x here; the quantization is one more pass. Both run on the pool in up to YRT_RANGE_SLOTS
 * ranges; no allocation. */
static void dyn_quantize(const yrt_session *s, const yrt_exec_conv *c, const float *x, int8_t *q, float *scale,
                         int32_t *zp) {
  const size_t n = c->x_numel;
  const size_t threads = yrt_par_threads(&s->par);
  const size_t tasks = threads < 2 || n < 2 * YRT_PAR_MIN_ELEMS ? 1 : 4 * threads;
  float lohi[2 * YRT_RANGE_SLOTS] = {0};
  dyn_ctx t = {.s = s, .x = x, .q = q, .lohi = lohi};
  t.chunk = yrt_par_chunk(n, tasks, (n + YRT_RANGE_SLOTS - 1) / YRT_RANGE_SLOTS, 64);
  if (!t.chunk) t.chunk = 1;
  const size_t ranges = (n + t.chunk - 1) / t.chunk;
  float lo = 0.0f, hi = 0.0f;
  if (c->x_src) {
    lo = c->x_src->y_lo;
    hi = c->x_src->y_hi;
  } else {
    yrt_par_ranges(ranges > 1 ? &s->par : NULL, n, t.chunk, dyn_minmax_range, &t);
    yrt_range_fold(lohi, ranges, &lo, &hi);
  }
  float sc = (hi - lo) / 255.0f;
  if (!(sc > 0.0f) || !isfinite(sc)) sc = 1.0f; /* all zeros (or non-finite): any scale is exact */
  float z = yk_round_half_even(-lo / sc);
  z = z < 0.0f ? 0.0f : z > 255.0f ? 255.0f : z;
  t.scale = sc;
  t.zp = (int32_t)z - 128;
  yrt_par_ranges(ranges > 1 ? &s->par : NULL, n, t.chunk, dyn_quant_range, &t);
  *scale = sc;
  *zp = t.zp;
}

#define DW_BLOCK 64 /* channels accumulated at a time (int32 on the stack) */

typedef struct dw_ctx {
  const yrt_exec_conv *c;
  const int8_t *x;
  int32_t zp;
  float *y;
} dw_ctx;

/* Output rows [r0, r1) of a dynamically quantized depthwise conv: the exact integer sum of
 * (x - zp) * (w + woff) per channel (int32: prepare checks the window's bound), then
 * (float)acc * scale, then the bias (two statements: never one FMA). */
static void dw_rows(const void *ctx, size_t r0, size_t r1) {
  const dw_ctx *t = ctx;
  const yrt_exec_conv *c = t->c;
  const yrt_conv_geom *g = &c->g;
  const size_t cout = (size_t)g->cout, ys = (size_t)(g->ys ? g->ys : g->cout);
  for (size_t r = r0; r < r1; r++) {
    const int b = (int)(r / (size_t)g->oh), oy = (int)(r % (size_t)g->oh);
    for (int ox = 0; ox < g->ow; ox++) {
      float *yp = t->y + (r * (size_t)g->ow + (size_t)ox) * ys;
      for (size_t c0 = 0; c0 < cout; c0 += DW_BLOCK) {
        const size_t nc = cout - c0 < DW_BLOCK ? cout - c0 : DW_BLOCK;
        int32_t acc[DW_BLOCK] = {0};
        for (int ky = 0; ky < g->kh; ky++) {
          const int iy = oy * g->sh - g->pad_t + ky * g->dh;
          if (iy < 0 || iy >= g->h) continue;
          for (int kx = 0; kx < g->kw; kx++) {
            const int ix = ox * g->sw - g->pad_l + kx * g->dw;
            if (ix < 0 || ix >= g->w) continue;
            const int8_t *xp = t->x + (((size_t)b * g->h + iy) * g->w + ix) * cout + c0;
            const int16_t *wp = c->dw16 + ((size_t)ky * g->kw + kx) * cout + c0;
            if (nc == DW_BLOCK) /* a constant trip count: the compiler vectorises it */
              for (size_t j = 0; j < DW_BLOCK; j++) acc[j] += (xp[j] - t->zp) * wp[j];
            else
              for (size_t j = 0; j < nc; j++) acc[j] += (xp[j] - t->zp) * wp[j];
          }
        }
        for (size_t j = 0; j < nc; j++) yp[c0 + j] = (float)acc[j] * c->requant[c0 + j];
        if (c->fbias)
          for (size_t j = 0; j < nc; j++) yp[c0 + j] += c->fbias[c0 + j];
      }
    }
  }
}

yrt_status yrt_conv_run_dyn(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  /* the per-run input quantization is state of this prepared node (a session runs one frame at
   * a time): its scales, bias and the kernel's packed head follow the measured range */
  yrt_exec_conv *c = yrt_conv_state(e);
  float sx;
  int32_t zp;
  dyn_quantize(s, c, e->in[0], s->dynq, &sx, &zp);
  for (int oc = 0; oc < c->g.cout; oc++) c->requant[oc] = sx * c->kscale[oc];
  if (c->g.groups != 1) {
    const int32_t *k = e->node->n_in > YRT_CONV_IN_WOFFSET ? e->in[YRT_CONV_IN_WOFFSET] : NULL;
    if (c->dw16) {
      const dw_ctx t = {c, s->dynq, zp, e->out};
      const size_t rows = (size_t)c->g.n * (size_t)c->g.oh;
      yrt_par_ranges(&s->par, rows, c->rows_per_task, dw_rows, &t);
    } else {
      yrt_conv_ref_dyn(&c->g, s->dynq, zp, e->in[1], k, c->requant, c->fbias, e->out);
    }
    if (c->act != YRT_UNARY_NONE) yrt_conv_act_pass(s, (yrt_exec *)e, e->out, c->out_numel); /* its range: run state */
    return YRT_OK;
  }
  /* the bias is added in float after the kernel (yrt_conv_dyn_rows): zero_bias stays 0 */
  yrt_conv_woff *o = c->woff;
  for (int i = 0; o && i < o->n; i++) {
    o->scale[i] = c->requant[o->ch[i]];
    if (o->exact[i]) c->requant[o->ch[i]] = 1.0f;
  }
  yk_qconv_set_input(&c->qc, zp, c->wsum);
  yrt_conv_run_own_act(s, (yrt_exec *)e, s->dynq); /* its range: run state */
  return YRT_OK;
}

/* Output rows [r0, r1) of a dynamically quantized conv after the kernel wrote them (c->dyn_rows):
 * the weight offsets' window-sum terms, then the float bias (onnxruntime's order: (float)acc *
 * scale + b). */
static void yrt_conv_dyn_rows(const yrt_exec_conv *c, const int8_t *x, float *y, size_t r0, size_t r1) {
  const yrt_conv_woff *o = c->woff;
  if (!o && !c->fbias) return;
  const size_t ow = (size_t)c->qc.ow, ys = yk_qconv_ys(&c->qc), cout = (size_t)c->g.cout;
  if (o) yk_qconv_window_sums(&c->qc, x, o->wsum, (int)r0, (int)r1);
  for (size_t p = r0 * ow; p < r1 * ow; p++) {
    float *yp = y + p * ys;
    for (int i = 0; o && i < o->n; i++) {
      const int ch = o->ch[i];
      const int64_t t = (int64_t)o->k[ch] * o->wsum[p];
      if (o->exact[i]) yp[ch] = (float)((int64_t)yp[ch] + t) * o->scale[i]; /* yp[ch]: the exact sum */
      else yp[ch] += (float)t * o->scale[i];
    }
    if (c->fbias)
      for (size_t ch = 0; ch < cout; ch++) yp[ch] += c->fbias[ch];
  }
}

void yrt_conv_dyn_release(yrt_exec_conv *c) {
  yrt_free(c->dw16);
  c->dw16 = NULL;
  yrt_conv_woff *o = c->woff;
  if (!o) return;
  yrt_free(o->ch);
  yrt_free(o->exact);
  yrt_free(o->scale);
  yrt_free(o->wsum);
  yrt_free(o);
  c->woff = NULL;
}

/* The depthwise loop's weights (dw_rows): w + woff, tap-major. 0 ok, -1 out of memory. */
static int prepare_dw16(yrt_session *s, yrt_exec_conv *c, const int8_t *w, const int32_t *k) {
  const yrt_conv_geom *g = &c->g;
  const size_t taps = (size_t)g->kh * g->kw, cout = (size_t)g->cout;
  c->dw16 = yrt_alloc(s->alloc, taps * cout * sizeof(int16_t));
  if (!c->dw16) return -1;
  for (size_t oc = 0; oc < cout; oc++)
    for (size_t t = 0; t < taps; t++) c->dw16[t * cout + oc] = (int16_t)(w[oc * taps + t] + (k ? k[oc] : 0));
  /* the conv task policy (rows are independent: any split gives the same bytes) */
  c->rows_per_task = yrt_par_conv_rows(&s->par, (size_t)g->n * (size_t)g->oh, (size_t)g->ow, 0);
  return 0;
}

/* The channels with a weight offset (input 3), their exactness and the window-sum buffer.
 * 0 ok, -1 out of memory. */
static int prepare_woff(const yrt_session *s, yrt_exec_conv *c, const int32_t *k, const int8_t *w, size_t pixels) {
  const yrt_conv_geom *g = &c->g;
  const size_t per = (size_t)g->kh * g->kw * g->cin;
  int n = 0;
  for (int oc = 0; oc < g->cout; oc++) n += k[oc] != 0;
  if (!n) return 0;
  yrt_conv_woff *o = yrt_zalloc(s->alloc, 1, sizeof *o);
  if (!o) return -1;
  c->woff = o;
  o->k = k;
  o->ch = yrt_alloc(s->alloc, (size_t)n * sizeof(int));
  o->exact = yrt_alloc(s->alloc, (size_t)n);
  o->scale = yrt_alloc(s->alloc, (size_t)n * sizeof(float));
  o->wsum = yrt_alloc(s->alloc, pixels * sizeof(int32_t));
  if (!o->ch || !o->exact || !o->scale || !o->wsum) return -1;
  for (int oc = 0; oc < g->cout; oc++) {
    if (!k[oc]) continue;
    int64_t a = 0;
    for (size_t i = 0; i < per; i++) a += abs(w[(size_t)oc * per + i]);
    o->ch[o->n] = oc;
    o->exact[o->n++] = a * 255 < ((int64_t)1 << 24);
  }
  return 0;
}

/* The node that writes all of x (a dynamically quantized conv's input) and publishes its range
 * from its own pass over it (yrt_publish_range), or NULL: this node measures it. The producer
 * runs before this node on every run (nodes run in order; only a frame's quantize node and the
 * detect decode are ever skipped). */
static const yrt_exec *range_producer(yrt_session *s, const yrt_exec *e) {
  const uint32_t x = e->node->in[0];
  for (size_t i = (size_t)(e - s->exec); i-- > 0;) {
    yrt_exec *p = &s->exec[i];
    if (!p->node || p->node->out[0] != x) continue;
    return p->numel == yrt_conv_state(e)->x_numel && yrt_publish_range(s, p) ? p : NULL;
  }
  return NULL;
}

yrt_status yrt_conv_prepare_dyn(yrt_session *s, yrt_exec *e, yrt_error *err) {
  yrt_exec_conv *c = yrt_conv_state(e);
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &m->tensors[n->in[0]], *w = &m->tensors[n->in[1]];
  const yrt_conv_geom *g = &c->g;
  const int act = n->p[YRT_CONV_P_ACT];
  c->dyn_rows = yrt_conv_dyn_rows;
  c->act = act == YRT_UNARY_IDENTITY ? YRT_UNARY_NONE : act;
  c->fbias = e->in[2];
  c->x_numel = yrt_tensor_numel(x);
  c->x_src = range_producer(s, e);
  c->requant = yrt_alloc(s->alloc, (size_t)g->cout * sizeof(float));
  c->kscale = yrt_alloc(s->alloc, (size_t)g->cout * sizeof(float));
  if (!c->requant || !c->kscale)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing conv node '%s'", yrt_model_string(m, n->name));
  const float *ws = yrt_tensor_scales(m, w);
  for (int oc = 0; oc < g->cout; oc++) {
    c->kscale[oc] = ws ? ws[oc] : w->scale;
    c->requant[oc] = c->kscale[oc];
  }
  if (g->groups != 1) { /* depthwise: its own loop (dw_rows); other groupings the reference */
    const int32_t *k = n->n_in > YRT_CONV_IN_WOFFSET ? e->in[YRT_CONV_IN_WOFFSET] : NULL;
    /* int32 sums: |x - zp| <= 255, |w + woff| <= 128 + 255 per tap */
    const int dw = g->groups == g->cin && g->cin == g->cout && (!g->xs || g->xs == g->cin) &&
                   (int64_t)g->kh * g->kw * 255 * 383 <= INT32_MAX;
    if (dw && prepare_dw16(s, c, e->in[1], k))
      return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing conv node '%s'", yrt_model_string(m, n->name));
    return YRT_OK;
  }
  c->zero_bias = yrt_zalloc(s->alloc, (size_t)g->cout, sizeof(int32_t));
  c->wsum = yrt_alloc(s->alloc, (size_t)g->cout * sizeof(int32_t));
  if (!c->zero_bias || !c->wsum)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing conv node '%s'", yrt_model_string(m, n->name));
  yk_qconv *q = &c->qc;
  *q = yrt_conv_qconv_of_geom(g); /* x_zp 0 until each run sets the measured one (yk_qconv_set_input) */
  q->weights = e->in[1];
  q->bias = c->zero_bias;
  q->scale = c->requant;
  q->y_stride = g->ys;
  q->out_f32 = 1;
  if (yk_qconv_init(q, &s->isa) != 0)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: conv '%s': shape not supported by the int8 kernel",
                         yrt_model_string(m, n->name));
  yk_qconv_weight_sums(q, c->wsum);
  const int32_t *k = n->n_in > YRT_CONV_IN_WOFFSET ? e->in[YRT_CONV_IN_WOFFSET] : NULL;
  if (k && prepare_woff(s, c, k, e->in[1], (size_t)g->n * g->oh * g->ow) != 0)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing conv node '%s'", yrt_model_string(m, n->name));
  return yrt_conv_pack_own(s, e, 0, err);
}

