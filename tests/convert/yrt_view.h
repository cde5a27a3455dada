/* yrt_view.h — tests only: read a .yrt image produced by the converter through the format
 * module (no session needed), and build small IR graphs. */
#ifndef YOLORT_TEST_YRT_VIEW_H
#define YOLORT_TEST_YRT_VIEW_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "yolort_format.h"

typedef struct yv {
  const uint8_t *base;
  size_t size;
  const yrt_file_header *h;
  const char *strings;
  const yrt_tensor_rec *t;
  uint32_t nt;
  const yrt_node_rec *n;
  uint32_t nn;
  const uint8_t *weights;
  const yrt_plan_rec *plan;
  const uint32_t *io; /* n_inputs then n_outputs ids */
  const yrt_meta_rec *meta;
} yv;

/* 0 ok; -1 malformed (header, CRC or section table: the format module's yrt_file_open). */
static inline int yv_open(yv *v, const void *data, size_t size) {
  memset(v, 0, sizeof *v);
  v->base = data;
  v->size = size;
  yrt_file_view im;
  if (((uintptr_t)data & 63u) || yrt_file_open(data, size, &im, NULL) != YRT_OK) return -1;
  v->h = im.hdr;
  v->strings = im.strings;
  v->t = im.tensors;
  v->nt = im.n_tensors;
  v->n = im.nodes;
  v->nn = im.n_nodes;
  v->weights = im.weights;
  v->plan = im.plan;
  v->io = im.plan_inputs;
  v->meta = im.meta;
  return 0;
}

static inline const char *yv_str(const yv *v, uint32_t off) { return v->strings + off; }

static inline int yv_count_op(const yv *v, uint32_t op) {
  int k = 0;
  for (uint32_t i = 0; i < v->nn; i++) k += v->n[i].op == op;
  return k;
}

/* index of the first node with this op (from `from`), -1 if none */
static inline int yv_find_op(const yv *v, uint32_t op, int from) {
  for (uint32_t i = (uint32_t)from; i < v->nn; i++)
    if (v->n[i].op == op) return (int)i;
  return -1;
}

/* Check the memory plan: every ACT/INPUT/OUTPUT inside the arena, 64-aligned, and no two
 * tensors whose lifetimes overlap share bytes — but for a Slice written in place (its output a
 * view of its input's holder): it is its input's bytes by design. Returns the number of violations. */
static inline int yv_check_plan(const yv *v) {
  int bad = 0;
  int *first = malloc(sizeof(int) * v->nt), *last = malloc(sizeof(int) * v->nt);
  uint32_t *base = malloc(sizeof(uint32_t) * v->nt);
  if (!first || !last || !base) {
    free(first);
    free(last);
    free(base);
    return 1;
  }
  for (uint32_t i = 0; i < v->nt; i++) base[i] = i;
  for (uint32_t k = 0; k < v->nn; k++) { /* in execution order: a slice's input has its base already */
    const yrt_node_rec *n = &v->n[k];
    if (n->op != YRT_OP_SLICE || n->in[0] >= v->nt || n->out[0] >= v->nt || !v->t[n->out[0]].view_holder) continue;
    const uint32_t x = n->in[0], y = n->out[0];
    const uint32_t rx = v->t[x].view_holder ? v->t[x].view_holder - 1 : x;
    if (rx == v->t[y].view_holder - 1) base[y] = base[x];
  }
  for (uint32_t i = 0; i < v->nt; i++) first[i] = last[i] = -1;
  for (uint32_t k = 0; k < v->nn; k++) {
    const yrt_node_rec *n = &v->n[k];
    for (uint32_t j = 0; j < n->n_in + n->n_out; j++) {
      uint32_t t = j < n->n_in ? n->in[j] : n->out[j - n->n_in];
      if (t == YRT_NONE || t >= v->nt) continue;
      if (first[t] < 0) first[t] = (int)k;
      last[t] = (int)k;
    }
  }
  for (uint32_t i = 0; i < v->nt; i++) {
    if (v->t[i].kind == YRT_TENSOR_CONST) continue;
    if (v->t[i].kind != YRT_TENSOR_ACT || first[i] < 0) {
      first[i] = 0;
      last[i] = (int)v->nn;
    }
    if ((!v->t[i].view_holder && v->t[i].offset % 64) || v->t[i].offset + v->t[i].nbytes > v->plan->arena_bytes)
      bad++;
  }
  /* Live tensors never share bytes; a view counts as its holder's bytes, and views of one holder
   * conflict only when their channels do (a holder and its own views are one buffer). */
  for (uint32_t i = 0; i < v->nt; i++)
    for (uint32_t j = i + 1; j < v->nt; j++) {
      const yrt_tensor_rec *a = &v->t[i], *b = &v->t[j];
      if (a->kind == YRT_TENSOR_CONST || b->kind == YRT_TENSOR_CONST) continue;
      if (first[i] > last[j] || first[j] > last[i]) continue;
      const uint32_t ri = a->view_holder ? a->view_holder - 1 : i, rj = b->view_holder ? b->view_holder - 1 : j;
      if (ri == rj) {
        if (base[i] == base[j]) continue;
        if (a->view_holder && b->view_holder && a->view_channel < b->view_channel + (uint32_t)b->dims[3] &&
            b->view_channel < a->view_channel + (uint32_t)a->dims[3])
          bad++;
        continue;
      }
      const yrt_tensor_rec *ra = &v->t[ri], *rb = &v->t[rj];
      if (ra->offset < rb->offset + rb->nbytes && rb->offset < ra->offset + ra->nbytes) bad++;
    }
  free(first);
  free(last);
  free(base);
  return bad;
}

/* ---- graph building */

static inline int tb_act(ir_graph *g, const char *name, int rank, const int64_t *dims) {
  int t = ir_add_tensor(g, name, IR_F32);
  if (t >= 0) ir_tensor_set_shape(&g->tensors[t], rank, dims);
  return t;
}

static inline int tb_const(ir_graph *g, const char *name, int rank, const int64_t *dims,
                           const float *data) {
  int t = tb_act(g, name, rank, dims);
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= dims[i];
  if (t >= 0) ir_tensor_set_data(&g->tensors[t], data, sizeof(float) * (size_t)n);
  return t;
}

static inline int tb_const_i64(ir_graph *g, const char *name, int n, const int64_t *v) {
  int t = ir_add_tensor(g, name, IR_I64);
  int64_t d = n;
  if (t >= 0) {
    ir_tensor_set_shape(&g->tensors[t], 1, &d);
    ir_tensor_set_data(&g->tensors[t], v, sizeof(int64_t) * (size_t)n);
  }
  return t;
}

/* Tensor and node ids of tb_conv_silu's graph. */
typedef struct tb_conv_silu_ids {
  int x, w, b, y, s, z, conv;
} tb_conv_silu_ids;

/* x[xd] -> Conv(w[wd], b[wd[0]], pads 1) -> y[yd]; Sigmoid(y) -> s; Mul(y, s) -> z, with x the
 * graph's input and z its output (w and b are copied). */
static inline tb_conv_silu_ids tb_conv_silu(ir_graph *g, const int64_t *xd, const int64_t *wd,
                                            const int64_t *yd, const float *w, const float *b) {
  tb_conv_silu_ids r;
  const int64_t bd[1] = {wd[0]};
  r.x = tb_act(g, "x", 4, xd);
  r.w = tb_const(g, "w", 4, wd, w);
  r.b = tb_const(g, "b", 1, bd, b);
  r.y = tb_act(g, "y", 4, yd);
  r.s = tb_act(g, "s", 4, yd);
  r.z = tb_act(g, "z", 4, yd);
  ir_graph_add_input(g, r.x);
  ir_graph_add_output(g, r.z);
  int in[3] = {r.x, r.w, r.b};
  r.conv = ir_add_node(g, "conv", "Conv", in, 3, &r.y, 1);
  const int64_t pads[4] = {1, 1, 1, 1};
  ir_set_attr_ints(g, r.conv, "pads", pads, 4);
  ir_add_node(g, "sig", "Sigmoid", &r.y, 1, &r.s, 1);
  int ys[2] = {r.y, r.s};
  ir_add_node(g, "mul", "Mul", ys, 2, &r.z, 1);
  return r;
}

static inline void tb_quant(ir_graph *g, int t, float scale, int32_t zp) {
  ir_quant *q = &g->tensors[t].q;
  q->on = 1;
  q->dtype = IR_I8;
  q->scale = scale;
  q->zero_point = zp;
}

/* Per-channel (axis 0) symmetric int8 weights: qdata from data, data replaced by the
 * dequantized copy (as ir_qdq_annotate leaves it). */
static inline void tb_quant_weights(ir_graph *g, int t) {
  ir_tensor *w = &g->tensors[t];
  int64_t co = w->dims[0], n = ir_numel(w), per = n / co;
  float *d = w->data;
  int8_t *q = malloc((size_t)n);
  float *sc = malloc(sizeof(float) * (size_t)co);
  for (int64_t o = 0; o < co; o++) {
    float m = 1e-8f;
    for (int64_t i = 0; i < per; i++) m = fmaxf(m, fabsf(d[o * per + i]));
    sc[o] = m / 127.0f;
    for (int64_t i = 0; i < per; i++) {
      float r = nearbyintf(d[o * per + i] / sc[o]);
      q[o * per + i] = (int8_t)(r > 127 ? 127 : (r < -127 ? -127 : r));
      d[o * per + i] = (float)q[o * per + i] * sc[o];
    }
  }
  w->qdata = q;
  w->q.on = 1;
  w->q.dtype = IR_I8;
  w->q.scale = sc[0];
  w->q.zero_point = 0;
  w->q.scales = sc;
  w->q.n_scales = (int)co;
  w->q.axis = 0;
}

#endif
