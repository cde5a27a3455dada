/* op_run.h — what a kind's run (its row's .run, op_table.h) shares with the others: the context
 * its range functions get, the split of its work over the session's pool (op_run.c). */
#ifndef YOLORT_OPS_OP_RUN_H
#define YOLORT_OPS_OP_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "session_internal.h"
#include "session_par.h"

/* What a range function of a node needs: the session (ISA, pool) and the prepared node. */
typedef struct yrt_node_ctx {
  const yrt_session *s;
  const yrt_exec *e;
} yrt_node_ctx;

/* fn over n units (elements, or rows of unit_elems elements) of node e, on the pool when it
 * pays: about 4 ranges per thread, none under YRT_PAR_MIN_ELEMS / 4 elements, flat ranges in
 * whole 64-element SIMD blocks. fn's ctx is a yrt_node_ctx. */
void yrt_run_par(const yrt_session *s, const yrt_exec *e, yrt_range_fn fn, size_t n, size_t unit_elems);

/* Product of a tensor's dims [from, to). */
size_t yrt_dims_product(const yrt_tensor_rec *t, uint32_t from, uint32_t to);

#endif
