/* negate.c — YRT_OP_NEGATE: y = -x over f32, in one room as every kind: its check (the validator
 * calls it through the row) and its run (the row in op_table.c points here), threaded over the
 * session's pool by the shared helper. A demonstration kind that only the add-kind test compiles
 * in (tests/runtime/add_kind/add_kind.sh): nothing in the runtime names it. */
#include "negate.h"
#include "op_check.h"
#include "op_run.h"

yrt_status yrt_check_negate(const yrt_node_check *v) { return yrt_check_cast(v, YRT_F32, YRT_F32); }

static void negate_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const float *x = t->e->in[0];
  float *y = t->e->out;
  for (size_t i = lo; i < hi; i++) y[i] = -x[i];
}

yrt_status yrt_run_negate(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, negate_range, e->numel, 1);
  return YRT_OK;
}
