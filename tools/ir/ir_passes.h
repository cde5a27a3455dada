/* ir_passes.h — private helpers shared by the IR passes (tools/ir/). Not for other modules. */
#ifndef YOLORT_IR_PASSES_H
#define YOLORT_IR_PASSES_H

#include "ir.h"
#include "onnx_ops.h"

/* Values of constant tensor t as int64 (any integer or float dtype). Returns the element
 * count, or -1 if t is not a constant or has more than cap elements. t < 0 -> -1. */
int ir_const_ints(const ir_graph *g, int t, int64_t *out, int cap);
/* Same as doubles. */
int ir_const_floats(const ir_graph *g, int t, double *out, int cap);
/* Infer rank/dims/dtype of the outputs of node `node` from its inputs (shape_infer.c). */
yrt_status ir_infer_node(ir_graph *g, int node, yrt_error *err);
/* Evaluate node if all its inputs are constants (fold_constants.c). Shape nodes are folded when
 * their input's shape is known and (trust_shapes or the input is a graph input / constant).
 * Returns 1 folded (node marked dead, outputs constant), 0 not foldable, -1 error (st set). */
int ir_try_fold(ir_graph *g, int node, int trust_shapes, yrt_status *st, yrt_error *err);
/* 1 if every dim is known. */
int ir_shape_known(const ir_tensor *t);

/* ---- shape inference helpers (shape_infer.c), used by the per-op shape functions */
#define IR_SERR(...) yrt_set_error(err, YRT_ERR_SHAPE, __VA_ARGS__)
/* Set output k's dtype (unless IR_UNDEF) and shape; k >= n_out is ignored. */
void ir_set_out(ir_graph *g, const ir_node *n, int k, ir_dtype dt, int rank, const int64_t *dims);
/* axis in [-rank, rank) -> *out in [0, rank); 0 when out of range. */
int ir_norm_axis(int64_t axis, int rank, int *out);
/* Error unless input k exists and its shape is known. */
yrt_status ir_need_in(const ir_graph *g, const ir_node *n, int k, yrt_error *err);
/* Numpy broadcast of a and b's shapes into rank/dims; 0 when they do not broadcast. */
int ir_broadcast(const ir_tensor *a, const ir_tensor *b, int *rank, int64_t *dims);
/* Axes from attribute (opset < 13) or constant input k (opset >= 13). Returns count, -2 if
 * absent, -1 if non-constant. */
int ir_get_axes(const ir_graph *g, const ir_node *n, int k, int64_t *axes);
int64_t ir_clamp64(int64_t v, int64_t lo, int64_t hi);

/* ---- per-op shape functions (rows of onnx_ops.c): outputs of node from its inputs */
#define IR_SHAPE_FN(name) yrt_status name(ir_graph *g, int node, const onnx_op_row *row, yrt_error *err)
IR_SHAPE_FN(ir_shape_unary);       /* shape_elementwise.c */
IR_SHAPE_FN(ir_shape_softmax);
IR_SHAPE_FN(ir_shape_binary);
IR_SHAPE_FN(ir_shape_qdq);
IR_SHAPE_FN(ir_shape_cast);
IR_SHAPE_FN(ir_shape_conv);        /* shape_compute.c */
IR_SHAPE_FN(ir_shape_conv_transpose); /* shape_compute.c */
IR_SHAPE_FN(ir_shape_pool);
IR_SHAPE_FN(ir_shape_global_pool);
IR_SHAPE_FN(ir_shape_batchnorm);
IR_SHAPE_FN(ir_shape_matmul);
IR_SHAPE_FN(ir_shape_concat);      /* shape_movement.c */
IR_SHAPE_FN(ir_shape_split);
IR_SHAPE_FN(ir_shape_slice);
IR_SHAPE_FN(ir_shape_reshape);
IR_SHAPE_FN(ir_shape_flatten);
IR_SHAPE_FN(ir_shape_transpose);
IR_SHAPE_FN(ir_shape_squeeze);     /* Squeeze and Unsqueeze */
IR_SHAPE_FN(ir_shape_gather);
IR_SHAPE_FN(ir_shape_resize);      /* Resize and Upsample */
IR_SHAPE_FN(ir_shape_shape);       /* shape_constant.c */
IR_SHAPE_FN(ir_shape_constant_of_shape);
IR_SHAPE_FN(ir_shape_range);
IR_SHAPE_FN(ir_shape_expand);

/* ---- per-op constant evaluation (fold_ops.c, rows of onnx_ops.c; see onnx_fold_fn) */
#define IR_FOLD_FN(name)                                                                      \
  int name(ir_graph *g, const ir_node *n, const onnx_op_row *row, void *data, int64_t numel,  \
           yrt_status *st, yrt_error *err)
IR_FOLD_FN(ir_fold_shape);
IR_FOLD_FN(ir_fold_copy);          /* Identity, Reshape, Flatten, Squeeze, Unsqueeze */
IR_FOLD_FN(ir_fold_cast);
IR_FOLD_FN(ir_fold_constant_of_shape);
IR_FOLD_FN(ir_fold_range);
IR_FOLD_FN(ir_fold_expand);
IR_FOLD_FN(ir_fold_gather);
IR_FOLD_FN(ir_fold_concat);
IR_FOLD_FN(ir_fold_slice);
IR_FOLD_FN(ir_fold_transpose);
IR_FOLD_FN(ir_fold_binary);        /* Add Sub Mul Div Pow Max Min */
IR_FOLD_FN(ir_fold_unary);         /* Neg Sqrt Floor Ceil Abs */

#endif
