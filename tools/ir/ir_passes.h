/* ir_passes.h — private helpers shared by the IR passes (tools/ir/). Not for other modules. */
#ifndef YOLORT_IR_PASSES_H
#define YOLORT_IR_PASSES_H

#include "ir.h"

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

#endif
