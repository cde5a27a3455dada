/* conv_int8.c — YRT_OP_CONV2D's int8 paths (ops/conv.c dispatches here): our own kernels
 * (yk_qconv for groups 1; yk_dwconv for the depthwise 3x3, its weights re-laid here) threaded
 * over output-row tasks with the LUT fused, else an XNNPACK qc8 operator, else the scalar
 * reference; the int8-to-float head convs; and absorb_next, the residual Add run in a conv's
 * own tasks on rows still in cache. */
#include <stdint.h>
#include <stdlib.h>

#include "mem.h"
#include "conv_paths.h"
#include "kernel_kinds.h"
#include "packed_weight_cache.h"

typedef struct own_conv_ctx {
  const yrt_exec_conv *c;
  const int8_t *x;
  void *y;
  const yrt_session *s; /* with c->post_add */
} own_conv_ctx;

/* Output rows [r0, r1) with our own kernel (own 1: yk_qconv, 2: yk_dwconv), then the node taken
 * over (yrt_conv_absorb_next) on the same rows: their pixels are still in this core's cache. */
static void own_conv_rows(const void *ctx, size_t r0, size_t r1) {
  const own_conv_ctx *t = ctx;
  if (t->c->own == 1) yk_qconv_rows(&t->c->qc, t->x, t->y, (int)r0, (int)r1);
  else yk_dwconv_rows(&t->c->dw, t->x, t->y, (int)r0, (int)r1);
  if (t->c->dyn_rows) t->c->dyn_rows(t->c, t->x, t->y, r0, r1);
  if (t->c->post_add) {
    const size_t ow = (size_t)t->c->qc.ow; /* own 1 only (yrt_conv_absorb_next) */
    t->c->post_fn(t->s, t->c->post_add, r0 * ow, r1 * ow);
  }
}

/* Bytes an int8 NHWC tensor spans from its first value (a view: its pixels a holder's C apart). */
static size_t span_bytes(const yrt_model *m, uint32_t t) {
  const yrt_tensor_rec *r = &m->tensors[t];
  const size_t c = r->rank ? (size_t)r->dims[r->rank - 1] : 1, px = c ? yrt_tensor_numel(r) / c : 0;
  return px ? (px - 1) * yrt_pixel_stride(m, r) + c : 0;
}

/* Tensors a (at pa) and b (at pb) share a byte. Two of one holder (same pixels) do exactly when
 * their channel ranges meet; otherwise their spans are compared (the arena reuses bytes). */
static int tensors_overlap(const yrt_model *m, uint32_t a, const void *pa, uint32_t b, const void *pb) {
  if (yrt_view_root(m, a) == yrt_view_root(m, b)) {
    const yrt_tensor_rec *x = &m->tensors[a], *y = &m->tensors[b];
    const uint32_t xa = x->view_holder ? x->view_channel : 0, ya = y->view_holder ? y->view_channel : 0;
    return xa < ya + (uint32_t)y->dims[3] && ya < xa + (uint32_t)x->dims[3];
  }
  const uintptr_t x = (uintptr_t)pa, y = (uintptr_t)pb;
  return x < y + span_bytes(m, b) && y < x + span_bytes(m, a);
}

/* The row's absorb_next: a residual int8 Add (run by pixels with fn) right after this conv, on
 * each task's rows as soon as they are written. Only our groups-1 kernel over dense rows; the
 * converter's plan keeps the conv's input apart from the Add's output (plan_memory.c). */
int yrt_conv_absorb_next(const yrt_session *s, yrt_exec *conv, const yrt_exec *add, yrt_op_pixels_fn fn) {
  const yrt_model *m = s->model;
  yrt_exec_conv *c = yrt_conv_state(conv);
  if (conv->run != yrt_conv_run_i8 || c->own != 1 || c->op || c->post_add) return 0;
  const uint32_t y = conv->node->out[0], z = add->node->out[0], x = conv->node->in[0];
  const yrt_tensor_rec *yr = &m->tensors[y];
  if (yrt_tensor_numel(yr) != add->numel ||
      (size_t)c->qc.n * (size_t)c->qc.oh * (size_t)c->qc.ow * (size_t)c->qc.cout != add->numel)
    return 0;
  /* The Add writes rows while other tasks still read the conv's input (a 3x3 reads the rows
   * around its own) and write their output rows: its output must not touch the first, and
   * touch the second only as the same bytes in place. */
  if (m->tensors[x].dtype != YRT_I8 || tensors_overlap(m, z, add->out, x, conv->in[0])) return 0;
  if (tensors_overlap(m, z, add->out, y, conv->out) &&
      !(add->out == conv->out && yrt_pixel_stride(m, &m->tensors[z]) == yrt_pixel_stride(m, yr)))
    return 0;
  c->post_add = add;
  c->post_fn = fn;
  return 1;
}

/* Our own kernel over all output rows, in rows_per_task ranges on the pool. */
static void run_own_conv(const yrt_session *s, const yrt_exec_conv *c, const void *x, void *y) {
  const own_conv_ctx t = {c, x, y, s};
  const size_t rows = (size_t)(c->own == 1 ? c->qc.n * c->qc.oh : c->dw.p.n * c->dw.p.oh);
  yrt_par_ranges(&s->par, rows, c->rows_per_task, own_conv_rows, &t);
}

#define ACT_PIECE_BYTES (128u << 10) /* float output computed then activated while in L2 */

typedef struct own_act_ctx {
  own_conv_ctx conv;
  act_ctx act; /* act.chunk: the elements of `piece` output rows */
  size_t row_elems, piece;
} own_act_ctx;

/* Rows [r0, r1) of a float-output conv, `piece` rows at a time (r0 is a multiple of it), each
 * piece activated (and measured, into its own range slot) right after it is computed, while it
 * is still in this core's cache. */
static void own_conv_act_rows(const void *ctx, size_t r0, size_t r1) {
  const own_act_ctx *t = ctx;
  for (size_t r = r0; r < r1; r += t->piece) {
    const size_t re = r1 - r < t->piece ? r1 : r + t->piece;
    own_conv_rows(&t->conv, r, re);
    yrt_conv_act_range(&t->act, r * t->row_elems, re * t->row_elems);
  }
}

/* Our own float-output kernel and its activation pass: in one parallel call, each row range
 * activated right after it is computed (the output of a large layer does not fit the caches:
 * a separate pass read it back from memory), when the output is dense and the ranges fit the
 * range slots; else the two passes. The same unary and range functions on the same values:
 * the result and the published range are bit-identical to the two passes. */
void yrt_conv_run_own_act(const yrt_session *s, yrt_exec *e, const void *x) {
  const yrt_exec_conv *c = yrt_conv_state(e);
  const size_t rows = (size_t)(c->own == 1 ? c->qc.n * c->qc.oh : c->dw.p.n * c->dw.p.oh);
  const size_t rpt = c->rows_per_task;
  if (c->act == YRT_UNARY_NONE || (c->g.ys && c->g.ys != c->g.cout) || !rows || !rpt ||
      c->out_numel % rows) {
    run_own_conv(s, c, x, e->out);
    if (c->act != YRT_UNARY_NONE) yrt_conv_act_pass(s, e, e->out, c->out_numel); /* its range: run state */
    return;
  }
  own_act_ctx t = {.conv = {c, x, e->out, s}, .row_elems = c->out_numel / rows};
  /* pieces: a divisor of rows_per_task (so every task's pieces start on multiples of it) of at
   * most ACT_PIECE_BYTES where possible, and at most YRT_RANGE_SLOTS of them */
  const size_t row_bytes = t.row_elems * sizeof(float);
  t.piece = 0;
  for (size_t k = 1; k <= rpt && !t.piece; k++)
    if (rpt % k == 0 && (rpt / k * row_bytes <= ACT_PIECE_BYTES || rpt / k == 1))
      t.piece = rpt / k;
  while ((rows + t.piece - 1) / t.piece > YRT_RANGE_SLOTS && t.piece < rpt) { /* next divisor */
    size_t d = t.piece + 1;
    while (rpt % d) d++;
    t.piece = d;
  }
  const size_t ranges = (rows + t.piece - 1) / t.piece;
  if (ranges > YRT_RANGE_SLOTS) { /* rows_per_task itself too small: never with <= 16 tasks */
    run_own_conv(s, c, x, e->out);
    yrt_conv_act_pass(s, e, e->out, c->out_numel);
    return;
  }
  float lohi[2 * YRT_RANGE_SLOTS] = {0}; /* 0: neutral for the fold (min(0, ...), max(0, ...)) */
  t.act = (act_ctx){s, c->act, e->out, t.piece * t.row_elems, e->pub_range ? lohi : NULL};
  yrt_par_ranges(&s->par, rows, rpt, own_conv_act_rows, &t);
  if (e->pub_range) yrt_range_fold(lohi, ranges, &e->y_lo, &e->y_hi);
}

static void lut_pass(const yrt_session *s, const yrt_exec_conv *c, int8_t *y);

yrt_status yrt_conv_run_i8f32(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_conv_run_own_act(s, (yrt_exec *)e, e->in[0]); /* its range: run state */
  return YRT_OK;
}

yrt_status yrt_conv_run_i8(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  const yrt_exec_conv *c = yrt_conv_state(e);
  if (c->own) { /* the LUT is fused into the kernels' output pass */
    run_own_conv(s, c, e->in[0], e->out);
    return YRT_OK;
  }
  if (c->op) {
    const int xs = yrt_xnn_conv_run(c->op, s->pool);
    if (xs != 0) return yrt_set_error(err, YRT_ERR_BACKEND, "yrt: xnn_run_operator (conv qc8) failed: %d", xs);
  } else {
    yrt_conv_ref_i8(&c->g, e->in[0], c->x_zp, e->in[1], e->in[2] ? e->in[2] : c->zero_bias, c->requant,
                    c->y_zp, c->i_min, c->i_max, e->out);
  }
  if (c->lut) lut_pass(s, c, e->out);
  return YRT_OK;
}

/* The LUT after XNNPACK or the reference: one flat pass, or pixel by pixel when the output is a
 * view inside a wider tensor (its other channels belong to other nodes). */
static void lut_pass(const yrt_session *s, const yrt_exec_conv *c, int8_t *y) {
  const size_t cout = (size_t)c->g.cout, ys = c->g.ys ? (size_t)c->g.ys : cout;
  if (ys == cout) {
    yk_lut_i8(&s->isa, y, y, c->out_numel, c->lut);
    return;
  }
  yk_lut_i8_pixels(&s->isa, y, ys, y, ys, c->out_numel / cout, cout, c->lut);
}


/* c->qc filled by the caller and accepted by yk_qconv_init: pack it (nothing to pack for the
 * scalar variant, which still runs from c->qc) and split its rows into tasks: enough to balance
 * threads, each a few rows so tiles stay long. shareable 0: a private copy (a dynamically
 * quantized conv rewrites its packed head on every run). */
yrt_status yrt_conv_pack_own(yrt_session *s, yrt_exec *e, int shareable, yrt_error *err) {
  yrt_exec_conv *c = yrt_conv_state(e);
  yk_qconv *q = &c->qc;
  /* the model's copy, packed by its first session */
  const int shared =
      shareable ? yrt_model_packed_qconv(s->model->packs, (uint32_t)(e->node - s->model->nodes), q, &s->isa) : 0;
  if (shared == 0) { /* the model's copy has another layout: a private one */
    void *mem = yrt_alloc(s->alloc, q->packed_bytes ? q->packed_bytes : 64);
    if (mem) {
      yk_qconv_pack(q, mem);
      q->packed = mem;
    }
  }
  if (shared < 0 || !q->packed)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory packing conv '%s'",
                         yrt_model_string(s->model, e->node->name));
  c->packed_shared = shared >= 1;
  if (shared == 2) s->packed_in_place += q->packed_bytes; /* the file's bytes (yrt_session_memory) */
  c->rows_per_task = yrt_par_conv_rows(&s->par, (size_t)(c->g.n * c->g.oh), (size_t)c->g.ow,
                                       q->variant == YK_QCONV_AMX ? (size_t)q->mr : 0);
  c->own = 1;
  return YRT_OK;
}

/* Which backend runs an int8-output conv (groups 1) once yk_qconv_init picked our best variant
 * for this CPU: ours, except the plain AVX2 one on an AVX-512 CPU (without VNNI, else init took
 * that): XNNPACK's 512-bit qc8 kernels beat our 256-bit vpmaddwd there (measured 110 vs 70
 * GMAC/s single-thread, docs/performance.md). A float-output conv has no XNNPACK operator:
 * yrt_conv_prepare_i8f32 takes whatever init picked. */
static int own_qconv_wins(const yk_isa *isa, const yk_qconv *q) {
  if (q->variant == YK_QCONV_SCALAR) return 0;
  return !(q->variant == YK_QCONV_AVX2 && isa->avx512);
}

/* A yk_qconv with the node's geometry, everything else zero (the callers add operands and scales). */
yk_qconv yrt_conv_qconv_of_geom(const yrt_conv_geom *g) {
  return (yk_qconv){.n = g->n, .h = g->h, .w = g->w, .cin = g->cin, .oh = g->oh, .ow = g->ow, .cout = g->cout,
                    .kh = g->kh, .kw = g->kw, .sh = g->sh, .sw = g->sw, .pad_t = g->pad_t, .pad_l = g->pad_l,
                    .dh = g->dh, .dw = g->dw};
}

/* Our own int8 kernels: the convolution (groups 1: AVX-512 VNNI on x86-64, NEON/SDOT on AArch64),
 * and the depthwise 3x3 when allow_dw (yk_dwconv, threaded over row ranges with the LUT fused:
 * ~3-4x XNNPACK's qc8 depthwise + LUT pass on YOLO11n, and bit-identical to it: same
 * requantization, (float)acc * scale, round half even, + zp, saturate).
 * Leaves c->own 0 when neither applies. */
static yrt_status prepare_own_i8(yrt_session *s, yrt_exec *e, const int32_t *bias, int allow_dw,
                                 yrt_error *err) {
  yrt_exec_conv *c = yrt_conv_state(e);
  const yrt_conv_geom *g = &c->g;
  const yrt_node_rec *n = e->node;
  if (g->groups == 1) {
    yk_qconv *q = &c->qc;
    *q = yrt_conv_qconv_of_geom(g);
    q->x_zp = c->x_zp;
    q->y_zp = c->y_zp;
    q->weights = e->in[1];
    q->bias = bias;
    q->scale = c->requant;
    q->lut = c->lut;
    q->x_stride = g->xs;
    q->y_stride = g->ys;
    if (yk_qconv_init(q, &s->isa) != 0) return YRT_OK;
    /* with a caller allocator XNNPACK is out (yolort.h): any SIMD variant of ours wins */
    if (!own_qconv_wins(&s->isa, q) && !(s->alloc && q->variant != YK_QCONV_SCALAR)) return YRT_OK;
    return yrt_conv_pack_own(s, e, 1, err);
  }
  if (allow_dw && g->groups == g->cin && g->cin == g->cout && g->kh == 3 && g->kw == 3 && g->dh == 1 &&
      g->dw == 1 && g->sh == g->sw && (g->sh == 1 || g->sh == 2) && g->pad_t == 1 && g->pad_l == 1 &&
      n->p[YRT_CONV_P_PAD_B] <= 1 && n->p[YRT_CONV_P_PAD_R] <= 1) {
    const size_t C = (size_t)g->cin;
    yk_dwconv *d = &c->dw;
    *d = (yk_dwconv){.p = {.n = g->n, .h = g->h, .w = g->w, .c = g->cin, .oh = g->oh, .ow = g->ow,
                           .stride = g->sh, .pad_t = g->pad_t, .pad_l = g->pad_l, .x_zp = c->x_zp,
                           .y_zp = c->y_zp, .requant_scale = c->requant, .lut = c->lut},
                     .bias = bias};
    if (yk_dwconv_init(d, &s->isa) != 0) return YRT_OK;
    /* one block: the [3][3][C] weights (read by the scalar/NEON variants), then the packing */
    const size_t wbytes = (9 * C + 63) / 64 * 64;
    void *mem = yrt_alloc(s->alloc, wbytes + d->packed_bytes);
    if (!mem)
      return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing conv '%s'",
                           yrt_model_string(s->model, n->name));
    c->dw_w = mem;
    const int8_t *w = e->in[1]; /* [C][3][3][1] */
    for (size_t ch = 0; ch < C; ch++)
      for (int k = 0; k < 9; k++) c->dw_w[(size_t)k * C + ch] = w[ch * 9 + (size_t)k];
    d->weights = c->dw_w;
    yk_dwconv_pack(d, (uint8_t *)mem + wbytes);
    /* ~8 tasks of an even number of rows (stride 1 computes row pairs) */
    c->rows_per_task = yrt_par_chunk((size_t)(g->n * g->oh), 8, 2, 2);
    c->own = 2;
  }
  return YRT_OK;
}

yrt_status yrt_conv_prepare_i8(yrt_session *s, yrt_exec *e, yrt_error *err) {
  yrt_exec_conv *c = yrt_conv_state(e);
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &m->tensors[n->in[0]], *w = &m->tensors[n->in[1]], *y = &m->tensors[n->out[0]];
  const yrt_conv_geom *g = &c->g;
  const size_t cout = (size_t)g->cout;
  c->x_zp = x->zero_point;
  c->y_zp = y->zero_point;
  c->i_min = -128;
  c->i_max = 127;
  if (n->p[YRT_CONV_P_ACT] == YRT_UNARY_RELU) c->i_min = (int8_t)(y->zero_point > -128 ? y->zero_point : -128);
  c->lut = n->p[YRT_CONV_P_LUT] >= 0 ? yrt_tensor_const_data(m, &m->tensors[n->p[YRT_CONV_P_LUT]]) : NULL;
  /* A fused LUT maps the conv's own quantization (carried by the LUT tensor) to out[0]'s:
   * requantize the accumulator to the LUT's input domain. */
  if (c->lut) {
    y = &m->tensors[n->p[YRT_CONV_P_LUT]];
    c->y_zp = y->zero_point;
  }
  c->requant = yrt_alloc(s->alloc, cout * sizeof(float));
  c->kscale = yrt_alloc(s->alloc, cout * sizeof(float));
  c->zero_bias = yrt_zalloc(s->alloc, cout, sizeof(int32_t));
  if (!c->requant || !c->kscale || !c->zero_bias)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing conv node '%s'",
                         yrt_model_string(m, n->name));
  const float *ws = yrt_tensor_scales(m, w);
  for (size_t oc = 0; oc < cout; oc++) {
    c->kscale[oc] = ws ? ws[oc] : w->scale;
    c->requant[oc] = x->scale * c->kscale[oc] / y->scale; /* same order as XNNPACK */
  }
  const int32_t *bias = e->in[2] ? e->in[2] : c->zero_bias;
  if (c->i_min == -128 && c->i_max == 127) {
    yrt_status st = prepare_own_i8(s, e, bias, 1, err);
    if (st != YRT_OK || c->own) return st;
  }
  const yrt_xnn_conv_desc d = yrt_conv_xnn_desc(n, g, (size_t)g->xs, (size_t)g->ys);
  /* a session with a caller allocator takes no XNNPACK operator (its memory is XNNPACK's) */
  c->op = s->alloc ? NULL : yrt_xnn_conv_qs8(&d, (int8_t)c->x_zp, x->scale, c->kscale, e->in[1], bias, (int8_t)c->y_zp, y->scale,
                           c->i_min, c->i_max, e->in[0], e->out, yrt_session_xnn_pool(s));
  if (c->op) return YRT_OK;
  c->op = NULL;
  /* XNNPACK refused the shape: our depthwise kernel if it fits, else the scalar reference */
  if (c->i_min == -128 && c->i_max == 127) return prepare_own_i8(s, e, bias, 1, err);
  return YRT_OK;
}

/* int8 x and w, float y = (float)acc * s_x * s_w[c] (groups 1, validated): our conv kernel in
 * its float-output mode (scalar where no SIMD variant exists: XNNPACK has no such operator),
 * threaded over output rows; a float activation after it, as for a float conv. */
yrt_status yrt_conv_prepare_i8f32(yrt_session *s, yrt_exec *e, yrt_error *err) {
  yrt_exec_conv *c = yrt_conv_state(e);
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &m->tensors[n->in[0]], *w = &m->tensors[n->in[1]];
  const yrt_conv_geom *g = &c->g;
  const int act = n->p[YRT_CONV_P_ACT];
  c->act = act == YRT_UNARY_IDENTITY ? YRT_UNARY_NONE : act;
  c->x_zp = x->zero_point;
  c->requant = yrt_alloc(s->alloc, (size_t)g->cout * sizeof(float));
  c->zero_bias = yrt_zalloc(s->alloc, (size_t)g->cout, sizeof(int32_t));
  if (!c->requant || !c->zero_bias)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing conv node '%s'", yrt_model_string(m, n->name));
  const float *ws = yrt_tensor_scales(m, w);
  for (int oc = 0; oc < g->cout; oc++) c->requant[oc] = x->scale * (ws ? ws[oc] : w->scale);
  yk_qconv *q = &c->qc;
  *q = yrt_conv_qconv_of_geom(g);
  q->x_zp = c->x_zp;
  q->weights = e->in[1];
  q->bias = e->in[2] ? e->in[2] : c->zero_bias;
  q->scale = c->requant;
  q->out_f32 = 1;
  if (yk_qconv_init(q, &s->isa) != 0)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: conv '%s': shape not supported by the int8 kernel",
                         yrt_model_string(m, n->name));
  return yrt_conv_pack_own(s, e, 1, err);
}
