/* lower_ops.c — one ONNX node -> yrt nodes (everything but Conv, see lower_conv.c).
 * Each lowering picks int8 or float (lower_int8.c), the physical layout it works in
 * (layout.c: follow the first rank-4 activation input, PLAIN where logical order matters),
 * fetches its inputs in that form and defines its outputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_internal.h"
#include "yk.h"

static int decide(lw_ctx *c, int ni) {
  const char *why = NULL;
  int i8 = lw_node_int8(c, ni, &why);
  if (!i8) lw_note_fp32(c, &c->g->nodes[ni], why);
  return i8;
}

static const ir_tensor *T(const lw_ctx *c, int t) { return &c->g->tensors[t]; }

static int norm_axis(int64_t a, int rank) { return (int)(a < 0 ? a + rank : a); }

/* Layout of the first rank-4 activation among the first nd inputs (nd <= 0: all). */
static uint32_t follow_layout(const lw_ctx *c, const ir_node *n, int nd, int out_rank) {
  if (out_rank != 4) return YRT_LAYOUT_PLAIN;
  if (nd <= 0 || nd > n->n_in) nd = n->n_in;
  for (int j = 0; j < nd; j++) {
    int t = n->in[j];
    if (t < 0 || T(c, t)->data || T(c, t)->rank != 4) continue;
    return lw_layout_of(c, t);
  }
  return YRT_LAYOUT_PLAIN;
}

static yrt_status need_io(lw_ctx *c, const ir_node *n, int n_in, int n_out) {
  if (n->n_in < n_in || n->n_out < n_out)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': op '%s' needs %d inputs and %d outputs", n->name,
                  n->op_type, n_in, n_out);
  for (int j = 0; j < n_in; j++)
    if (n->in[j] < 0)
      return lw_err(c, YRT_ERR_FORMAT, "node '%s': input %d missing", n->name, j);
  for (int j = 0; j < n_out; j++)
    if (n->out[j] < 0)
      return lw_err(c, YRT_ERR_FORMAT, "node '%s': output %d missing", n->name, j);
  return YRT_OK;
}

/* Emit op in -> out[0] for int8 data movement with requant when q differs. */
static lw_node *emit_moved(lw_ctx *c, uint32_t op, int xi, int to) {
  int w = lw_requant_begin(c, to, xi);
  if (w < 0) return NULL;
  lw_node *nd = lw_add_node(c, op, &xi, 1, &w, 1);
  if (!nd) return NULL;
  int idx = (int)(nd - c->n);
  if (lw_requant_end(c, w, to) != YRT_OK) return NULL;
  return &c->n[idx]; /* c->n may have moved */
}

/* x op k with k a float scalar, x and the result int8 of one shape (lw_binary_scalar_operand):
 * one LUT node. */
static yrt_status lower_binary_scalar(lw_ctx *c, int ni, int kind, int xj, float k) {
  const ir_node *n = &c->g->nodes[ni];
  const int x = n->in[xj], o = n->out[0];
  const uint32_t layout = follow_layout(c, n, 2, T(c, o)->rank);
  const int xi = lw_get(c, x, 1, layout);
  if (xi < 0) return c->status;
  const int to = lw_def(c, o, 1, layout);
  if (to < 0) return c->status;
  const int lut = lw_lut_binary_scalar(c, kind, k, xj == 1, T(c, x)->q.scale, T(c, x)->q.zero_point,
                                       T(c, o)->q.scale, T(c, o)->q.zero_point);
  if (lut < 0) return c->status;
  const int in[2] = {xi, lut};
  return lw_add_node(c, YRT_OP_LUT, in, 2, &to, 1) ? YRT_OK : c->status;
}

/* An int8 Add of one shape whose scale ratios fit int16 runs in fixed point (yrt_binary_arith),
 * not under --exact-qdq or --float-add (onnxruntime's float chain, bit for bit). */
static int32_t lw_binary_arith(const lw_ctx *c, const lw_node *nd) {
  const lw_tensor *a = &c->t[nd->in[0]], *b = &c->t[nd->in[1]], *y = &c->t[nd->out[0]];
  yk_add_fixed fx;
  if ((c->opt && (c->opt->exact_qdq || c->opt->float_add)) || nd->p[0] != YRT_BIN_ADD || y->dtype != YRT_I8 || a->rank != y->rank ||
      b->rank != y->rank || a->n_scales > 1 || b->n_scales > 1 || y->n_scales > 1)
    return YRT_BIN_FLOAT_CHAIN;
  for (int d = 0; d < y->rank; d++)
    if (a->dims[d] != y->dims[d] || b->dims[d] != y->dims[d]) return YRT_BIN_FLOAT_CHAIN;
  return yk_add_fixed_params((yk_qparams){a->scale, a->zp}, (yk_qparams){b->scale, b->zp},
                             (yk_qparams){y->scale, y->zp}, &fx) == 0
             ? YRT_BIN_I8_FIXED
             : YRT_BIN_FLOAT_CHAIN;
}

static yrt_status lower_binary(lw_ctx *c, int ni, int kind) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 2, 1);
  if (st) return st;
  float k = 0.0f;
  const int xj = lw_binary_scalar_operand(c, ni, &k);
  if (xj >= 0) return lower_binary_scalar(c, ni, kind, xj, k);
  int i8 = decide(c, ni);
  int orank = T(c, n->out[0])->rank;
  uint32_t layout = follow_layout(c, n, 2, orank);
  for (int j = 0; j < 2; j++)
    if (!T(c, n->in[j])->data && T(c, n->in[j])->rank < orank) layout = YRT_LAYOUT_PLAIN;
  int ab[2];
  for (int j = 0; j < 2; j++) {
    ab[j] = lw_get_rank(c, n->in[j], i8, layout, orank);
    if (ab[j] < 0) return c->status;
  }
  int to = lw_def(c, n->out[0], i8, layout);
  if (to < 0) return c->status;
  lw_node *nd = lw_add_node(c, YRT_OP_BINARY, ab, 2, &to, 1);
  if (!nd) return c->status;
  nd->p[0] = kind;
  nd->p[1] = lw_binary_arith(c, nd);
  return YRT_OK;
}

/* Pow with a constant exponent 2 (every element): x * x in float, the only power YOLO heads use
 * ((2 sigmoid)^2 anchor); any other exponent is refused naming it. */
static yrt_status lower_pow(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 2, 1);
  if (st) return st;
  const ir_tensor *e = T(c, n->in[1]);
  const int64_t ne = e->data ? ir_numel(e) : 0;
  int two = ne > 0;
  for (int64_t i = 0; i < ne && two; i++) two = ir_const_f64(e, i) == 2.0;
  if (!two || T(c, n->in[0])->data)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': Pow is supported with a constant exponent 2 only", c->cur);
  const int o = n->out[0];
  const uint32_t layout = follow_layout(c, n, 1, T(c, o)->rank);
  const int xi = lw_get(c, n->in[0], 0, layout);
  if (xi < 0) return c->status;
  const int to = lw_def(c, o, 0, layout);
  if (to < 0) return c->status;
  const int ab[2] = {xi, xi};
  lw_node *nd = lw_add_node(c, YRT_OP_BINARY, ab, 2, &to, 1);
  if (!nd) return c->status;
  nd->p[0] = YRT_BIN_MUL;
  nd->p[1] = YRT_BIN_FLOAT_CHAIN;
  return YRT_OK;
}

static yrt_status lower_unary(lw_ctx *c, int ni, int kind, float alpha) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 1, 1);
  if (st) return st;
  int i8 = decide(c, ni);
  int x = n->in[0], o = n->out[0];
  uint32_t layout = follow_layout(c, n, 1, T(c, o)->rank);
  int xi = lw_get(c, x, i8, layout);
  if (xi < 0) return c->status;
  int to = lw_def(c, o, i8, layout);
  if (to < 0) return c->status;
  if (i8) {
    int lut = lw_lut_unary(c, kind, alpha, T(c, x)->q.scale, T(c, x)->q.zero_point,
                           T(c, o)->q.scale, T(c, o)->q.zero_point);
    if (lut < 0) return c->status;
    int in[2] = {xi, lut};
    return lw_add_node(c, YRT_OP_LUT, in, 2, &to, 1) ? YRT_OK : c->status;
  }
  lw_node *nd = lw_add_node(c, YRT_OP_UNARY, &xi, 1, &to, 1);
  if (!nd) return c->status;
  nd->p[0] = kind;
  nd->f[0] = alpha;
  return YRT_OK;
}

static yrt_status lower_concat(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 1, 1);
  if (st) return st;
  if (n->n_in > YRT_MAX_NODE_IO)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op 'Concat' with %d inputs (max %d)",
                  n->name, n->n_in, YRT_MAX_NODE_IO);
  int i8 = decide(c, ni);
  int orank = T(c, n->out[0])->rank;
  int axis = norm_axis(ir_attr_int(n, "axis", 0), orank);
  if (axis < 0 || axis >= orank)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': Concat axis out of range", n->name);
  uint32_t layout = follow_layout(c, n, 0, orank);
  int in[YRT_MAX_NODE_IO];
  for (int j = 0; j < n->n_in; j++) {
    if (n->in[j] < 0) return lw_err(c, YRT_ERR_FORMAT, "node '%s': empty input", n->name);
    in[j] = lw_get(c, n->in[j], i8, layout);
    if (in[j] < 0) return c->status;
  }
  int to = lw_def(c, n->out[0], i8, layout);
  if (to < 0) return c->status;
  lw_node *nd = lw_add_node(c, YRT_OP_CONCAT, in, n->n_in, &to, 1);
  if (!nd) return c->status;
  nd->p[0] = lw_phys_axis(c->t[to].layout, orank, axis);
  return YRT_OK;
}

static void slice_params(lw_node *nd, uint32_t layout, int rank, const int64_t *st,
                         const int64_t *sp) {
  for (int k = 0; k < YRT_MAX_RANK; k++) {
    nd->p[k] = 0;
    nd->p[6 + k] = 1;
  }
  for (int a = 0; a < rank; a++) {
    int pa = lw_phys_axis(layout, rank, a);
    nd->p[pa] = (int32_t)st[a];
    nd->p[6 + pa] = (int32_t)sp[a];
  }
}

static yrt_status lower_split(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 1, n->n_out);
  if (st) return st;
  int i8 = decide(c, ni);
  int x = n->in[0], r = T(c, x)->rank;
  int axis = norm_axis(ir_attr_int(n, "axis", 0), r);
  if (axis < 0 || axis >= r)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': Split axis out of range", n->name);
  uint32_t layout = follow_layout(c, n, 1, r);
  int xi = lw_get(c, x, i8, layout);
  if (xi < 0) return c->status;
  int64_t start = 0;
  for (int j = 0; j < n->n_out; j++) {
    const ir_tensor *O = T(c, n->out[j]);
    if (O->rank != r)
      return lw_err(c, YRT_ERR_SHAPE, "node '%s': Split output rank", n->name);
    if (!O->is_output && ir_consumers(c->g, n->out[j], NULL, 0) == 0) { /* e.g. merge_split_concat */
      start += O->dims[axis];
      continue;
    }
    int to = lw_def(c, n->out[j], i8, layout);
    if (to < 0) return c->status;
    lw_node *nd = emit_moved(c, YRT_OP_SLICE, xi, to);
    if (!nd) return c->status;
    int64_t s[YRT_MAX_RANK] = {0}, sp[YRT_MAX_RANK] = {1, 1, 1, 1, 1, 1};
    s[axis] = start;
    slice_params(nd, c->t[xi].layout, r, s, sp);
    start += O->dims[axis];
  }
  if (start != T(c, x)->dims[axis])
    return lw_err(c, YRT_ERR_SHAPE, "node '%s': Split sizes sum to %lld, axis has %lld", n->name,
                  (long long)start, (long long)T(c, x)->dims[axis]);
  return YRT_OK;
}

/* Values of a constant 1-D int input or an ints attribute; returns count or -1. */
static int int_list(lw_ctx *c, const ir_node *n, int input, const char *attr, int64_t *v,
                    int cap) {
  if (c->g->opset >= 10 || !attr) {
    if (input >= n->n_in || n->in[input] < 0) return 0;
    const ir_tensor *t = T(c, n->in[input]);
    int64_t k = ir_numel(t);
    if (!t->data || k < 0 || k > cap) return -1;
    for (int64_t i = 0; i < k; i++)
      if (lw_ir_const_i64(t, i, &v[i]) != 0) return -1;
    return (int)k;
  }
  const ir_attr *a = ir_attr_get(n, attr);
  if (!a) return 0;
  if (a->type != IR_ATTR_INTS || a->n_ints > cap) return -1;
  for (int i = 0; i < a->n_ints; i++) v[i] = a->ints[i];
  return a->n_ints;
}

static yrt_status lower_slice(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 1, 1);
  if (st) return st;
  int x = n->in[0], r = T(c, x)->rank;
  const ir_tensor *X = T(c, x), *O = T(c, n->out[0]);
  int64_t starts[YRT_MAX_RANK], ends[YRT_MAX_RANK], axes[YRT_MAX_RANK], steps[YRT_MAX_RANK];
  int ns = int_list(c, n, 1, "starts", starts, YRT_MAX_RANK);
  int ne = int_list(c, n, 2, "ends", ends, YRT_MAX_RANK);
  int na = int_list(c, n, 3, "axes", axes, YRT_MAX_RANK);
  int nst = c->g->opset >= 10 ? int_list(c, n, 4, NULL, steps, YRT_MAX_RANK) : 0;
  if (ns < 0 || ne != ns || na < 0 || (na && na != ns) || nst < 0 || (nst && nst != ns) ||
      r < 0 || r > YRT_MAX_RANK || O->rank != r)
    return lw_err(c, YRT_ERR_UNSUPPORTED,
                  "node '%s': op 'Slice' needs constant starts/ends/axes/steps", n->name);
  (void)ends;
  int64_t s[YRT_MAX_RANK] = {0}, sp[YRT_MAX_RANK] = {1, 1, 1, 1, 1, 1};
  for (int i = 0; i < ns; i++) {
    int a = na ? norm_axis(axes[i], r) : i;
    int64_t step = nst ? steps[i] : 1, d = X->dims[a], b = starts[i];
    if (a < 0 || a >= r || step == 0)
      return lw_err(c, YRT_ERR_FORMAT, "node '%s': Slice axis/step invalid", n->name);
    if (b < 0) b += d;
    if (step > 0) b = b < 0 ? 0 : (b > d ? d : b);
    else b = b < 0 ? 0 : (b > d - 1 ? d - 1 : b);
    s[a] = b;
    sp[a] = step;
  }
  for (int a = 0; a < r; a++) /* the last element read must be inside */
    if (O->dims[a] > 0 && (s[a] + (O->dims[a] - 1) * sp[a] < 0 ||
                           s[a] + (O->dims[a] - 1) * sp[a] >= X->dims[a]))
      return lw_err(c, YRT_ERR_SHAPE, "node '%s': Slice reads outside axis %d", n->name, a);
  int i8 = decide(c, ni);
  uint32_t layout = follow_layout(c, n, 1, r);
  int xi = lw_get(c, x, i8, layout);
  if (xi < 0) return c->status;
  int to = lw_def(c, n->out[0], i8, layout);
  if (to < 0) return c->status;
  lw_node *nd = emit_moved(c, YRT_OP_SLICE, xi, to);
  if (!nd) return c->status;
  slice_params(nd, c->t[xi].layout, r, s, sp);
  return YRT_OK;
}

static yrt_status lower_transpose(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 1, 1);
  if (st) return st;
  int x = n->in[0], r = T(c, x)->rank;
  if (r < 0 || r > YRT_MAX_RANK)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': Transpose rank %d", n->name, r);
  int perm[YRT_MAX_RANK];
  const ir_attr *a = ir_attr_get(n, "perm");
  for (int k = 0; k < r; k++) perm[k] = r - 1 - k;
  if (a) {
    if (a->type != IR_ATTR_INTS || a->n_ints != r)
      return lw_err(c, YRT_ERR_FORMAT, "node '%s': perm has %d entries for rank %d", n->name,
                    a->n_ints, r);
    int seen = 0;
    for (int k = 0; k < r; k++) {
      int64_t p = a->ints[k];
      if (p < 0 || p >= r || (seen & (1 << p)))
        return lw_err(c, YRT_ERR_FORMAT, "node '%s': bad perm", n->name);
      seen |= 1 << p;
      perm[k] = (int)p;
    }
  }
  int i8 = decide(c, ni);
  uint32_t layout = follow_layout(c, n, 1, r);
  int xi = lw_get(c, x, i8, layout);
  if (xi < 0) return c->status;
  /* an NHWC input is read through its physical axes: out logical k = in logical perm[k] */
  int pp[YRT_MAX_RANK];
  for (int k = 0; k < r; k++) pp[k] = lw_phys_axis(c->t[xi].layout, r, perm[k]);
  int to = lw_def(c, n->out[0], i8, YRT_LAYOUT_PLAIN);
  if (to < 0) return c->status;
  lw_node *nd = emit_moved(c, YRT_OP_TRANSPOSE, xi, to);
  if (!nd) return c->status;
  for (int k = 0; k < YRT_MAX_RANK; k++) nd->p[k] = k < r ? pp[k] : k;
  return YRT_OK;
}

static yrt_status lower_reshape(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 1, 1);
  if (st) return st;
  if (ir_numel(T(c, n->in[0])) != ir_numel(T(c, n->out[0])) || ir_numel(T(c, n->out[0])) < 0)
    return lw_err(c, YRT_ERR_SHAPE, "node '%s': %s changes the element count", n->name,
                  n->op_type);
  int i8 = decide(c, ni);
  int xi = lw_get(c, n->in[0], i8, YRT_LAYOUT_PLAIN);
  if (xi < 0) return c->status;
  int to = lw_def(c, n->out[0], i8, YRT_LAYOUT_PLAIN);
  if (to < 0) return c->status;
  return emit_moved(c, YRT_OP_RESHAPE, xi, to) ? YRT_OK : c->status;
}

static yrt_status lower_maxpool(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 1, 1);
  if (st) return st;
  if (n->n_out > 1 && n->out[1] >= 0 && ir_consumers(c->g, n->out[1], NULL, 0) > 0)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op 'MaxPool' Indices output", n->name);
  const ir_tensor *X = T(c, n->in[0]), *O = T(c, n->out[0]);
  const ir_attr *ks = ir_attr_get(n, "kernel_shape");
  if (X->rank != 4 || O->rank != 4 || !ks || ks->type != IR_ATTR_INTS || ks->n_ints != 2)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op 'MaxPool' only 2-D", n->name);
  if (O->dims[0] != X->dims[0] || O->dims[1] != X->dims[1])
    return lw_err(c, YRT_ERR_SHAPE, "node '%s': MaxPool changes N or C", n->name);
  int32_t geo[10];
  st = lw_spatial_params(c, n, X->dims[2], X->dims[3], (int)ks->ints[0], (int)ks->ints[1],
                         O->dims[2], O->dims[3], (int)ir_attr_int(n, "ceil_mode", 0), geo);
  if (st) return st;
  int i8 = decide(c, ni);
  int xi = lw_get(c, n->in[0], i8, YRT_LAYOUT_NHWC);
  if (xi < 0) return c->status;
  int to = lw_def(c, n->out[0], i8, YRT_LAYOUT_NHWC);
  if (to < 0) return c->status;
  lw_node *nd = emit_moved(c, YRT_OP_MAXPOOL, xi, to);
  if (!nd) return c->status;
  for (int k = 0; k < 10; k++) nd->p[k] = geo[k];
  return YRT_OK;
}

static yrt_status lower_resize(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 1, 1);
  if (st) return st;
  const ir_tensor *X = T(c, n->in[0]), *O = T(c, n->out[0]);
  const char *mode = ir_attr_string(n, "mode", "nearest");
  int is_resize = ir_node_is_op(n, ONNX_OP_RESIZE);
  const char *ctm = is_resize ? ir_attr_string(n, "coordinate_transformation_mode", "half_pixel")
                              : "asymmetric";
  const char *nm = is_resize ? ir_attr_string(n, "nearest_mode", "round_prefer_floor") : "floor";
  if (X->rank != 4 || O->rank != 4 || O->dims[0] != X->dims[0] || O->dims[1] != X->dims[1])
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op '%s' only resizes H and W of 4-D",
                  n->name, n->op_type);
  int64_t fh = X->dims[2] > 0 ? O->dims[2] / X->dims[2] : 0;
  int64_t fw = X->dims[3] > 0 ? O->dims[3] / X->dims[3] : 0;
  int integer = fh >= 1 && fw >= 1 && fh * X->dims[2] == O->dims[2] && fw * X->dims[3] == O->dims[3];
  int floor_ok = strcmp(nm, "floor") == 0 ||
                 (strcmp(nm, "round_prefer_floor") == 0 && fh <= 2 && fw <= 2);
  if (strcmp(mode, "nearest") != 0 || strcmp(ctm, "asymmetric") != 0 || !integer || !floor_ok)
    return lw_err(c, YRT_ERR_UNSUPPORTED,
                  "node '%s': op '%s' supported only as nearest, asymmetric, floor, integer "
                  "scales (got mode %s, %s, %s, %lldx%lld -> %lldx%lld)",
                  n->name, n->op_type, mode, ctm, nm, (long long)X->dims[2],
                  (long long)X->dims[3], (long long)O->dims[2], (long long)O->dims[3]);
  int i8 = decide(c, ni);
  int xi = lw_get(c, n->in[0], i8, YRT_LAYOUT_NHWC);
  if (xi < 0) return c->status;
  int to = lw_def(c, n->out[0], i8, YRT_LAYOUT_NHWC);
  if (to < 0) return c->status;
  /* int8 of one image onto another grid: the requantization table goes into the resize (one pass) */
  int in[2] = {xi, -1};
  lw_node *nd;
  if (c->t[to].dtype == YRT_I8 && c->t[xi].dims[0] == 1 &&
      (c->t[to].scale != c->t[xi].scale || c->t[to].zp != c->t[xi].zp)) {
    in[1] = lw_lut_unary(c, YRT_UNARY_IDENTITY, 0.0f, c->t[xi].scale, c->t[xi].zp, c->t[to].scale, c->t[to].zp);
    if (in[1] < 0) return c->status;
    nd = lw_add_node(c, YRT_OP_RESIZE_NEAREST, in, 2, &to, 1);
  } else {
    nd = emit_moved(c, YRT_OP_RESIZE_NEAREST, xi, to);
  }
  if (!nd) return c->status;
  nd->p[0] = 0;
  nd->p[1] = 0;
  nd->f[0] = (float)fh;
  nd->f[1] = (float)fw;
  return YRT_OK;
}

/* The match as one token-major int8 MATMUL (fuse_token_matmul.c matched it). */
static yrt_status lower_token_matmul(lw_ctx *c, int mi, const lw_token_matmul *m) {
  /* R2 may come after the MatMul in the topological order: lower it here, once */
  const int *f = &c->form[m->v_tokens * 4];
  if (f[0] < 0 && f[1] < 0 && f[2] < 0 && f[3] < 0) {
    yrt_status st = lw_lower_node(c, m->reshape_v);
    if (st != YRT_OK) return st;
    c->absorbed[m->reshape_v] = 1;
    c->cur = c->g->nodes[mi].name ? c->g->nodes[mi].name : "?";
  }
  int ab[2];
  ab[0] = lw_get(c, m->p, 1, YRT_LAYOUT_PLAIN);
  if (ab[0] < 0) return c->status;
  ab[1] = lw_get(c, m->v_tokens, 1, YRT_LAYOUT_NHWC);
  if (ab[1] < 0) return c->status;
  const int to = lw_def(c, m->out, 1, YRT_LAYOUT_NHWC);
  if (to < 0) return c->status;
  lw_node *n = lw_add_node(c, YRT_OP_MATMUL, ab, 2, &to, 1);
  if (!n) return c->status;
  n->p[0] = YRT_MATMUL_TOKENS;
  return YRT_OK;
}

static yrt_status lower_matmul(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 2, 1);
  if (st) return st;
  int orank = T(c, n->out[0])->rank;
  if (orank < 2 || T(c, n->in[0])->rank < 2 || T(c, n->in[1])->rank < 2)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op 'MatMul' with a 1-D operand", n->name);
  lw_token_matmul tm; /* the attention's P x V^T in NHWC (fuse_token_matmul.c) */
  if (lw_token_matmul_match(c, ni, &tm)) return lower_token_matmul(c, ni, &tm);
  /* DQ -> MatMul -> Q with per-tensor int8 operands: one int8 MATMUL (QLinearMatMul), else float */
  const int i8 = decide(c, ni);
  int ab[2];
  for (int j = 0; j < 2; j++) {
    ab[j] = lw_get_rank(c, n->in[j], i8, YRT_LAYOUT_PLAIN, orank);
    if (ab[j] < 0) return c->status;
  }
  int to = lw_def(c, n->out[0], i8, YRT_LAYOUT_PLAIN);
  if (to < 0) return c->status;
  return lw_add_node(c, YRT_OP_MATMUL, ab, 2, &to, 1) ? YRT_OK : c->status;
}

static yrt_status lower_softmax(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 1, 1);
  if (st) return st;
  const ir_tensor *X = T(c, n->in[0]);
  int r = X->rank;
  int axis = norm_axis(ir_attr_int(n, "axis", c->g->opset >= 13 ? -1 : 1), r);
  if (axis < 0 || axis >= r)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': Softmax axis out of range", n->name);
  if (c->g->opset < 13) /* old Softmax flattens [axis..]: same thing only when the rest is 1 */
    for (int k = axis + 1; k < r; k++)
      if (X->dims[k] != 1)
        return lw_err(c, YRT_ERR_UNSUPPORTED,
                      "node '%s': op 'Softmax' (opset %lld) over axis %d of rank %d", n->name,
                      (long long)c->g->opset, axis, r);
  /* between QDQ pairs p is scaled by k so that the QUANTIZE reading it rounds as onnxruntime */
  const int qlinear = !n->fp32 && lw_q_ok(c->g, n->in[0]) && lw_q_ok(c->g, n->out[0]);
  const float k = lw_softmax_qlinear_k(T(c, n->out[0])->q.scale);
  const int i8 = lw_softmax_int8(c, ni);
  if (!i8) decide(c, ni);
  lw_softmax_lut sl; /* the LUT before it folded in (fuse_softmax_lut.c) */
  const int fold = i8 && lw_softmax_lut_match(c, ni, &sl) && c->absorbed[sl.op];
  int in[2] = {-1, -1};
  if (fold) {
    in[1] = lw_softmax_lut_table(c, &sl, &in[0]);
    if (in[1] < 0) return c->status;
  } else {
    in[0] = lw_get(c, n->in[0], i8, YRT_LAYOUT_PLAIN);
    if (in[0] < 0) return c->status;
  }
  const int xi = in[0];
  int to = lw_def(c, n->out[0], i8, YRT_LAYOUT_PLAIN);
  if (to < 0) return c->status;
  if (i8) { /* the whole chain in one int8 node, row by row */
    lw_node *nd = lw_add_node(c, YRT_OP_SOFTMAX, in, fold ? 2 : 1, &to, 1);
    if (!nd) return c->status;
    nd->p[0] = axis;
    nd->f[0] = k;
    if (fold) { /* the looked-up codes' quantization: the op's output */
      nd->f[1] = X->q.scale;
      nd->p[1] = X->q.zero_point;
    }
    return YRT_OK;
  }
  int so = to;
  if (qlinear && k != 1.0f) {
    so = lw_temp_like(c, to, "#softmax", YRT_F32, 0.0f, 0);
    if (so < 0) return c->status;
  }
  lw_node *nd = lw_add_node(c, YRT_OP_SOFTMAX, &xi, 1, &so, 1);
  if (!nd) return c->status;
  nd->p[0] = axis;
  if (so == to) return YRT_OK;
  int64_t ones[YRT_MAX_RANK] = {1, 1, 1, 1, 1, 1};
  char name[512];
  snprintf(name, sizeof name, "%s#qlinear_scale", n->name ? n->name : "softmax");
  int kc = lw_const_raw(c, name, YRT_F32, c->t[to].rank, ones, &k, sizeof k);
  if (kc < 0) return c->status;
  int ab[2] = {so, kc};
  nd = lw_add_node(c, YRT_OP_BINARY, ab, 2, &to, 1);
  if (!nd) return c->status;
  nd->p[0] = YRT_BIN_MUL;
  return YRT_OK;
}

static yrt_status lower_gather(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  yrt_status st = need_io(c, n, 2, 1);
  if (st) return st;
  const ir_tensor *X = T(c, n->in[0]), *I = T(c, n->in[1]);
  int r = X->rank;
  int axis = norm_axis(ir_attr_int(n, "axis", 0), r);
  int64_t k = ir_numel(I);
  if (!I->data || k < 0 || I->rank > YRT_MAX_RANK)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op 'Gather' needs constant indices",
                  n->name);
  if (axis < 0 || axis >= r)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': Gather axis out of range", n->name);
  int32_t *idx = malloc(sizeof(int32_t) * (size_t)(k ? k : 1));
  if (!idx) return lw_err(c, YRT_ERR_NOMEM, "convert: out of memory");
  for (int64_t i = 0; i < k; i++) {
    int64_t v = 0;
    if (lw_ir_const_i64(I, i, &v) != 0) v = INT64_MIN;
    if (v < 0 && v != INT64_MIN) v += X->dims[axis];
    if (v < 0 || v >= X->dims[axis]) {
      free(idx);
      return lw_err(c, YRT_ERR_FORMAT, "node '%s': Gather index out of range", n->name);
    }
    idx[i] = (int32_t)v;
  }
  decide(c, ni);
  int it = lw_const_raw(c, I->name, YRT_I32, I->rank < 0 ? 0 : I->rank, I->dims, idx,
                        (size_t)k * 4);
  free(idx);
  if (it < 0) return c->status;
  int xi = lw_get(c, n->in[0], 0, YRT_LAYOUT_PLAIN);
  if (xi < 0) return c->status;
  int to = lw_def(c, n->out[0], 0, YRT_LAYOUT_PLAIN);
  if (to < 0) return c->status;
  int in[2] = {xi, it};
  lw_node *nd = lw_add_node(c, YRT_OP_GATHER, in, 2, &to, 1);
  if (!nd) return c->status;
  nd->p[0] = axis;
  return YRT_OK;
}

static yrt_status lower_dispatch(lw_ctx *c, int ni);
static yrt_status lower_fused_head(lw_ctx *c, int ni, const onnx_op_row *row);

yrt_status lw_lower_node(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  c->cur = n->name ? n->name : "?";
  if (n->dead) return YRT_OK;
  const onnx_op_row *fused = ir_node_row(n);
  if (fused && fused->domain) return lower_fused_head(c, ni, fused); /* whole: no fake-quant step */
  if (c->absorbed[ni]) return YRT_OK;
  yrt_status st = lower_dispatch(c, ni);
  if (st != YRT_OK) return st;
  c->cur = n->name ? n->name : "?";
  return lw_fake_quant_outputs(c, ni);
}

/* Lowering families of the op table's rows (tools/ir/onnx_ops.c): row->lower -> function. */
typedef yrt_status (*lower_fn)(lw_ctx *c, int ni, const onnx_op_row *row);

static yrt_status lower_conv_row(lw_ctx *c, int ni, const onnx_op_row *row) {
  (void)row;
  return lw_lower_conv(c, ni);
}
static yrt_status lower_conv_transpose_row(lw_ctx *c, int ni, const onnx_op_row *row) {
  (void)row;
  return lw_lower_conv_transpose(c, ni);
}
static yrt_status lower_binary_row(lw_ctx *c, int ni, const onnx_op_row *row) {
  return lower_binary(c, ni, row->lower_kind);
}
static yrt_status lower_unary_row(lw_ctx *c, int ni, const onnx_op_row *row) {
  const float alpha = row->alpha != 0.0f ? ir_attr_float(&c->g->nodes[ni], "alpha", row->alpha) : 0.0f;
  return lower_unary(c, ni, row->lower_kind, alpha);
}
#define LOWER_NODE_ONLY(fn)                                                    \
  static yrt_status fn##_row(lw_ctx *c, int ni, const onnx_op_row *row) {    \
    (void)row;                                                                 \
    return fn(c, ni);                                                          \
  }
LOWER_NODE_ONLY(lower_concat)
LOWER_NODE_ONLY(lower_split)
LOWER_NODE_ONLY(lower_slice)
LOWER_NODE_ONLY(lower_transpose)
LOWER_NODE_ONLY(lower_reshape)
LOWER_NODE_ONLY(lower_maxpool)
LOWER_NODE_ONLY(lower_resize)
LOWER_NODE_ONLY(lower_matmul)
LOWER_NODE_ONLY(lower_softmax)
LOWER_NODE_ONLY(lower_gather)
LOWER_NODE_ONLY(lower_pow)
LOWER_NODE_ONLY(lw_lower_detect)
LOWER_NODE_ONLY(lw_lower_obj)
LOWER_NODE_ONLY(lw_lower_e2e)
LOWER_NODE_ONLY(lw_lower_pose)
LOWER_NODE_ONLY(lw_lower_obb)

static const lower_fn k_lower[ONNX_LOWER_COUNT] = {
    [ONNX_LOWER_CONV] = lower_conv_row,         [ONNX_LOWER_BINARY] = lower_binary_row,
    [ONNX_LOWER_UNARY] = lower_unary_row,       [ONNX_LOWER_CONCAT] = lower_concat_row,
    [ONNX_LOWER_SPLIT] = lower_split_row,       [ONNX_LOWER_SLICE] = lower_slice_row,
    [ONNX_LOWER_TRANSPOSE] = lower_transpose_row, [ONNX_LOWER_RESHAPE] = lower_reshape_row,
    [ONNX_LOWER_MAXPOOL] = lower_maxpool_row,   [ONNX_LOWER_RESIZE] = lower_resize_row,
    [ONNX_LOWER_MATMUL] = lower_matmul_row,     [ONNX_LOWER_SOFTMAX] = lower_softmax_row,
    [ONNX_LOWER_GATHER] = lower_gather_row,     [ONNX_LOWER_POW] = lower_pow_row,
    [ONNX_LOWER_CONV_TRANSPOSE] = lower_conv_transpose_row,
    [ONNX_LOWER_DETECT_DECODE] = lw_lower_detect_row, [ONNX_LOWER_OBJ_DECODE] = lw_lower_obj_row,
    [ONNX_LOWER_DETECT_TOPK] = lw_lower_e2e_row,  [ONNX_LOWER_POSE_DECODE] = lw_lower_pose_row,
    [ONNX_LOWER_OBB_DECODE] = lw_lower_obb_row,
};

static yrt_status lower_fused_head(lw_ctx *c, int ni, const onnx_op_row *row) {
  if (row->lower <= ONNX_LOWER_NONE || row->lower >= ONNX_LOWER_COUNT || !k_lower[row->lower])
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': fused op '%s' has no lowering", c->cur, row->op_type);
  return k_lower[row->lower](c, ni, row);
}

static yrt_status lower_dispatch(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  const char *op = n->op_type ? n->op_type : "";
  if (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx") != 0)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op '%s' of domain '%s' is not supported",
                  c->cur, op, n->domain);
  if (c->rep) c->rep->n_onnx_nodes++;
  const onnx_op_row *row = ir_node_op(n);
  if (!row || row->lower <= ONNX_LOWER_NONE || row->lower >= ONNX_LOWER_COUNT || !k_lower[row->lower])
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op '%s' is not supported by yolort-convert",
                  c->cur, op);
  return k_lower[row->lower](c, ni, row);
}
