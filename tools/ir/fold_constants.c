/* fold_constants.c — evaluate nodes whose inputs are all constants (shape arithmetic such as
 * Shape->Gather->Unsqueeze->Concat, constant Mul/Add/..., Reshape/Transpose of initializers),
 * so shape-carrying inputs (Reshape shape, Slice starts, Resize scales) become constants.
 * Which ops fold and how is the `fold` of their row in onnx_ops.c (functions in fold_ops.c). */
#include <stdlib.h>

#include "ir.h"
#include "ir_passes.h"

#define FOLD_MAX_ELEMS ((int64_t)1 << 24)

/* Compute out's data (its shape/dtype already inferred) with the row's fold function.
 * Returns 1 ok, 0 cannot, -1 nomem, -2 error (*st set). */
static int eval(ir_graph *g, ir_node *n, const onnx_op_row *row, yrt_status *st, yrt_error *err) {
  ir_tensor *o = &g->tensors[n->out[0]];
  int64_t numel = ir_numel(o);
  size_t es = ir_dtype_size(o->dtype);
  if (numel < 0 || numel > FOLD_MAX_ELEMS || !es) return 0;
  void *data = calloc((size_t)(numel ? numel : 1), es);
  if (!data) return -1;
  int ok = row->fold(g, n, row, data, numel, st, err);
  if (ok != 1) {
    free(data);
    return ok == -2 ? -2 : 0;
  }
  o = &g->tensors[n->out[0]];
  free(o->data);
  o->data = data;
  o->nbytes = (size_t)numel * es;
  return 1;
}

int ir_try_fold(ir_graph *g, int node, int trust_shapes, yrt_status *st, yrt_error *err) {
  ir_node *n = &g->nodes[node];
  *st = YRT_OK;
  if (n->dead || (n->domain && *n->domain)) return 0;
  const onnx_op_row *row = ir_node_op(n);
  if (!row) return 0;
  if (row->id == ONNX_OP_CONSTANT) {
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
  if (!row->fold || n->n_out != 1 || n->n_in < 1) return 0;
  for (int i = 0; i < n->n_in; i++) {
    if (n->in[i] < 0) continue;
    const ir_tensor *t = &g->tensors[n->in[i]];
    if (i == 0 && row->id == ONNX_OP_SHAPE) { /* reads only the shape */
      if (!ir_shape_known(t) || !(trust_shapes || t->data || t->is_input)) return 0;
      continue;
    }
    if (!t->data || !ir_shape_known(t)) return 0;
  }
  /* shapes first (also validates), then values */
  yrt_error scratch;
  if (ir_infer_node(g, node, &scratch) != YRT_OK) return 0; /* let inference report it */
  n = &g->nodes[node];
  int r = eval(g, n, row, st, err);
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
