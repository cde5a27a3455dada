/* shape_constant.c — shapes of the shape-arithmetic ops (rows of onnx_ops.c) that the folding
 * normally evaluates away: Shape and ConstantOfShape. */
#include "ir.h"
#include "ir_passes.h"

IR_SHAPE_FN(ir_shape_shape) {
  (void)row;
  (void)err;
  const ir_node *n = &g->nodes[node];
  int r = g->tensors[n->in[0]].rank;
  int64_t s = ir_attr_int(n, "start", 0), e = ir_attr_int(n, "end", r);
  if (s < 0) s += r;
  if (e < 0) e += r;
  s = ir_clamp64(s, 0, r);
  e = ir_clamp64(e, 0, r);
  int64_t d = e > s ? e - s : 0;
  ir_set_out(g, n, 0, IR_I64, 1, &d);
  return YRT_OK;
}

IR_SHAPE_FN(ir_shape_constant_of_shape) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  int64_t sh[IR_MAX_RANK];
  int ns = ir_const_ints(g, n->in[0], sh, IR_MAX_RANK);
  if (ns < 0) return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: ConstantOfShape node '%s' "
                                   "with a non-constant shape", n->name);
  const ir_attr *v = ir_attr_get(n, "value");
  ir_dtype dt = (v && v->type == IR_ATTR_TENSOR && v->tensor >= 0) ? g->tensors[v->tensor].dtype
                                                                     : IR_F32;
  ir_set_out(g, n, 0, dt, ns, sh);
  return YRT_OK;
}
