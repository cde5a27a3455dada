/* shape_elementwise.c — shapes of element-wise ops (rows of onnx_ops.c): unary functions and
 * Softmax keep the input's shape, binary ops broadcast, Quantize/DequantizeLinear and Cast
 * keep the shape and change the dtype. */
#include <string.h>

#include "ir.h"
#include "ir_passes.h"

#define SERR IR_SERR

IR_SHAPE_FN(ir_shape_unary) {
  (void)row;
  (void)err;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  ir_set_out(g, n, 0, x->dtype, x->rank, x->dims);
  return YRT_OK;
}

/* The axis becomes explicit and non-negative; opset < 13's 2-D coercion only over the last axis. */
IR_SHAPE_FN(ir_shape_softmax) {
  yrt_status st = ir_shape_unary(g, node, row, err);
  if (st) return st;
  const ir_node *n = &g->nodes[node];
  int r = g->tensors[n->in[0]].rank, a;
  int64_t dflt = g->opset >= 13 ? -1 : 1;
  if (!ir_norm_axis(ir_attr_int(n, "axis", dflt), r, &a))
    return SERR("shape: Softmax node '%s': bad axis", n->name);
  if (g->opset < 13 && a != r - 1)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Softmax node '%s': opset<13 "
                         "2-D coercion over axis %d of rank %d is not supported", n->name, a, r);
  if (ir_set_attr_int(g, node, "axis", a)) return yrt_set_error(err, YRT_ERR_NOMEM, "oom");
  return YRT_OK;
}

IR_SHAPE_FN(ir_shape_binary) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int64_t dims[IR_MAX_RANK];
  memcpy(dims, x->dims, sizeof(dims));
  int rr = x->rank;
  for (int k = 1; k < n->n_in; k++) {
    yrt_status st = ir_need_in(g, n, k, err);
    if (st) return st;
    ir_tensor tmp = {0};
    tmp.rank = rr;
    memcpy(tmp.dims, dims, sizeof(dims));
    if (!ir_broadcast(&tmp, &g->tensors[n->in[k]], &rr, dims))
      return SERR("shape: node '%s' (%s): inputs do not broadcast", n->name, n->op_type);
  }
  ir_set_out(g, n, 0, x->dtype, rr, dims);
  return YRT_OK;
}

/* QuantizeLinear: the zero point's type (uint8 without one), or output_dtype; Dequantize: float. */
IR_SHAPE_FN(ir_shape_qdq) {
  const ir_node *n = &g->nodes[node];
  yrt_status st = ir_need_in(g, n, 1, err);
  if (st) return st;
  const ir_tensor *x = &g->tensors[n->in[0]];
  ir_dtype dt = IR_F32;
  if (row->id == ONNX_OP_QUANTIZE_LINEAR) {
    dt = IR_U8;
    if (n->n_in > 2 && n->in[2] >= 0) dt = g->tensors[n->in[2]].dtype;
    const ir_attr *od = ir_attr_get(n, "output_dtype");
    if (od && od->type == IR_ATTR_INT && od->i) dt = (ir_dtype)od->i;
  }
  ir_set_out(g, n, 0, dt, x->rank, x->dims);
  return YRT_OK;
}

IR_SHAPE_FN(ir_shape_cast) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  const ir_tensor *x = &g->tensors[n->in[0]];
  int64_t to = ir_attr_int(n, "to", 0);
  ir_dtype dt = ir_dtype_from_onnx(to);
  if (dt == IR_UNDEF)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Cast node '%s' to type %lld", n->name,
                         (long long)to);
  ir_set_out(g, n, 0, dt, x->rank, x->dims);
  return YRT_OK;
}
