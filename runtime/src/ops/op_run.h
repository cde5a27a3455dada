/* op_run.h — what a kind's run (its row's .run, op_def.h) shares with the others: the context
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

/* yrt_run_par for a kind whose fn writes unit_elems contiguous f32 output values per unit; with
 * e->pub_range (its row's publish_range agreed), the range of what it wrote is measured block by
 * block while in cache and published in e->y_lo, e->y_hi. */
void yrt_run_par_out(const yrt_session *s, const yrt_exec *e, yrt_range_fn fn, size_t n, size_t unit_elems);
/* The same for a kind run in one piece: a pass over its output after it (nothing without pub_range). */
void yrt_measure_out(const yrt_session *s, const yrt_exec *e);

/* Asks node p (f32 output, run before the asking node on every run) through its row's
 * publish_range to measure and publish its output's range in its own pass. 1 if it will. */
int yrt_publish_range(const yrt_session *s, yrt_exec *p);

/* publish_range of a kind whose plain runner `run` measures what it writes (yrt_run_par_out,
 * yrt_measure_out): 1 with e->pub_range set while e still runs it (not a no-op or fused form). */
int yrt_publish_when_run_by(yrt_exec *e, yrt_exec_fn run);

/* The runner of a node that is already done: an in-place slice, a concat whose inputs all are
 * views, a node another one took over (absorb_next, a folded element-wise chain). */
yrt_status yrt_run_nothing(const yrt_session *s, const yrt_exec *e, yrt_error *err);

/* Nodes of m reading tensor t, plus one if t is a graph output. */
int yrt_tensor_uses(const yrt_model *m, uint32_t t);

/* Product of a tensor's dims [from, to). */
size_t yrt_dims_product(const yrt_tensor_rec *t, uint32_t from, uint32_t to);

#endif
