/* shape_constant.c — shapes of the shape-arithmetic ops (rows of onnx_ops.c) that the folding
 * normally evaluates away: Shape, ConstantOfShape, Range and Expand (the anchor grids of
 * exports with dynamic axes, constant once the input size is fixed). */
#include <math.h>
#include <string.h>

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

/* Range(start, limit, delta), all constant scalars: max(ceil((limit - start) / delta), 0)
 * elements of start's type. */
IR_SHAPE_FN(ir_shape_range) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  if (n->n_in != 3) return yrt_set_error(err, YRT_ERR_FORMAT, "shape: Range node '%s' needs 3 inputs", n->name);
  double v[3];
  for (int k = 0; k < 3; k++) {
    const ir_tensor *t = n->in[k] >= 0 ? &g->tensors[n->in[k]] : NULL;
    if (!t || !t->data || ir_numel(t) != 1)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Range node '%s' with non-constant inputs "
                           "(a model with dynamic axes: yolort-convert --size fixes them)", n->name);
    v[k] = ir_const_f64(t, 0);
  }
  const double len = v[2] != 0.0 ? ceil((v[1] - v[0]) / v[2]) : -1.0;
  if (!(len >= 0.0) || len > (double)(1 << 24))
    return yrt_set_error(err, YRT_ERR_SHAPE, "shape: Range node '%s': %g to %g by %g", n->name, v[0], v[1], v[2]);
  int64_t d = (int64_t)len;
  ir_set_out(g, n, 0, g->tensors[n->in[0]].dtype, 1, &d);
  return YRT_OK;
}

/* Expand(x, shape): x broadcast against the constant shape. */
IR_SHAPE_FN(ir_shape_expand) {
  (void)row;
  const ir_node *n = &g->nodes[node];
  int64_t sh[IR_MAX_RANK];
  const int ns = n->n_in == 2 ? ir_const_ints(g, n->in[1], sh, IR_MAX_RANK) : -1;
  if (ns < 0)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "shape: Expand node '%s' with a non-constant shape", n->name);
  const ir_tensor *x = &g->tensors[n->in[0]];
  ir_tensor tmp = {0};
  tmp.rank = ns;
  memcpy(tmp.dims, sh, sizeof(int64_t) * (size_t)ns);
  int rr = 0;
  int64_t dims[IR_MAX_RANK];
  if (!ir_broadcast(x, &tmp, &rr, dims))
    return yrt_set_error(err, YRT_ERR_SHAPE, "shape: Expand node '%s': input does not broadcast to the shape", n->name);
  ir_set_out(g, n, 0, x->dtype, rr, dims);
  return YRT_OK;
}
