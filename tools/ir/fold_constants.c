/* fold_constants.c — evaluate nodes whose inputs are all constants (shape arithmetic such as
 * Shape->Gather->Unsqueeze->Concat, constant Mul/Add/..., Reshape/Transpose of initializers),
 * so shape-carrying inputs (Reshape shape, Slice starts, Resize scales) become constants. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"

#define FOLD_MAX_ELEMS ((int64_t)1 << 24)

static int is_op(const ir_node *n, const char *op) { return strcmp(n->op_type, op) == 0; }

/* Strides (in elements) of a shape, row-major. */
static void strides_of(int rank, const int64_t *dims, int64_t *st) {
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; i--) { st[i] = s; s *= dims[i]; }
}

/* Offset into a (possibly broadcast) input for output multi-index idx of rank orank. */
static int64_t bcast_offset(const ir_tensor *t, int orank, const int64_t *idx) {
  int64_t st[IR_MAX_RANK], off = 0;
  strides_of(t->rank, t->dims, st);
  for (int i = 0; i < t->rank; i++) {
    int oi = i + orank - t->rank;
    if (t->dims[i] != 1) off += idx[oi] * st[i];
  }
  return off;
}

static void next_index(int rank, const int64_t *dims, int64_t *idx) {
  for (int i = rank - 1; i >= 0; i--) {
    if (++idx[i] < dims[i]) return;
    idx[i] = 0;
  }
}

static void store(void *data, ir_dtype dt, int64_t i, double f, int64_t v, int use_int) {
  char *p = (char *)data;
  switch (dt) {
    case IR_F32: { float x = (float)(use_int ? (double)v : f); memcpy(p + i * 4, &x, 4); break; }
    case IR_F64: { double x = use_int ? (double)v : f; memcpy(p + i * 8, &x, 8); break; }
    case IR_I64: { int64_t x = use_int ? v : (int64_t)f; memcpy(p + i * 8, &x, 8); break; }
    case IR_I32: { int32_t x = (int32_t)(use_int ? v : (int64_t)f); memcpy(p + i * 4, &x, 4); break; }
    case IR_I8: ((int8_t *)p)[i] = (int8_t)(use_int ? v : (int64_t)f); break;
    case IR_U8: ((uint8_t *)p)[i] = (uint8_t)(use_int ? v : (int64_t)f); break;
    case IR_BOOL: ((uint8_t *)p)[i] = (use_int ? v : f) != 0; break;
    default: break;
  }
}

static int is_int_type(ir_dtype t) { return t != IR_F32 && t != IR_F64; }

static int64_t ipow(int64_t b, int64_t e) {
  int64_t r = 1;
  if (e < 0) return 0;
  while (e--) r *= b;
  return r;
}

/* Compute out's data (its shape/dtype already inferred). Returns 1 ok, 0 cannot, -1 nomem. */
static int eval(ir_graph *g, ir_node *n, yrt_status *st, yrt_error *err) {
  ir_tensor *o = &g->tensors[n->out[0]];
  int64_t numel = ir_numel(o);
  size_t es = ir_dtype_size(o->dtype);
  if (numel < 0 || numel > FOLD_MAX_ELEMS || !es) return 0;
  void *data = calloc((size_t)(numel ? numel : 1), es);
  if (!data) return -1;
  const ir_tensor *x = n->n_in > 0 && n->in[0] >= 0 ? &g->tensors[n->in[0]] : NULL;
  int64_t idx[IR_MAX_RANK] = {0};
  const char *op = n->op_type;
  int ok = 1;
  if (is_op(n, "Shape")) {
    int64_t s = ir_attr_int(n, "start", 0);
    if (s < 0) s += x->rank;
    if (s < 0) s = 0;
    for (int64_t i = 0; i < numel; i++) store(data, o->dtype, i, 0, x->dims[s + i], 1);
  } else if (is_op(n, "Identity") || is_op(n, "Reshape") || is_op(n, "Flatten") ||
             is_op(n, "Squeeze") || is_op(n, "Unsqueeze")) {
    if (x->dtype != o->dtype || x->nbytes != (size_t)numel * es) ok = 0;
    else memcpy(data, x->data, x->nbytes);
  } else if (is_op(n, "Cast")) {
    for (int64_t i = 0; i < numel; i++) {
      if (is_int_type(x->dtype)) store(data, o->dtype, i, 0, ir_const_i64(x, i), 1);
      else store(data, o->dtype, i, ir_const_f64(x, i), 0, 0);
    }
  } else if (is_op(n, "ConstantOfShape")) {
    const ir_attr *v = ir_attr_get(n, "value");
    double f = 0;
    int64_t iv = 0;
    if (v && v->type == IR_ATTR_TENSOR && v->tensor >= 0) {
      const ir_tensor *vt = &g->tensors[v->tensor];
      if (ir_numel(vt) != 1 || !vt->data) ok = 0;
      else { f = ir_const_f64(vt, 0); iv = ir_const_i64(vt, 0); }
    }
    for (int64_t i = 0; ok && i < numel; i++) store(data, o->dtype, i, f, iv, is_int_type(o->dtype));
  } else if (is_op(n, "Gather")) {
    const ir_tensor *ind = &g->tensors[n->in[1]];
    int a = (int)ir_attr_int(n, "axis", 0);
    if (a < 0) a += x->rank;
    int64_t outer = 1, inner = 1, ni = ir_numel(ind);
    for (int i = 0; i < a; i++) outer *= x->dims[i];
    for (int i = a + 1; i < x->rank; i++) inner *= x->dims[i];
    size_t xs = ir_dtype_size(x->dtype);
    for (int64_t b = 0; b < outer && ok; b++) {
      for (int64_t j = 0; j < ni; j++) {
        int64_t k = ir_const_i64(ind, j);
        if (k < 0) k += x->dims[a];
        if (k < 0 || k >= x->dims[a]) {
          *st = yrt_set_error(err, YRT_ERR_SHAPE, "fold: Gather node '%s': index %lld out of "
                              "range", n->name, (long long)ir_const_i64(ind, j));
          ok = -2;
          break;
        }
        memcpy((char *)data + ((b * ni + j) * inner) * xs,
               (const char *)x->data + ((b * x->dims[a] + k) * inner) * xs, (size_t)inner * xs);
      }
    }
  } else if (is_op(n, "Concat")) {
    int a = (int)ir_attr_int(n, "axis", 0);
    if (a < 0) a += o->rank;
    int64_t outer = 1, w = 0;
    for (int i = 0; i < a; i++) outer *= o->dims[i];
    int64_t inner = 1;
    for (int i = a + 1; i < o->rank; i++) inner *= o->dims[i];
    for (int k = 0; k < n->n_in; k++)
      if (g->tensors[n->in[k]].dtype != o->dtype) ok = 0;
    for (int64_t b = 0; b < outer && ok; b++) {
      for (int k = 0; k < n->n_in; k++) {
        const ir_tensor *t = &g->tensors[n->in[k]];
        size_t chunk = (size_t)(t->dims[a] * inner) * es;
        memcpy((char *)data + w, (const char *)t->data + (size_t)b * chunk, chunk);
        w += (int64_t)chunk;
      }
    }
  } else if (is_op(n, "Slice")) {
    int64_t s[IR_MAX_RANK], k[IR_MAX_RANK], l[IR_MAX_RANK], xst[IR_MAX_RANK];
    yrt_status r = ir_slice_resolve(g, n, s, k, l, err);
    if (r) { *st = r; ok = -2; }
    strides_of(x->rank, x->dims, xst);
    for (int64_t i = 0; ok == 1 && i < numel; i++) {
      int64_t off = 0;
      for (int d = 0; d < x->rank; d++) off += (s[d] + idx[d] * k[d]) * xst[d];
      memcpy((char *)data + i * (int64_t)es, (const char *)x->data + off * (int64_t)es, es);
      next_index(o->rank, o->dims, idx);
    }
  } else if (is_op(n, "Transpose")) {
    const ir_attr *p = ir_attr_get(n, "perm");
    int64_t xst[IR_MAX_RANK];
    strides_of(x->rank, x->dims, xst);
    if (!p || p->n_ints != x->rank) ok = 0;
    for (int64_t i = 0; ok == 1 && i < numel; i++) {
      int64_t off = 0;
      for (int d = 0; d < o->rank; d++) off += idx[d] * xst[p->ints[d]];
      memcpy((char *)data + i * (int64_t)es, (const char *)x->data + off * (int64_t)es, es);
      next_index(o->rank, o->dims, idx);
    }
  } else if (n->n_in == 2 && (is_op(n, "Add") || is_op(n, "Sub") || is_op(n, "Mul") ||
                              is_op(n, "Div") || is_op(n, "Pow") || is_op(n, "Max") ||
                              is_op(n, "Min"))) {
    const ir_tensor *a = x, *b = &g->tensors[n->in[1]];
    int integer = is_int_type(o->dtype) && is_int_type(b->dtype);
    if (a->dtype != b->dtype && !is_op(n, "Pow")) ok = 0;
    for (int64_t i = 0; ok == 1 && i < numel; i++) {
      int64_t oa = bcast_offset(a, o->rank, idx), ob = bcast_offset(b, o->rank, idx);
      if (integer) {
        int64_t u = ir_const_i64(a, oa), v = ir_const_i64(b, ob), r = 0;
        switch (op[0]) {
          case 'A': r = (int64_t)((uint64_t)u + (uint64_t)v); break;
          case 'S': r = (int64_t)((uint64_t)u - (uint64_t)v); break;
          case 'M':
            if (op[1] == 'u') r = (int64_t)((uint64_t)u * (uint64_t)v);
            else r = (op[1] == 'a') == (u > v) ? u : v;
            break;
          case 'D':
            if (v == 0 || (u == INT64_MIN && v == -1)) {
              *st = yrt_set_error(err, YRT_ERR_FORMAT, "fold: node '%s' divides by zero", n->name);
              ok = -2;
            } else {
              r = u / v;
            }
            break;
          case 'P': r = ipow(u, v); break;
        }
        store(data, o->dtype, i, 0, r, 1);
      } else {
        double u = ir_const_f64(a, oa), v = ir_const_f64(b, ob), r = 0;
        switch (op[0]) {
          case 'A': r = u + v; break;
          case 'S': r = u - v; break;
          case 'M': r = op[1] == 'u' ? u * v : ((op[1] == 'a') == (u > v) ? u : v); break;
          case 'D': r = u / v; break;
          case 'P': r = pow(u, v); break;
        }
        if (o->dtype == IR_F32) { /* float arithmetic in float, as onnxruntime does */
          float fu = (float)u, fv = (float)v, fr = 0;
          switch (op[0]) {
            case 'A': fr = fu + fv; break;
            case 'S': fr = fu - fv; break;
            case 'M': fr = op[1] == 'u' ? fu * fv : (float)r; break;
            case 'D': fr = fu / fv; break;
            case 'P': fr = powf(fu, fv); break;
          }
          r = fr;
        }
        store(data, o->dtype, i, r, 0, 0);
      }
      next_index(o->rank, o->dims, idx);
    }
  } else if (n->n_in == 1 && (is_op(n, "Neg") || is_op(n, "Sqrt") || is_op(n, "Floor") ||
                              is_op(n, "Ceil") || is_op(n, "Abs"))) {
    for (int64_t i = 0; i < numel; i++) {
      if (is_int_type(o->dtype)) {
        int64_t v = ir_const_i64(x, i);
        if (op[0] == 'N') v = -v;
        else if (op[0] == 'A') v = v < 0 ? -v : v;
        else if (op[0] == 'S') { ok = 0; break; }
        store(data, o->dtype, i, 0, v, 1);
      } else {
        float v = (float)ir_const_f64(x, i);
        switch (op[0]) {
          case 'N': v = -v; break;
          case 'S': v = sqrtf(v); break;
          case 'F': v = floorf(v); break;
          case 'C': v = ceilf(v); break;
          case 'A': v = fabsf(v); break;
        }
        store(data, o->dtype, i, v, 0, 0);
      }
    }
  } else {
    ok = 0;
  }
  if (ok != 1) {
    free(data);
    return ok == -2 ? -2 : 0;
  }
  free(o->data);
  o->data = data;
  o->nbytes = (size_t)numel * es;
  return 1;
}

static const char *const foldable[] = {
    "Shape", "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Cast", "ConstantOfShape",
    "Gather", "Concat", "Slice", "Transpose", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min",
    "Neg", "Sqrt", "Floor", "Ceil", "Abs", NULL};

int ir_try_fold(ir_graph *g, int node, int trust_shapes, yrt_status *st, yrt_error *err) {
  ir_node *n = &g->nodes[node];
  *st = YRT_OK;
  if (n->dead || (n->domain && *n->domain)) return 0;
  if (is_op(n, "Constant")) {
    const ir_attr *v = ir_attr_get(n, "value");
    if (n->n_out != 1 || !v || v->type != IR_ATTR_TENSOR || v->tensor < 0) {
      *st = yrt_set_error(err, YRT_ERR_UNSUPPORTED, "fold: Constant node '%s' without a value "
                          "tensor", n->name);
      return -1;
    }
    ir_tensor *src = &g->tensors[v->tensor], *o = &g->tensors[n->out[0]];
    if (ir_tensor_set_data(o, src->data, src->nbytes)) goto nomem;
    o->dtype = src->dtype;
    ir_tensor_set_shape(o, src->rank, src->dims);
    n->dead = 1;
    o->producer = -1;
    return 1;
  }
  int found = 0;
  for (int i = 0; foldable[i]; i++)
    if (is_op(n, foldable[i])) found = 1;
  if (!found || n->n_out != 1 || n->n_in < 1) return 0;
  for (int i = 0; i < n->n_in; i++) {
    if (n->in[i] < 0) continue;
    const ir_tensor *t = &g->tensors[n->in[i]];
    if (i == 0 && is_op(n, "Shape")) {
      if (!ir_shape_known(t) || !(trust_shapes || t->data || t->is_input)) return 0;
      continue;
    }
    if (!t->data || !ir_shape_known(t)) return 0;
  }
  /* shapes first (also validates), then values */
  yrt_error scratch;
  if (ir_infer_node(g, node, &scratch) != YRT_OK) return 0; /* let inference report it */
  n = &g->nodes[node];
  int r = eval(g, n, st, err);
  if (r == -1) goto nomem;
  if (r == -2) return -1;
  if (r == 0) return 0;
  n->dead = 1;
  g->tensors[n->out[0]].producer = -1;
  return 1;
nomem:
  *st = yrt_set_error(err, YRT_ERR_NOMEM, "fold: out of memory at node '%s'", g->nodes[node].name);
  return -1;
}

yrt_status ir_fold_constants(ir_graph *g, yrt_error *err) {
  if (!g) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "ir_fold_constants: NULL graph");
  int *order, n;
  yrt_status st = ir_topo_order(g, &order, &n, err);
  if (st) return st;
  for (int i = 0; i < n && !st; i++) ir_try_fold(g, order[i], 0, &st, err);
  free(order);
  return st;
}
