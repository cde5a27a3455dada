/* fold_ops.c — values of nodes whose inputs are all constants, one function per op or op family
 * (the `fold` of the rows of onnx_ops.c): shape arithmetic (Shape, Gather, Concat, Slice, Cast,
 * ConstantOfShape), copies (Reshape & co.), Transpose, and small integer/float arithmetic. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"

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

#define OUT() ir_tensor *o = &g->tensors[n->out[0]]; const size_t es = ir_dtype_size(o->dtype)
#define IN0() const ir_tensor *x = &g->tensors[n->in[0]]

IR_FOLD_FN(ir_fold_shape) {
  (void)row, (void)st, (void)err;
  OUT();
  IN0();
  int64_t s = ir_attr_int(n, "start", 0);
  if (s < 0) s += x->rank;
  if (s < 0) s = 0;
  for (int64_t i = 0; i < numel; i++) store(data, o->dtype, i, 0, x->dims[s + i], 1);
  (void)es;
  return 1;
}

IR_FOLD_FN(ir_fold_copy) {
  (void)row, (void)st, (void)err;
  OUT();
  IN0();
  if (x->dtype != o->dtype || x->nbytes != (size_t)numel * es) return 0;
  memcpy(data, x->data, x->nbytes);
  return 1;
}

IR_FOLD_FN(ir_fold_cast) {
  (void)row, (void)st, (void)err;
  OUT();
  IN0();
  (void)es;
  for (int64_t i = 0; i < numel; i++) {
    if (is_int_type(x->dtype)) store(data, o->dtype, i, 0, ir_const_i64(x, i), 1);
    else store(data, o->dtype, i, ir_const_f64(x, i), 0, 0);
  }
  return 1;
}

IR_FOLD_FN(ir_fold_constant_of_shape) {
  (void)row, (void)st, (void)err;
  OUT();
  (void)es;
  const ir_attr *v = ir_attr_get(n, "value");
  double f = 0;
  int64_t iv = 0;
  if (v && v->type == IR_ATTR_TENSOR && v->tensor >= 0) {
    const ir_tensor *vt = &g->tensors[v->tensor];
    if (ir_numel(vt) != 1 || !vt->data) return 0;
    f = ir_const_f64(vt, 0);
    iv = ir_const_i64(vt, 0);
  }
  for (int64_t i = 0; i < numel; i++) store(data, o->dtype, i, f, iv, is_int_type(o->dtype));
  return 1;
}

IR_FOLD_FN(ir_fold_range) {
  (void)row, (void)st, (void)err;
  OUT();
  (void)es;
  const ir_tensor *t0 = &g->tensors[n->in[0]], *t2 = &g->tensors[n->in[2]];
  const int ints = is_int_type(o->dtype);
  for (int64_t i = 0; i < numel; i++) {
    if (ints) store(data, o->dtype, i, 0, ir_const_i64(t0, 0) + i * ir_const_i64(t2, 0), 1);
    else store(data, o->dtype, i, ir_const_f64(t0, 0) + (double)i * ir_const_f64(t2, 0), 0, 0);
  }
  return 1;
}

IR_FOLD_FN(ir_fold_expand) {
  (void)row, (void)st, (void)err;
  OUT();
  IN0();
  if (x->dtype != o->dtype || !x->data) return 0;
  int64_t idx[IR_MAX_RANK] = {0};
  for (int64_t i = 0; i < numel; i++) {
    memcpy((char *)data + (size_t)i * es, (const char *)x->data + (size_t)bcast_offset(x, o->rank, idx) * es, es);
    next_index(o->rank, o->dims, idx);
  }
  return 1;
}

IR_FOLD_FN(ir_fold_gather) {
  (void)row, (void)numel;
  IN0();
  const ir_tensor *ind = &g->tensors[n->in[1]];
  int a = (int)ir_attr_int(n, "axis", 0);
  if (a < 0) a += x->rank;
  int64_t outer = 1, inner = 1, ni = ir_numel(ind);
  for (int i = 0; i < a; i++) outer *= x->dims[i];
  for (int i = a + 1; i < x->rank; i++) inner *= x->dims[i];
  size_t xs = ir_dtype_size(x->dtype);
  for (int64_t b = 0; b < outer; b++) {
    for (int64_t j = 0; j < ni; j++) {
      int64_t k = ir_const_i64(ind, j);
      if (k < 0) k += x->dims[a];
      if (k < 0 || k >= x->dims[a]) {
        *st = yrt_set_error(err, YRT_ERR_SHAPE, "fold: Gather node '%s': index %lld out of "
                            "range", n->name, (long long)ir_const_i64(ind, j));
        return -2;
      }
      memcpy((char *)data + ((b * ni + j) * inner) * xs,
             (const char *)x->data + ((b * x->dims[a] + k) * inner) * xs, (size_t)inner * xs);
    }
  }
  return 1;
}

IR_FOLD_FN(ir_fold_concat) {
  (void)row, (void)numel, (void)st, (void)err;
  OUT();
  int a = (int)ir_attr_int(n, "axis", 0);
  if (a < 0) a += o->rank;
  int64_t outer = 1, w = 0;
  for (int i = 0; i < a; i++) outer *= o->dims[i];
  int64_t inner = 1;
  for (int i = a + 1; i < o->rank; i++) inner *= o->dims[i];
  for (int k = 0; k < n->n_in; k++)
    if (g->tensors[n->in[k]].dtype != o->dtype) return 0;
  for (int64_t b = 0; b < outer; b++) {
    for (int k = 0; k < n->n_in; k++) {
      const ir_tensor *t = &g->tensors[n->in[k]];
      size_t chunk = (size_t)(t->dims[a] * inner) * es;
      memcpy((char *)data + w, (const char *)t->data + (size_t)b * chunk, chunk);
      w += (int64_t)chunk;
    }
  }
  return 1;
}

IR_FOLD_FN(ir_fold_slice) {
  (void)row;
  OUT();
  IN0();
  int64_t s[IR_MAX_RANK], k[IR_MAX_RANK], l[IR_MAX_RANK], xst[IR_MAX_RANK], idx[IR_MAX_RANK] = {0};
  yrt_status r = ir_slice_resolve(g, n, s, k, l, err);
  if (r) {
    *st = r;
    return -2;
  }
  strides_of(x->rank, x->dims, xst);
  for (int64_t i = 0; i < numel; i++) {
    int64_t off = 0;
    for (int d = 0; d < x->rank; d++) off += (s[d] + idx[d] * k[d]) * xst[d];
    memcpy((char *)data + i * (int64_t)es, (const char *)x->data + off * (int64_t)es, es);
    next_index(o->rank, o->dims, idx);
  }
  return 1;
}

IR_FOLD_FN(ir_fold_transpose) {
  (void)row, (void)st, (void)err;
  OUT();
  IN0();
  const ir_attr *p = ir_attr_get(n, "perm");
  int64_t xst[IR_MAX_RANK], idx[IR_MAX_RANK] = {0};
  strides_of(x->rank, x->dims, xst);
  if (!p || p->n_ints != x->rank) return 0;
  for (int64_t i = 0; i < numel; i++) {
    int64_t off = 0;
    for (int d = 0; d < o->rank; d++) off += idx[d] * xst[p->ints[d]];
    memcpy((char *)data + i * (int64_t)es, (const char *)x->data + off * (int64_t)es, es);
    next_index(o->rank, o->dims, idx);
  }
  return 1;
}

/* Add Sub Mul Div Pow Max Min with broadcasting; integers wrap, float math in float. */
IR_FOLD_FN(ir_fold_binary) {
  OUT();
  (void)es;
  if (n->n_in != 2) return 0;
  const onnx_op op = row->id;
  const ir_tensor *a = &g->tensors[n->in[0]], *b = &g->tensors[n->in[1]];
  int64_t idx[IR_MAX_RANK] = {0};
  int integer = is_int_type(o->dtype) && is_int_type(b->dtype);
  if (a->dtype != b->dtype && op != ONNX_OP_POW) return 0;
  for (int64_t i = 0; i < numel; i++) {
    int64_t oa = bcast_offset(a, o->rank, idx), ob = bcast_offset(b, o->rank, idx);
    if (integer) {
      int64_t u = ir_const_i64(a, oa), v = ir_const_i64(b, ob), r = 0;
      switch (op) {
        case ONNX_OP_ADD: r = (int64_t)((uint64_t)u + (uint64_t)v); break;
        case ONNX_OP_SUB: r = (int64_t)((uint64_t)u - (uint64_t)v); break;
        case ONNX_OP_MUL: r = (int64_t)((uint64_t)u * (uint64_t)v); break;
        case ONNX_OP_MAX: r = u > v ? u : v; break;
        case ONNX_OP_MIN: r = u > v ? v : u; break;
        case ONNX_OP_DIV:
          if (v == 0 || (u == INT64_MIN && v == -1)) {
            *st = yrt_set_error(err, YRT_ERR_FORMAT, "fold: node '%s' divides by zero", n->name);
            return -2;
          }
          r = u / v;
          break;
        case ONNX_OP_POW: r = ipow(u, v); break;
        default: return 0;
      }
      store(data, o->dtype, i, 0, r, 1);
    } else {
      double u = ir_const_f64(a, oa), v = ir_const_f64(b, ob), r = 0;
      switch (op) {
        case ONNX_OP_ADD: r = u + v; break;
        case ONNX_OP_SUB: r = u - v; break;
        case ONNX_OP_MUL: r = u * v; break;
        case ONNX_OP_MAX: r = u > v ? u : v; break;
        case ONNX_OP_MIN: r = u > v ? v : u; break;
        case ONNX_OP_DIV: r = u / v; break;
        case ONNX_OP_POW: r = pow(u, v); break;
        default: return 0;
      }
      if (o->dtype == IR_F32) { /* float arithmetic in float, as onnxruntime does */
        float fu = (float)u, fv = (float)v, fr = (float)r;
        switch (op) {
          case ONNX_OP_ADD: fr = fu + fv; break;
          case ONNX_OP_SUB: fr = fu - fv; break;
          case ONNX_OP_MUL: fr = fu * fv; break;
          case ONNX_OP_DIV: fr = fu / fv; break;
          case ONNX_OP_POW: fr = powf(fu, fv); break;
          default: break; /* Max / Min: exact in double */
        }
        r = fr;
      }
      store(data, o->dtype, i, r, 0, 0);
    }
    next_index(o->rank, o->dims, idx);
  }
  return 1;
}

/* Neg Sqrt Floor Ceil Abs; integer Sqrt is left to the runtime. */
IR_FOLD_FN(ir_fold_unary) {
  (void)st, (void)err;
  OUT();
  IN0();
  (void)es;
  if (n->n_in != 1) return 0;
  const onnx_op op = row->id;
  for (int64_t i = 0; i < numel; i++) {
    if (is_int_type(o->dtype)) {
      int64_t v = ir_const_i64(x, i);
      if (op == ONNX_OP_NEG) v = -v;
      else if (op == ONNX_OP_ABS) v = v < 0 ? -v : v;
      else if (op == ONNX_OP_SQRT) return 0;
      store(data, o->dtype, i, 0, v, 1);
    } else {
      float v = (float)ir_const_f64(x, i);
      switch (op) {
        case ONNX_OP_NEG: v = -v; break;
        case ONNX_OP_SQRT: v = sqrtf(v); break;
        case ONNX_OP_FLOOR: v = floorf(v); break;
        case ONNX_OP_CEIL: v = ceilf(v); break;
        case ONNX_OP_ABS: v = fabsf(v); break;
        default: return 0;
      }
      store(data, o->dtype, i, v, 0, 0);
    }
  }
  return 1;
}
