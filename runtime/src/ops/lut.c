/* lut.c — YRT_OP_LUT: an int8 -> int8 table (an int8 activation), in one room: its check (the
 * validator calls it through the row) and its run (the row in op_table.c points here). */
#include "lut.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

yrt_status yrt_check_lut(const yrt_node_check *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *t = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  if (x->dtype != YRT_I8 || y->dtype != YRT_I8) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "LUT is i8 -> i8");
  if (t->kind != YRT_TENSOR_CONST || t->dtype != YRT_I8 || yrt_tensor_numel(t) != 256)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "table is not a constant of 256 int8");
  if (yrt_tensor_numel(x) != yrt_tensor_numel(y)) return yrt_node_fail(v, YRT_ERR_SHAPE, "element counts differ");
  return yrt_require_per_tensor(v);
}

static void lut_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_lut_i8(&t->s->isa, (const int8_t *)e->in[0] + lo, (int8_t *)e->out + lo, hi - lo, e->in[1]);
}

yrt_status yrt_run_lut(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, lut_range, e->numel, 1);
  return YRT_OK;
}
