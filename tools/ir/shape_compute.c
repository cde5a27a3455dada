/* shape_compute.c — shapes of the compute ops (rows of onnx_ops.c): Conv, MaxPool/AveragePool,
 * global pooling, BatchNormalization, MatMul. Conv and pooling get their geometry written back
 * as explicit attributes so the lowering never sees defaults or auto_pad. */
#include <string.h>

#include "ir.h"
#include "ir_passes.h"

#define SERR IR_SERR
#define GEOM_MAX ((int64_t)1 << 24) /* a kernel, stride, dilation or pad */
#define DIM_MAX ((int64_t)1 << 40)  /* an input side (onnx_reader.c's bound on dims) */

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
  /* bounded so the window arithmetic below stays in int64 (fuzz F9: pads of 2^63 - 1 overflowed
   * it); tensors are refused far below these sizes anyway (2^24 per dim at lowering) */
  for (int i = 0; i < sp; i++)
    if (k[i] > GEOM_MAX || s[i] > GEOM_MAX || d[i] > GEOM_MAX || p[i] > GEOM_MAX || p[i + sp] > GEOM_MAX ||
        x->dims[2 + i] > DIM_MAX)
      return SERR("shape: node '%s': kernel %lld, stride %lld, dilation %lld, pads %lld/%lld or input side %lld "
                  "out of range (at most %lld; the side %lld)",
                  n->name, (long long)k[i], (long long)s[i], (long long)d[i], (long long)p[i], (long long)p[i + sp],
                  (long long)x->dims[2 + i], (long long)GEOM_MAX, (long long)DIM_MAX);
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

IR_SHAPE_FN(ir_shape_conv) {
  (void)row;
  ir_node *n = &g->nodes[node];
  yrt_status st;
  if ((st = ir_need_in(g, n, 1, err))) return st;
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank;
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof(dims));
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
    if ((st = ir_need_in(g, n, 2, err))) return st;
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
  ir_set_out(g, n, 0, IR_F32, r, dims);
  return YRT_OK;
}

/* ConvTranspose, 2-D: out = (in - 1) s - pad_begin - pad_end + (k - 1) d + 1 + output_padding.
 * The geometry is written back as explicit attributes; auto_pad and output_shape (which ask the
 * runtime to pick the pads) are refused naming them, never guessed. */
IR_SHAPE_FN(ir_shape_conv_transpose) {
  (void)row;
  ir_node *n = &g->nodes[node];
  yrt_status st;
  if ((st = ir_need_in(g, n, 1, err))) return st;
  const ir_tensor *x = &g->tensors[n->in[0]], *w = &g->tensors[n->in[1]];
  if (x->rank != 4 || w->rank != 4)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: ConvTranspose node '%s': only 2-D (input rank %d, weight "
                         "rank %d)", n->name, x->rank, w->rank);
  const int64_t group = ir_attr_int(n, "group", 1);
  if (group < 1 || x->dims[1] != w->dims[0] || x->dims[1] % group)
    return SERR("shape: ConvTranspose node '%s': %lld input channels, weight [%lld, %lld, ...], group %lld", n->name,
                (long long)x->dims[1], (long long)w->dims[0], (long long)w->dims[1], (long long)group);
  const char *ap = ir_attr_string(n, "auto_pad", "NOTSET");
  if (strcmp(ap, "NOTSET") != 0 || ir_attr_get(n, "output_shape"))
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: ConvTranspose node '%s': %s is not supported (give "
                         "explicit pads)", n->name, strcmp(ap, "NOTSET") != 0 ? "auto_pad" : "output_shape");
  int64_t k[2] = {w->dims[2], w->dims[3]}, s[2] = {1, 1}, d[2] = {1, 1}, p[4] = {0, 0, 0, 0}, op[2] = {0, 0};
  static const char *names[4] = {"strides", "dilations", "pads", "output_padding"};
  int64_t *dst[4] = {s, d, p, op};
  const int want[4] = {2, 2, 4, 2};
  for (int a = 0; a < 4; a++) {
    const ir_attr *at = ir_attr_get(n, names[a]);
    if (!at) continue;
    if (at->type != IR_ATTR_INTS || at->n_ints != want[a])
      return SERR("shape: ConvTranspose node '%s': %s has %d values", n->name, names[a], at->n_ints);
    memcpy(dst[a], at->ints, sizeof(int64_t) * (size_t)want[a]);
  }
  const ir_attr *ks = ir_attr_get(n, "kernel_shape");
  if (ks && (ks->type != IR_ATTR_INTS || ks->n_ints != 2 || ks->ints[0] != k[0] || ks->ints[1] != k[1]))
    return SERR("shape: ConvTranspose node '%s': kernel_shape disagrees with the weight", n->name);
  int64_t dims[IR_MAX_RANK] = {x->dims[0], w->dims[1] * group, 0, 0};
  for (int i = 0; i < 2; i++) {
    if (k[i] < 1 || s[i] < 1 || d[i] < 1 || p[i] < 0 || p[i + 2] < 0 || op[i] < 0 || (op[i] >= s[i] && op[i] >= d[i]))
      return SERR("shape: ConvTranspose node '%s': invalid kernel/stride/dilation/pad/output_padding", n->name);
    dims[2 + i] = (x->dims[2 + i] - 1) * s[i] - p[i] - p[i + 2] + (k[i] - 1) * d[i] + 1 + op[i];
    if (dims[2 + i] < 1) return SERR("shape: ConvTranspose node '%s': empty output", n->name);
  }
  if (n->n_in > 2 && n->in[2] >= 0) {
    if ((st = ir_need_in(g, n, 2, err))) return st;
    const ir_tensor *b = &g->tensors[n->in[2]];
    if (b->rank != 1 || b->dims[0] != dims[1])
      return SERR("shape: ConvTranspose node '%s': bias shape does not match %lld outputs", n->name, (long long)dims[1]);
  }
  if (ir_set_attr_ints(g, node, "kernel_shape", k, 2) || ir_set_attr_ints(g, node, "strides", s, 2) ||
      ir_set_attr_ints(g, node, "dilations", d, 2) || ir_set_attr_ints(g, node, "pads", p, 4) ||
      ir_set_attr_ints(g, node, "output_padding", op, 2) || ir_set_attr_int(g, node, "group", group))
    return yrt_set_error(err, YRT_ERR_NOMEM, "shape: out of memory");
  n = &g->nodes[node];
  ir_set_out(g, n, 0, IR_F32, 4, dims);
  return YRT_OK;
}

/* MaxPool and AveragePool. */
IR_SHAPE_FN(ir_shape_pool) {
  (void)row;
  ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank;
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof(dims));
  const ir_attr *ks = ir_attr_get(n, "kernel_shape");
  if (r < 3 || !ks || ks->type != IR_ATTR_INTS || ks->n_ints != r - 2)
    return SERR("shape: %s node '%s' needs kernel_shape for rank %d", n->op_type, n->name, r);
  if (n->n_out > 1)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: MaxPool node '%s': Indices output "
                         "is not supported", n->name);
  if (ir_attr_int(n, "storage_order", 0) != 0)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: MaxPool node '%s': storage_order",
                         n->name);
  int64_t k[IR_MAX_RANK], od[IR_MAX_RANK];
  memcpy(k, ks->ints, sizeof(int64_t) * (size_t)(r - 2));
  yrt_status st = pool_geometry(g, node, x, k, 0, od, err);
  if (st) return st;
  n = &g->nodes[node];
  memcpy(dims + 2, od, sizeof(int64_t) * (size_t)(r - 2));
  ir_set_out(g, n, 0, x->dtype, r, dims);
  return YRT_OK;
}

/* GlobalAveragePool and GlobalMaxPool: spatial dims become 1. */
IR_SHAPE_FN(ir_shape_global_pool) {
  (void)row;
  (void)err;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof(dims));
  for (int i = 2; i < x->rank; i++) dims[i] = 1;
  ir_set_out(g, n, 0, x->dtype, x->rank, dims);
  return YRT_OK;
}

IR_SHAPE_FN(ir_shape_batchnorm) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int r = x->rank;
  if (r < 2) return SERR("shape: BatchNormalization node '%s': rank %d", n->name, r);
  for (int k = 1; k < 5; k++) {
    yrt_status st = ir_need_in(g, n, k, err);
    if (st) return st;
    if (ir_numel(&g->tensors[n->in[k]]) != x->dims[1])
      return SERR("shape: BatchNormalization node '%s': parameter %d is not [C]", n->name, k);
  }
  if (n->n_out > 1)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: BatchNormalization node '%s' in "
                         "training mode is not supported", n->name);
  ir_set_out(g, n, 0, x->dtype, r, x->dims);
  return YRT_OK;
}

/* Numpy matmul: 1-D operands promoted and their axis dropped again, batch dims broadcast. */
IR_SHAPE_FN(ir_shape_matmul) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  yrt_status st = ir_need_in(g, n, 1, err);
  if (st) return st;
  const ir_tensor *x = &g->tensors[n->in[0]];
  int64_t dims[IR_MAX_RANK];
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
  if (!ir_broadcast(&ba, &bb, &rr, dims)) return SERR("shape: MatMul node '%s': batch dims", n->name);
  if (!a1) dims[rr++] = a.dims[a.rank - 2];
  if (!b1) dims[rr++] = b.dims[b.rank - 1];
  ir_set_out(g, n, 0, x->dtype, rr, dims);
  return YRT_OK;
}
