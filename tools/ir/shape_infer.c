/* shape_infer.c — per-node shape/dtype inference for the ONNX ops yolort converts (opset 11-22),
 * and ir_infer_shapes: fold-or-infer every node in execution order. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"

int ir_shape_known(const ir_tensor *t) {
  if (!t || t->rank < 0) return 0;
  for (int i = 0; i < t->rank; i++)
    if (t->dims[i] < 0) return 0;
  return 1;
}

/* Constant tensor t when its data holds all of its at most `cap` elements; NULL otherwise. */
static const ir_tensor *small_const(const ir_graph *g, int t, int cap, int64_t *n) {
  if (t < 0 || t >= g->n_tensors) return NULL;
  const ir_tensor *x = &g->tensors[t];
  if (!x->data || x->rank < 0) return NULL;
  *n = ir_numel(x);
  size_t es = ir_dtype_size(x->dtype);
  if (*n < 0 || *n > cap || !es || (size_t)*n * es > x->nbytes) return NULL;
  return x;
}

int ir_const_ints(const ir_graph *g, int t, int64_t *out, int cap) {
  int64_t n;
  const ir_tensor *x = small_const(g, t, cap, &n);
  if (!x) return -1;
  for (int64_t i = 0; i < n; i++) out[i] = ir_const_i64(x, i);
  return (int)n;
}

int ir_const_floats(const ir_graph *g, int t, double *out, int cap) {
  int64_t n;
  const ir_tensor *x = small_const(g, t, cap, &n);
  if (!x) return -1;
  for (int64_t i = 0; i < n; i++) out[i] = ir_const_f64(x, i);
  return (int)n;
}

/* ---- helpers */

#define SERR(...) yrt_set_error(err, YRT_ERR_SHAPE, __VA_ARGS__)

static void set_out(ir_graph *g, const ir_node *n, int k, ir_dtype dt, int rank, const int64_t *dims) {
  if (k >= n->n_out) return;
  ir_tensor *t = &g->tensors[n->out[k]];
  if (dt != IR_UNDEF) t->dtype = dt;
  ir_tensor_set_shape(t, rank, dims);
}

static int norm_axis(int64_t axis, int rank, int *out) {
  if (axis < -rank || axis >= rank) return 0;
  *out = (int)(axis < 0 ? axis + rank : axis);
  return 1;
}

static yrt_status need_in(const ir_graph *g, const ir_node *n, int k, yrt_error *err) {
  if (k >= n->n_in || n->in[k] < 0)
    return SERR("shape: node '%s' (%s) is missing input %d", n->name, n->op_type, k);
  const ir_tensor *t = &g->tensors[n->in[k]];
  if (!ir_shape_known(t))
    return SERR("shape: node '%s' (%s): shape of input '%s' is unknown", n->name, n->op_type,
                t->name);
  return YRT_OK;
}

static int64_t sat_add(int64_t a, int64_t b) {
  if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
  if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
  return a + b;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

yrt_status ir_slice_resolve(const ir_graph *g, const ir_node *n, int64_t *start, int64_t *step,
                            int64_t *len, yrt_error *err) {
  yrt_status st = need_in(g, n, 0, err);
  if (st) return st;
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank;
  int64_t starts[IR_MAX_RANK], ends[IR_MAX_RANK], axes[IR_MAX_RANK], steps[IR_MAX_RANK];
  int ns, ne, na = -1, nst = -1;
  if (n->n_in >= 3) { /* opset 10+: constant inputs */
    ns = ir_const_ints(g, n->in[1], starts, IR_MAX_RANK);
    ne = ir_const_ints(g, n->in[2], ends, IR_MAX_RANK);
    if (n->n_in > 3 && n->in[3] >= 0) {
      if ((na = ir_const_ints(g, n->in[3], axes, IR_MAX_RANK)) < 0) ns = -1;
    }
    if (n->n_in > 4 && n->in[4] >= 0) {
      if ((nst = ir_const_ints(g, n->in[4], steps, IR_MAX_RANK)) < 0) ns = -1;
    }
    if (ns < 0 || ne < 0)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                           "shape: Slice node '%s' has non-constant starts/ends/axes/steps", n->name);
  } else {
    const ir_attr *as = ir_attr_get(n, "starts"), *ae = ir_attr_get(n, "ends"),
                  *aa = ir_attr_get(n, "axes");
    if (!as || !ae || as->type != IR_ATTR_INTS || ae->type != IR_ATTR_INTS ||
        as->n_ints > IR_MAX_RANK || ae->n_ints > IR_MAX_RANK)
      return SERR("shape: Slice node '%s' needs starts/ends", n->name);
    ns = as->n_ints;
    ne = ae->n_ints;
    memcpy(starts, as->ints, sizeof(int64_t) * (size_t)ns);
    memcpy(ends, ae->ints, sizeof(int64_t) * (size_t)ne);
    if (aa && aa->type == IR_ATTR_INTS && aa->n_ints <= IR_MAX_RANK) {
      na = aa->n_ints;
      memcpy(axes, aa->ints, sizeof(int64_t) * (size_t)na);
    }
  }
  if (na < 0) { na = ns; for (int i = 0; i < na; i++) axes[i] = i; }
  if (nst < 0) { nst = ns; for (int i = 0; i < nst; i++) steps[i] = 1; }
  if (ns != ne || ns != na || ns != nst)
    return SERR("shape: Slice node '%s': starts/ends/axes/steps lengths differ", n->name);
  int seen[IR_MAX_RANK] = {0};
  for (int d = 0; d < r; d++) { start[d] = 0; step[d] = 1; len[d] = x->dims[d]; }
  for (int i = 0; i < ns; i++) {
    int a;
    if (!norm_axis(axes[i], r, &a) || seen[a]++)
      return SERR("shape: Slice node '%s': bad axis %lld", n->name, (long long)axes[i]);
    int64_t dim = x->dims[a], s = starts[i], e = ends[i], k = steps[i];
    if (k == 0) return SERR("shape: Slice node '%s': step 0", n->name);
    if (s < 0) s = sat_add(s, dim);
    if (e < 0) e = sat_add(e, dim);
    int64_t l;
    if (k > 0) {
      s = clamp64(s, 0, dim);
      e = clamp64(e, 0, dim);
      l = e > s ? (e - s + k - 1) / k : 0;
    } else {
      s = clamp64(s, 0, dim - 1);
      e = clamp64(e, -1, dim - 1);
      l = s > e ? (s - e + (-k) - 1) / (-k) : 0;
    }
    start[a] = s;
    step[a] = k;
    len[a] = l;
  }
  return YRT_OK;
}

static int broadcast(const ir_tensor *a, const ir_tensor *b, int *rank, int64_t *dims) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - a->rank), ib = i - (r - b->rank);
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da != db && da != 1 && db != 1) return 0;
    dims[i] = da == 1 ? db : da;
  }
  *rank = r;
  return 1;
}

/* kernel/strides/pads/dilations of Conv and MaxPool, completed and written back as explicit
 * attributes so the lowering never sees defaults or auto_pad. */
static yrt_status pool_geometry(ir_graph *g, int node, const ir_tensor *x, const int64_t *kshape,
                                int allow_auto_pad, int64_t *out_dims, yrt_error *err) {
  ir_node *n = &g->nodes[node];
  int sp = x->rank - 2;
  int64_t k[IR_MAX_RANK], s[IR_MAX_RANK], d[IR_MAX_RANK], p[2 * IR_MAX_RANK];
  const ir_attr *a;
  for (int i = 0; i < sp; i++) { k[i] = kshape[i]; s[i] = 1; d[i] = 1; p[i] = p[i + sp] = 0; }
  if ((a = ir_attr_get(n, "strides")) && a->type == IR_ATTR_INTS) {
    if (a->n_ints != sp) return SERR("shape: node '%s': strides has %d values", n->name, a->n_ints);
    memcpy(s, a->ints, sizeof(int64_t) * (size_t)sp);
  }
  if ((a = ir_attr_get(n, "dilations")) && a->type == IR_ATTR_INTS) {
    if (a->n_ints != sp) return SERR("shape: node '%s': dilations has %d values", n->name, a->n_ints);
    memcpy(d, a->ints, sizeof(int64_t) * (size_t)sp);
  }
  if ((a = ir_attr_get(n, "pads")) && a->type == IR_ATTR_INTS) {
    if (a->n_ints != 2 * sp) return SERR("shape: node '%s': pads has %d values", n->name, a->n_ints);
    memcpy(p, a->ints, sizeof(int64_t) * (size_t)(2 * sp));
  }
  for (int i = 0; i < sp; i++)
    if (k[i] < 1 || s[i] < 1 || d[i] < 1 || p[i] < 0 || p[i + sp] < 0)
      return SERR("shape: node '%s': invalid kernel/stride/dilation/pad", n->name);
  const char *ap = ir_attr_string(n, "auto_pad", "NOTSET");
  int same = strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0;
  if (strcmp(ap, "NOTSET") != 0) {
    if (!allow_auto_pad)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: node '%s' (%s): auto_pad '%s' is "
                           "not supported", n->name, n->op_type, ap);
    if (!same && strcmp(ap, "VALID") != 0)
      return SERR("shape: node '%s': bad auto_pad '%s'", n->name, ap);
    for (int i = 0; i < sp; i++) {
      int64_t pad = 0;
      if (same) {
        int64_t o = (x->dims[2 + i] + s[i] - 1) / s[i];
        pad = (o - 1) * s[i] + (k[i] - 1) * d[i] + 1 - x->dims[2 + i];
        if (pad < 0) pad = 0;
      }
      int upper = strcmp(ap, "SAME_UPPER") == 0;
      p[i] = upper ? pad / 2 : pad - pad / 2;
      p[i + sp] = pad - p[i];
    }
  }
  int ceil_mode = (int)ir_attr_int(n, "ceil_mode", 0);
  for (int i = 0; i < sp; i++) {
    int64_t span = x->dims[2 + i] + p[i] + p[i + sp] - ((k[i] - 1) * d[i] + 1);
    if (span < 0) return SERR("shape: node '%s': kernel larger than padded input", n->name);
    int64_t o = (ceil_mode ? (span + s[i] - 1) / s[i] : span / s[i]) + 1;
    /* ceil_mode: the last window must start inside the input or left padding */
    if (ceil_mode && (o - 1) * s[i] >= x->dims[2 + i] + p[i]) o--;
    out_dims[i] = o;
  }
  if (ir_set_attr_ints(g, node, "kernel_shape", k, sp) || ir_set_attr_ints(g, node, "strides", s, sp) ||
      ir_set_attr_ints(g, node, "dilations", d, sp) || ir_set_attr_ints(g, node, "pads", p, 2 * sp) ||
      ir_set_attr_string(g, node, "auto_pad", "NOTSET"))
    return yrt_set_error(err, YRT_ERR_NOMEM, "shape: out of memory");
  return YRT_OK;
}

static int is_op(const ir_node *n, const char *op) { return strcmp(n->op_type, op) == 0; }

static int in_any(const char *op, const char *const *list) {
  for (; *list; list++)
    if (strcmp(op, *list) == 0) return 1;
  return 0;
}

/* Axes from attribute (opset < 13) or constant input k (opset >= 13). Returns count, -2 if
 * absent, -1 if non-constant. */
static int get_axes(const ir_graph *g, const ir_node *n, int k, int64_t *axes) {
  const ir_attr *a = ir_attr_get(n, "axes");
  if (a && a->type == IR_ATTR_INTS) {
    if (a->n_ints > IR_MAX_RANK) return -1;
    memcpy(axes, a->ints, sizeof(int64_t) * (size_t)a->n_ints);
    return a->n_ints;
  }
  if (n->n_in > k && n->in[k] >= 0) return ir_const_ints(g, n->in[k], axes, IR_MAX_RANK);
  return -2;
}

yrt_status ir_infer_node(ir_graph *g, int node, yrt_error *err) {
  ir_node *n = &g->nodes[node];
  yrt_status st;
  if (n->domain && *n->domain)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "unsupported op '%s' (domain '%s') at node '%s'",
                         n->op_type, n->domain, n->name);
  if (n->n_out < 1) return SERR("shape: node '%s' (%s) has no output", n->name, n->op_type);
  const char *op = n->op_type;
  static const char *const unary[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Identity",
                                      "Clip", "Softmax", "Neg", "Sqrt", "Floor", "Ceil", "Abs",
                                      "HardSigmoid", "HardSwish", "Erf", "Log", "Reciprocal",
                                      "Round", NULL};
  static const char *const binary[] = {"Mul", "Add", "Sub", "Div", "Pow", "Max", "Min", NULL};
  if ((st = need_in(g, n, 0, err))) {
    if (!in_any(op, unary) && !in_any(op, binary) && !in_any(op, (const char *const[]){
            "Conv", "BatchNormalization", "Concat", "Split", "Slice", "MaxPool", "Resize",
            "Upsample", "Reshape", "Transpose", "MatMul", "Gather", "QuantizeLinear",
            "DequantizeLinear", "Flatten", "Squeeze", "Unsqueeze", "Shape", "Cast",
            "GlobalAveragePool", "ConstantOfShape", NULL}))
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "unsupported op '%s' at node '%s'", op, n->name);
    return st;
  }
  ir_tensor *x = &g->tensors[n->in[0]];
  int64_t dims[IR_MAX_RANK];
  int r = x->rank;
  memcpy(dims, x->dims, sizeof(dims));

  if (in_any(op, unary)) {
    set_out(g, n, 0, x->dtype, r, dims);
    if (is_op(n, "Softmax")) {
      int a;
      int64_t dflt = g->opset >= 13 ? -1 : 1;
      if (!norm_axis(ir_attr_int(n, "axis", dflt), r, &a))
        return SERR("shape: Softmax node '%s': bad axis", n->name);
      if (g->opset < 13 && a != r - 1)
        return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Softmax node '%s': opset<13 "
                             "2-D coercion over axis %d of rank %d is not supported", n->name, a, r);
      if (ir_set_attr_int(g, node, "axis", a)) return yrt_set_error(err, YRT_ERR_NOMEM, "oom");
    }
    return YRT_OK;
  }
  if (in_any(op, binary)) {
    int rr = r;
    for (int k = 1; k < n->n_in; k++) {
      if ((st = need_in(g, n, k, err))) return st;
      ir_tensor tmp = {0};
      tmp.rank = rr;
      memcpy(tmp.dims, dims, sizeof(dims));
      if (!broadcast(&tmp, &g->tensors[n->in[k]], &rr, dims))
        return SERR("shape: node '%s' (%s): inputs do not broadcast", n->name, op);
    }
    set_out(g, n, 0, x->dtype, rr, dims);
    return YRT_OK;
  }
  if (is_op(n, "Conv")) {
    if ((st = need_in(g, n, 1, err))) return st;
    const ir_tensor *w = &g->tensors[n->in[1]];
    if (r < 3 || w->rank != r)
      return SERR("shape: Conv node '%s': input rank %d, weight rank %d", n->name, r, w->rank);
    int64_t group = ir_attr_int(n, "group", 1);
    if (group < 1 || w->dims[0] % group || x->dims[1] != w->dims[1] * group)
      return SERR("shape: Conv node '%s': %lld input channels, weight %lldx%lld, group %lld",
                  n->name, (long long)x->dims[1], (long long)w->dims[0], (long long)w->dims[1],
                  (long long)group);
    const ir_attr *ks = ir_attr_get(n, "kernel_shape");
    if (ks && (ks->type != IR_ATTR_INTS || ks->n_ints != r - 2 ||
               memcmp(ks->ints, w->dims + 2, sizeof(int64_t) * (size_t)(r - 2))))
      return SERR("shape: Conv node '%s': kernel_shape disagrees with the weight", n->name);
    if (n->n_in > 2 && n->in[2] >= 0) {
      if ((st = need_in(g, n, 2, err))) return st;
      const ir_tensor *b = &g->tensors[n->in[2]];
      if (b->rank != 1 || b->dims[0] != w->dims[0])
        return SERR("shape: Conv node '%s': bias shape does not match %lld outputs", n->name,
                    (long long)w->dims[0]);
    }
    int64_t od[IR_MAX_RANK];
    if ((st = pool_geometry(g, node, x, w->dims + 2, 1, od, err))) return st;
    if (ir_set_attr_int(g, node, "group", group)) return yrt_set_error(err, YRT_ERR_NOMEM, "oom");
    n = &g->nodes[node];
    dims[1] = w->dims[0];
    memcpy(dims + 2, od, sizeof(int64_t) * (size_t)(r - 2));
    set_out(g, n, 0, IR_F32, r, dims);
    return YRT_OK;
  }
  if (is_op(n, "MaxPool") || is_op(n, "AveragePool")) {
    const ir_attr *ks = ir_attr_get(n, "kernel_shape");
    if (r < 3 || !ks || ks->type != IR_ATTR_INTS || ks->n_ints != r - 2)
      return SERR("shape: %s node '%s' needs kernel_shape for rank %d", op, n->name, r);
    if (n->n_out > 1)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: MaxPool node '%s': Indices output "
                           "is not supported", n->name);
    if (ir_attr_int(n, "storage_order", 0) != 0)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: MaxPool node '%s': storage_order",
                           n->name);
    int64_t k[IR_MAX_RANK], od[IR_MAX_RANK];
    memcpy(k, ks->ints, sizeof(int64_t) * (size_t)(r - 2));
    if ((st = pool_geometry(g, node, x, k, 0, od, err))) return st;
    n = &g->nodes[node];
    memcpy(dims + 2, od, sizeof(int64_t) * (size_t)(r - 2));
    set_out(g, n, 0, x->dtype, r, dims);
    return YRT_OK;
  }
  if (is_op(n, "GlobalAveragePool") || is_op(n, "GlobalMaxPool")) {
    for (int i = 2; i < r; i++) dims[i] = 1;
    set_out(g, n, 0, x->dtype, r, dims);
    return YRT_OK;
  }
  if (is_op(n, "BatchNormalization")) {
    if (r < 2) return SERR("shape: BatchNormalization node '%s': rank %d", n->name, r);
    for (int k = 1; k < 5; k++) {
      if ((st = need_in(g, n, k, err))) return st;
      if (ir_numel(&g->tensors[n->in[k]]) != x->dims[1])
        return SERR("shape: BatchNormalization node '%s': parameter %d is not [C]", n->name, k);
    }
    if (n->n_out > 1)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: BatchNormalization node '%s' in "
                           "training mode is not supported", n->name);
    set_out(g, n, 0, x->dtype, r, dims);
    return YRT_OK;
  }
  if (is_op(n, "Concat")) {
    int a;
    if (!ir_attr_get(n, "axis") || !norm_axis(ir_attr_int(n, "axis", 0), r, &a))
      return SERR("shape: Concat node '%s': bad axis", n->name);
    dims[a] = 0;
    for (int k = 0; k < n->n_in; k++) {
      if ((st = need_in(g, n, k, err))) return st;
      const ir_tensor *t = &g->tensors[n->in[k]];
      if (t->rank != r) return SERR("shape: Concat node '%s': input ranks differ", n->name);
      for (int i = 0; i < r; i++)
        if (i != a && t->dims[i] != x->dims[i])
          return SERR("shape: Concat node '%s': input %d dim %d is %lld, expected %lld", n->name,
                      k, i, (long long)t->dims[i], (long long)x->dims[i]);
      dims[a] += t->dims[a];
    }
    if (ir_set_attr_int(g, node, "axis", a)) return yrt_set_error(err, YRT_ERR_NOMEM, "oom");
    set_out(g, &g->nodes[node], 0, x->dtype, r, dims);
    return YRT_OK;
  }
  if (is_op(n, "Split")) {
    int a;
    if (!norm_axis(ir_attr_int(n, "axis", 0), r, &a))
      return SERR("shape: Split node '%s': bad axis", n->name);
    int64_t sz[64];
    int ns = n->n_out;
    if (ns > 64) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "Split node '%s': >64 outputs", n->name);
    const ir_attr *sa = ir_attr_get(n, "split");
    if (n->n_in > 1 && n->in[1] >= 0) {
      if (ir_const_ints(g, n->in[1], sz, 64) != ns)
        return SERR("shape: Split node '%s': split input must be a constant with %d values",
                    n->name, ns);
    } else if (sa && sa->type == IR_ATTR_INTS) {
      if (sa->n_ints != ns)
        return SERR("shape: Split node '%s': split has %d values for %d outputs", n->name,
                    sa->n_ints, ns);
      memcpy(sz, sa->ints, sizeof(int64_t) * (size_t)ns);
    } else {
      int64_t num = ir_attr_int(n, "num_outputs", ns);
      if (num != ns) return SERR("shape: Split node '%s': num_outputs != outputs", n->name);
      int64_t chunk = (x->dims[a] + ns - 1) / ns; /* opset 18: last chunk may be smaller */
      for (int i = 0; i < ns; i++) {
        int64_t left = x->dims[a] - chunk * i;
        sz[i] = left < chunk ? (left > 0 ? left : 0) : chunk;
      }
    }
    int64_t total = 0;
    for (int i = 0; i < ns; i++) {
      if (sz[i] < 0) return SERR("shape: Split node '%s': negative size", n->name);
      total += sz[i];
    }
    if (total != x->dims[a])
      return SERR("shape: Split node '%s': sizes sum to %lld, axis has %lld", n->name,
                  (long long)total, (long long)x->dims[a]);
    if (ir_set_attr_int(g, node, "axis", a) || ir_set_attr_ints(g, node, "split", sz, ns))
      return yrt_set_error(err, YRT_ERR_NOMEM, "oom");
    n = &g->nodes[node];
    x = &g->tensors[n->in[0]];
    for (int i = 0; i < ns; i++) {
      dims[a] = sz[i];
      set_out(g, n, i, x->dtype, r, dims);
    }
    return YRT_OK;
  }
  if (is_op(n, "Slice")) {
    int64_t s[IR_MAX_RANK], k[IR_MAX_RANK], l[IR_MAX_RANK];
    if ((st = ir_slice_resolve(g, n, s, k, l, err))) return st;
    set_out(g, n, 0, x->dtype, r, l);
    return YRT_OK;
  }
  if (is_op(n, "Resize") || is_op(n, "Upsample")) {
    double sc[IR_MAX_RANK];
    int64_t sizes[IR_MAX_RANK], axes[IR_MAX_RANK];
    int nsz = -2, nsc = -2;
    int scale_in = is_op(n, "Upsample") ? 1 : (g->opset >= 11 ? 2 : 1);
    if (n->n_in > 3 && n->in[3] >= 0 && is_op(n, "Resize") && g->opset >= 11) {
      nsz = ir_const_ints(g, n->in[3], sizes, IR_MAX_RANK);
      if (nsz < 0) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Resize node '%s': "
                                        "sizes must be constant", n->name);
    }
    if (n->n_in > scale_in && n->in[scale_in] >= 0) {
      nsc = ir_const_floats(g, n->in[scale_in], sc, IR_MAX_RANK);
      if (nsc < 0) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: %s node '%s': scales "
                                        "must be constant", op, n->name);
    } else if (is_op(n, "Upsample")) {
      const ir_attr *a = ir_attr_get(n, "scales");
      if (a && a->type == IR_ATTR_FLOATS && a->n_floats <= IR_MAX_RANK) {
        nsc = a->n_floats;
        for (int i = 0; i < nsc; i++) sc[i] = a->floats[i];
      }
    }
    if (nsz == 0) nsz = -2; /* empty sizes = not given */
    if (nsc == 0) nsc = -2;
    if ((nsz < 0) == (nsc < 0))
      return SERR("shape: %s node '%s': exactly one of scales/sizes must be given", op, n->name);
    int na = get_axes(g, n, 99, axes);
    if (na < 0) {
      na = r;
      for (int i = 0; i < r; i++) axes[i] = i;
    }
    int cnt = nsz >= 0 ? nsz : nsc;
    if (cnt != na) return SERR("shape: %s node '%s': %d scales/sizes for %d axes", op, n->name, cnt, na);
    if (ir_attr_get(n, "keep_aspect_ratio_policy") &&
        strcmp(ir_attr_string(n, "keep_aspect_ratio_policy", "stretch"), "stretch") != 0)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Resize node '%s': "
                           "keep_aspect_ratio_policy", n->name);
    for (int i = 0; i < na; i++) {
      int a;
      if (!norm_axis(axes[i], r, &a)) return SERR("shape: %s node '%s': bad axis", op, n->name);
      if (nsz >= 0) {
        dims[a] = sizes[i];
      } else {
        if (!(sc[i] > 0) || sc[i] > 1e6) return SERR("shape: %s node '%s': bad scale", op, n->name);
        dims[a] = (int64_t)((double)x->dims[a] * sc[i]); /* floor, as the spec says */
      }
      if (dims[a] < 1) return SERR("shape: %s node '%s': empty output", op, n->name);
    }
    set_out(g, n, 0, x->dtype, r, dims);
    return YRT_OK;
  }
  if (is_op(n, "Reshape")) {
    int64_t sh[IR_MAX_RANK];
    int ns;
    const ir_attr *a = ir_attr_get(n, "shape");
    if (n->n_in > 1 && n->in[1] >= 0) {
      ns = ir_const_ints(g, n->in[1], sh, IR_MAX_RANK);
    } else if (a && a->type == IR_ATTR_INTS && a->n_ints <= IR_MAX_RANK) {
      ns = a->n_ints;
      memcpy(sh, a->ints, sizeof(int64_t) * (size_t)ns);
    } else {
      ns = -1;
    }
    if (ns < 0)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Reshape node '%s': shape is not a "
                           "constant (after folding)", n->name);
    int allowzero = (int)ir_attr_int(n, "allowzero", 0);
    int64_t total = ir_numel(x), known = 1;
    int minus = -1;
    for (int i = 0; i < ns; i++) {
      if (sh[i] == 0 && !allowzero) {
        if (i >= r) return SERR("shape: Reshape node '%s': 0 beyond input rank", n->name);
        sh[i] = x->dims[i];
      }
      if (sh[i] == -1) {
        if (minus >= 0) return SERR("shape: Reshape node '%s': two -1 dims", n->name);
        minus = i;
      } else if (sh[i] < 0) {
        return SERR("shape: Reshape node '%s': bad dim %lld", n->name, (long long)sh[i]);
      } else if (__builtin_mul_overflow(known, sh[i], &known)) { /* fuzz finding */
        return SERR("shape: Reshape node '%s': shape overflows", n->name);
      }
    }
    if (minus >= 0) {
      if (known == 0 || total % known) return SERR("shape: Reshape node '%s': cannot infer -1", n->name);
      sh[minus] = total / known;
    } else if (known != total) {
      return SERR("shape: Reshape node '%s': %lld elements into %lld", n->name, (long long)total,
                  (long long)known);
    }
    set_out(g, n, 0, x->dtype, ns, sh);
    return YRT_OK;
  }
  if (is_op(n, "Flatten")) {
    int a;
    int64_t ax = ir_attr_int(n, "axis", 1);
    if (ax == r) a = r;
    else if (!norm_axis(ax, r, &a)) return SERR("shape: Flatten node '%s': bad axis", n->name);
    int64_t d2[2] = {1, 1};
    for (int i = 0; i < r; i++) d2[i >= a] *= x->dims[i];
    set_out(g, n, 0, x->dtype, 2, d2);
    return YRT_OK;
  }
  if (is_op(n, "Transpose")) {
    int64_t perm[IR_MAX_RANK];
    const ir_attr *a = ir_attr_get(n, "perm");
    int used[IR_MAX_RANK] = {0};
    if (a && a->type == IR_ATTR_INTS) {
      if (a->n_ints != r) return SERR("shape: Transpose node '%s': perm length", n->name);
      memcpy(perm, a->ints, sizeof(int64_t) * (size_t)r);
    } else {
      for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
    }
    for (int i = 0; i < r; i++) {
      if (perm[i] < 0 || perm[i] >= r || used[perm[i]]++)
        return SERR("shape: Transpose node '%s': bad perm", n->name);
      dims[i] = x->dims[perm[i]];
    }
    if (ir_set_attr_ints(g, node, "perm", perm, r)) return yrt_set_error(err, YRT_ERR_NOMEM, "oom");
    set_out(g, &g->nodes[node], 0, x->dtype, r, dims);
    return YRT_OK;
  }
  if (is_op(n, "MatMul")) {
    if ((st = need_in(g, n, 1, err))) return st;
    ir_tensor a = *x, b = g->tensors[n->in[1]];
    int a1 = a.rank == 1, b1 = b.rank == 1;
    if (a.rank < 1 || b.rank < 1) return SERR("shape: MatMul node '%s': scalar input", n->name);
    if (a1) { a.rank = 2; a.dims[1] = a.dims[0]; a.dims[0] = 1; }
    if (b1) { b.rank = 2; b.dims[1] = 1; }
    if (a.dims[a.rank - 1] != b.dims[b.rank - 2])
      return SERR("shape: MatMul node '%s': inner dims %lld vs %lld", n->name,
                  (long long)a.dims[a.rank - 1], (long long)b.dims[b.rank - 2]);
    ir_tensor ba = a, bb = b;
    ba.rank -= 2;
    bb.rank -= 2;
    int rr;
    if (!broadcast(&ba, &bb, &rr, dims)) return SERR("shape: MatMul node '%s': batch dims", n->name);
    if (!a1) dims[rr++] = a.dims[a.rank - 2];
    if (!b1) dims[rr++] = b.dims[b.rank - 1];
    set_out(g, n, 0, x->dtype, rr, dims);
    return YRT_OK;
  }
  if (is_op(n, "Gather")) {
    if ((st = need_in(g, n, 1, err))) return st;
    const ir_tensor *ind = &g->tensors[n->in[1]];
    int a;
    if (!norm_axis(ir_attr_int(n, "axis", 0), r, &a))
      return SERR("shape: Gather node '%s': bad axis", n->name);
    if (r - 1 + ind->rank > IR_MAX_RANK) return SERR("shape: Gather node '%s': rank", n->name);
    int rr = 0;
    for (int i = 0; i < a; i++) dims[rr++] = x->dims[i];
    for (int i = 0; i < ind->rank; i++) dims[rr++] = ind->dims[i];
    for (int i = a + 1; i < r; i++) dims[rr++] = x->dims[i];
    if (ir_set_attr_int(g, node, "axis", a)) return yrt_set_error(err, YRT_ERR_NOMEM, "oom");
    set_out(g, &g->nodes[node], 0, x->dtype, rr, dims);
    return YRT_OK;
  }
  if (is_op(n, "QuantizeLinear") || is_op(n, "DequantizeLinear")) {
    if ((st = need_in(g, n, 1, err))) return st;
    ir_dtype dt = IR_F32;
    if (is_op(n, "QuantizeLinear")) {
      dt = IR_U8;
      if (n->n_in > 2 && n->in[2] >= 0) dt = g->tensors[n->in[2]].dtype;
      const ir_attr *od = ir_attr_get(n, "output_dtype");
      if (od && od->type == IR_ATTR_INT && od->i) dt = (ir_dtype)od->i;
    }
    set_out(g, n, 0, dt, r, dims);
    return YRT_OK;
  }
  if (is_op(n, "Squeeze") || is_op(n, "Unsqueeze")) {
    int64_t axes[IR_MAX_RANK];
    int na = get_axes(g, n, 1, axes);
    if (na == -1)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: %s node '%s': axes not constant", op,
                           n->name);
    int rr = 0;
    if (is_op(n, "Squeeze")) {
      int drop[IR_MAX_RANK] = {0};
      if (na < 0) {
        for (int i = 0; i < r; i++) drop[i] = x->dims[i] == 1;
      } else {
        for (int i = 0; i < na; i++) {
          int a;
          if (!norm_axis(axes[i], r, &a) || x->dims[a] != 1)
            return SERR("shape: Squeeze node '%s': axis %lld is not 1", n->name, (long long)axes[i]);
          drop[a] = 1;
        }
      }
      for (int i = 0; i < r; i++)
        if (!drop[i]) dims[rr++] = x->dims[i];
    } else {
      if (na < 0) return SERR("shape: Unsqueeze node '%s' needs axes", n->name);
      int orank = r + na;
      if (orank > IR_MAX_RANK) return SERR("shape: Unsqueeze node '%s': rank", n->name);
      int ins[IR_MAX_RANK] = {0};
      for (int i = 0; i < na; i++) {
        int a;
        if (!norm_axis(axes[i], orank, &a) || ins[a]++)
          return SERR("shape: Unsqueeze node '%s': bad axis", n->name);
      }
      int j = 0;
      for (int i = 0; i < orank; i++) dims[i] = ins[i] ? 1 : x->dims[j++];
      rr = orank;
    }
    set_out(g, n, 0, x->dtype, rr, dims);
    return YRT_OK;
  }
  if (is_op(n, "Shape")) {
    int64_t s = ir_attr_int(n, "start", 0), e = ir_attr_int(n, "end", r);
    if (s < 0) s += r;
    if (e < 0) e += r;
    s = clamp64(s, 0, r);
    e = clamp64(e, 0, r);
    int64_t d = e > s ? e - s : 0;
    set_out(g, n, 0, IR_I64, 1, &d);
    return YRT_OK;
  }
  if (is_op(n, "Cast")) {
    int64_t to = ir_attr_int(n, "to", 0);
    if (!ir_dtype_size((ir_dtype)to))
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Cast node '%s' to type %lld", n->name,
                           (long long)to);
    set_out(g, n, 0, (ir_dtype)to, r, dims);
    return YRT_OK;
  }
  if (is_op(n, "ConstantOfShape")) {
    int64_t sh[IR_MAX_RANK];
    int ns = ir_const_ints(g, n->in[0], sh, IR_MAX_RANK);
    if (ns < 0) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: ConstantOfShape node '%s' "
                                     "with a non-constant shape", n->name);
    const ir_attr *v = ir_attr_get(n, "value");
    ir_dtype dt = (v && v->type == IR_ATTR_TENSOR && v->tensor >= 0) ? g->tensors[v->tensor].dtype
                                                                       : IR_F32;
    set_out(g, n, 0, dt, ns, sh);
    return YRT_OK;
  }
  return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "unsupported op '%s' at node '%s'", op, n->name);
}

yrt_status ir_infer_shapes(ir_graph *g, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_infer_shapes: NULL graph");
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_tensor *t = &g->tensors[g->inputs[i]];
    if (!ir_shape_known(t))
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: graph input '%s' has no fixed shape",
                           t->name);
  }
  int *order, n;
  yrt_status st = ir_topo_order(g, &order, &n, err);
  if (st) return st;
  for (int i = 0; i < n && !st; i++) {
    int f = ir_try_fold(g, order[i], 1, &st, err);
    if (f != 0) continue; /* folded (1) or error (-1, st set) */
    st = ir_infer_node(g, order[i], err);
  }
  free(order);
  if (st) return st;
  for (int i = 0; i < g->n_outputs; i++) {
    const ir_tensor *t = &g->tensors[g->outputs[i]];
    if (!ir_shape_known(t))
      return SERR("shape: graph output '%s' has unknown shape", t->name);
  }
  return YRT_OK;
}
