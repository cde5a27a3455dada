/* shape_infer.c — ir_infer_shapes: fold-or-infer every node in execution order; ir_infer_node
 * runs the node's row of the op table (onnx_ops.c; the per-op functions are in shape_*.c), and
 * the helpers those functions share. */
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

#define SERR IR_SERR

void ir_set_out(ir_graph *g, const ir_node *n, int k, ir_dtype dt, int rank, const int64_t *dims) {
  if (k >= n->n_out) return;
  ir_tensor *t = &g->tensors[n->out[k]];
  if (dt != IR_UNDEF) t->dtype = dt;
  ir_tensor_set_shape(t, rank, dims);
}

int ir_norm_axis(int64_t axis, int rank, int *out) {
  if (axis < -rank || axis >= rank) return 0;
  *out = (int)(axis < 0 ? axis + rank : axis);
  return 1;
}

yrt_status ir_need_in(const ir_graph *g, const ir_node *n, int k, yrt_error *err) {
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

int64_t ir_clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

yrt_status ir_slice_resolve(const ir_graph *g, const ir_node *n, int64_t *start, int64_t *step,
                            int64_t *len, yrt_error *err) {
  yrt_status st = ir_need_in(g, n, 0, err);
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
    if (!ir_norm_axis(axes[i], r, &a) || seen[a]++)
      return SERR("shape: Slice node '%s': bad axis %lld", n->name, (long long)axes[i]);
    int64_t dim = x->dims[a], s = starts[i], e = ends[i], k = steps[i];
    if (k == 0) return SERR("shape: Slice node '%s': step 0", n->name);
    if (s < 0) s = sat_add(s, dim);
    if (e < 0) e = sat_add(e, dim);
    int64_t l;
    if (k > 0) {
      s = ir_clamp64(s, 0, dim);
      e = ir_clamp64(e, 0, dim);
      l = e > s ? (e - s + k - 1) / k : 0;
    } else {
      s = ir_clamp64(s, 0, dim - 1);
      e = ir_clamp64(e, -1, dim - 1);
      l = s > e ? (s - e + (-k) - 1) / (-k) : 0;
    }
    start[a] = s;
    step[a] = k;
    len[a] = l;
  }
  return YRT_OK;
}

int ir_broadcast(const ir_tensor *a, const ir_tensor *b, int *rank, int64_t *dims) {
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

int ir_get_axes(const ir_graph *g, const ir_node *n, int k, int64_t *axes) {
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
  const ir_node *n = &g->nodes[node];
  if (ir_node_is_op(n, ONNX_OP_YOLORT_DETECT_TOPK) &&
      n->n_in == 1 && n->n_out == 1 && n->in[0] >= 0) { /* fuse_e2e_head.c: [1, 4+nc+ne, N] -> [1, k, 6+ne] */
    const ir_tensor *x = &g->tensors[n->in[0]];
    const int64_t k = ir_attr_int(n, "k", 0), nc = ir_attr_int(n, "nc", 0), ne = ir_attr_int(n, "ne", 0);
    if (x->rank != 3 || x->dims[0] != 1 || x->dims[1] != 4 + nc + ne || k < 1 || ne < 0 || x->dims[2] < k)
      return SERR("shape: node '%s' (end-to-end top-k): input is not [1, %lld, >= %lld]", n->name,
                  (long long)(4 + nc + ne), (long long)k);
    ir_set_out(g, n, 0, IR_F32, 3, (int64_t[]){1, k, 6 + ne});
    return YRT_OK;
  }
  if (n->domain && *n->domain) return onnx_op_unsupported(n, err);
  if (n->n_out < 1) return SERR("shape: node '%s' (%s) has no output", n->name, n->op_type);
  const onnx_op_row *row = ir_node_op(n);
  if (!row || !row->shape) return onnx_op_unsupported(n, err);
  yrt_status st = ir_need_in(g, n, 0, err);
  if (st) return st;
  return row->shape(g, node, row, err);
}

yrt_status ir_infer_shapes(ir_graph *g, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_infer_shapes: NULL graph");
  for (int i = 0; i < g->n_inputs; i++) {
    const ir_tensor *t = &g->tensors[g->inputs[i]];
    if (!ir_shape_known(t))
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: graph input '%s' has no fixed shape (yolort-convert --size N or --size HxW fixes the image size)",
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
  ir_drop_noop_casts(g);
  return YRT_OK;
}
