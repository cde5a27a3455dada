/* shape_movement.c — shapes of the ops that move data without computing (rows of onnx_ops.c):
 * Concat, Split, Slice, Reshape, Flatten, Transpose, Squeeze/Unsqueeze, Gather, Resize/Upsample.
 * Axes, split sizes and perms are written back explicit and non-negative for the lowering. */
#include <stdint.h>
#include <string.h>

#include "ir.h"
#include "ir_passes.h"

#define SERR IR_SERR

IR_SHAPE_FN(ir_shape_concat) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank, a;
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof(dims));
  if (!ir_attr_get(n, "axis") || !ir_norm_axis(ir_attr_int(n, "axis", 0), r, &a))
    return SERR("shape: Concat node '%s': bad axis", n->name);
  dims[a] = 0;
  for (int k = 0; k < n->n_in; k++) {
    yrt_status st = ir_need_in(g, n, k, err);
    if (st) return st;
    const ir_tensor *t = &g->tensors[n->in[k]];
    if (t->rank != r) return SERR("shape: Concat node '%s': input ranks differ", n->name);
    for (int i = 0; i < r; i++)
      if (i != a && t->dims[i] != x->dims[i])
        return SERR("shape: Concat node '%s': input %d dim %d is %lld, expected %lld", n->name,
                    k, i, (long long)t->dims[i], (long long)x->dims[i]);
    if (__builtin_add_overflow(dims[a], t->dims[a], &dims[a])) /* as Split's sizes (F11) */
      return SERR("shape: Concat node '%s': axis sizes overflow", n->name);
  }
  if (ir_set_attr_int(g, node, "axis", a)) return yrt_set_error(err, YRT_ERR_NOMEM, "oom");
  ir_set_out(g, &g->nodes[node], 0, x->dtype, r, dims);
  return YRT_OK;
}

/* Sizes from the 'split' input (opset 13+), the attribute, or num_outputs / equal chunks. */
IR_SHAPE_FN(ir_shape_split) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank, a;
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof(dims));
  if (!ir_norm_axis(ir_attr_int(n, "axis", 0), r, &a))
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
    int64_t chunk; /* opset 18: last chunk may be smaller */
    if (__builtin_add_overflow(x->dims[a], (int64_t)ns - 1, &chunk))
      return SERR("shape: Split node '%s': axis of %lld elements", n->name, (long long)x->dims[a]);
    chunk /= ns;
    for (int i = 0; i < ns; i++) {
      int64_t left = x->dims[a] - chunk * i;
      sz[i] = left < chunk ? (left > 0 ? left : 0) : chunk;
    }
  }
  int64_t total = 0;
  for (int i = 0; i < ns; i++) {
    if (sz[i] < 0) return SERR("shape: Split node '%s': negative size", n->name);
    if (__builtin_add_overflow(total, sz[i], &total)) /* fuzz F11: sizes near INT64_MAX */
      return SERR("shape: Split node '%s': sizes overflow", n->name);
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
    ir_set_out(g, n, i, x->dtype, r, dims);
  }
  return YRT_OK;
}

IR_SHAPE_FN(ir_shape_slice) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  int64_t s[IR_MAX_RANK], k[IR_MAX_RANK], l[IR_MAX_RANK];
  yrt_status st = ir_slice_resolve(g, n, s, k, l, err);
  if (st) return st;
  const ir_tensor *x = &g->tensors[n->in[0]];
  ir_set_out(g, n, 0, x->dtype, x->rank, l);
  return YRT_OK;
}

IR_SHAPE_FN(ir_shape_reshape) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank;
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
  ir_set_out(g, n, 0, x->dtype, ns, sh);
  return YRT_OK;
}

IR_SHAPE_FN(ir_shape_flatten) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank, a;
  int64_t ax = ir_attr_int(n, "axis", 1);
  if (ax == r) a = r;
  else if (!ir_norm_axis(ax, r, &a)) return SERR("shape: Flatten node '%s': bad axis", n->name);
  int64_t d2[2] = {1, 1};
  for (int i = 0; i < r; i++) d2[i >= a] *= x->dims[i];
  ir_set_out(g, n, 0, x->dtype, 2, d2);
  return YRT_OK;
}

IR_SHAPE_FN(ir_shape_transpose) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank;
  int64_t dims[IR_MAX_RANK], perm[IR_MAX_RANK];
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
  ir_set_out(g, &g->nodes[node], 0, x->dtype, r, dims);
  return YRT_OK;
}

/* Squeeze (no axes: every dim of 1) and Unsqueeze (axes required). */
IR_SHAPE_FN(ir_shape_squeeze) {
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank;
  int64_t dims[IR_MAX_RANK], axes[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof(dims));
  int na = ir_get_axes(g, n, 1, axes);
  if (na == -1)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: %s node '%s': axes not constant",
                         n->op_type, n->name);
  int rr = 0;
  if (row->id == ONNX_OP_SQUEEZE) {
    int drop[IR_MAX_RANK] = {0};
    if (na < 0) {
      for (int i = 0; i < r; i++) drop[i] = x->dims[i] == 1;
    } else {
      for (int i = 0; i < na; i++) {
        int a;
        if (!ir_norm_axis(axes[i], r, &a) || x->dims[a] != 1)
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
      if (!ir_norm_axis(axes[i], orank, &a) || ins[a]++)
        return SERR("shape: Unsqueeze node '%s': bad axis", n->name);
    }
    int j = 0;
    for (int i = 0; i < orank; i++) dims[i] = ins[i] ? 1 : x->dims[j++];
    rr = orank;
  }
  ir_set_out(g, n, 0, x->dtype, rr, dims);
  return YRT_OK;
}

IR_SHAPE_FN(ir_shape_gather) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  yrt_status st = ir_need_in(g, n, 1, err);
  if (st) return st;
  const ir_tensor *x = &g->tensors[n->in[0]], *ind = &g->tensors[n->in[1]];
  int r = x->rank, a;
  int64_t dims[IR_MAX_RANK];
  if (!ir_norm_axis(ir_attr_int(n, "axis", 0), r, &a))
    return SERR("shape: Gather node '%s': bad axis", n->name);
  if (r - 1 + ind->rank > IR_MAX_RANK) return SERR("shape: Gather node '%s': rank", n->name);
  int rr = 0;
  for (int i = 0; i < a; i++) dims[rr++] = x->dims[i];
  for (int i = 0; i < ind->rank; i++) dims[rr++] = ind->dims[i];
  for (int i = a + 1; i < r; i++) dims[rr++] = x->dims[i];
  if (ir_set_attr_int(g, node, "axis", a)) return yrt_set_error(err, YRT_ERR_NOMEM, "oom");
  ir_set_out(g, &g->nodes[node], 0, x->dtype, rr, dims);
  return YRT_OK;
}

/* Resize (scales or sizes, opset 11+ inputs) and Upsample (scales input or attribute). */
IR_SHAPE_FN(ir_shape_resize) {
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  const char *op = n->op_type;
  const int upsample = row->id == ONNX_OP_UPSAMPLE;
  int r = x->rank;
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof(dims));
  double sc[IR_MAX_RANK];
  int64_t sizes[IR_MAX_RANK], axes[IR_MAX_RANK];
  int nsz = -2, nsc = -2;
  int scale_in = upsample ? 1 : (g->opset >= 11 ? 2 : 1);
  if (n->n_in > 3 && n->in[3] >= 0 && !upsample && g->opset >= 11) {
    nsz = ir_const_ints(g, n->in[3], sizes, IR_MAX_RANK);
    if (nsz < 0) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Resize node '%s': "
                                      "sizes must be constant", n->name);
  }
  if (n->n_in > scale_in && n->in[scale_in] >= 0) {
    nsc = ir_const_floats(g, n->in[scale_in], sc, IR_MAX_RANK);
    if (nsc < 0) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: %s node '%s': scales "
                                      "must be constant", op, n->name);
  } else if (upsample) {
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
  int na = ir_get_axes(g, n, 99, axes);
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
    if (!ir_norm_axis(axes[i], r, &a)) return SERR("shape: %s node '%s': bad axis", op, n->name);
    if (nsz >= 0) {
      dims[a] = sizes[i];
    } else {
      if (!(sc[i] > 0) || sc[i] > 1e6) return SERR("shape: %s node '%s': bad scale", op, n->name);
      const double v = (double)x->dims[a] * sc[i]; /* floored below, as the spec says */
      /* in range before the cast (fuzz F10: a side near INT64_MAX times a scale is no int64) */
      if (v >= 1099511627776.0) /* 2^40, onnx_reader.c's bound on dims */
        return SERR("shape: %s node '%s': output side %.3g too large", op, n->name, v);
      dims[a] = v >= 1.0 ? (int64_t)v : 0;
    }
    if (dims[a] < 1) return SERR("shape: %s node '%s': empty output", op, n->name);
  }
  ir_set_out(g, n, 0, x->dtype, r, dims);
  return YRT_OK;
}
