/* quantize.c — YRT_OP_QUANTIZE: f32 -> int8 with the output's scale and zero point, in one room:
 * its check (the validator calls it through the row) and its run (the row in op_table.c points
 * here). */
#include "quantize.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

yrt_status yrt_check_quantize(const yrt_node_check *v) { return yrt_check_cast(v, YRT_F32, YRT_I8); }

static void quantize_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_quantize_f32_i8(&t->s->isa, (const float *)e->in[0] + lo, (int8_t *)e->out + lo, hi - lo, e->q[2].scale,
                     e->q[2].zero_point);
}

yrt_status yrt_run_quantize(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, quantize_range, e->numel, 1);
  return YRT_OK;
}

/* pointwise: the frame stage (prepost/frame.c) writes a camera frame's quantized values into this
 * node's output itself when the node is the float input's only reader. */
int yrt_pointwise_quantize(const yrt_exec *e, int32_t *unary) {
  (void)unary;
  return e->run == yrt_run_quantize ? YRT_POINTWISE_QUANTIZE : YRT_POINTWISE_NONE;
}
