/* quantize.c — YRT_OP_QUANTIZE: f32 -> int8 with the output's scale and zero point (or -> the
 * symmetric int16 a W8A16 conv reads, yk_conv16.h), in one room:
 * its check (the validator calls it through the row) and its run (the row in op_table.c points
 * here). */
#include "quantize.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"
#include "yk_conv16.h"

yrt_status yrt_check_quantize(const yrt_node_check *v) {
  return yrt_check_cast(v, YRT_F32, yrt_node_out(v, 0)->dtype == YRT_I16 ? YRT_I16 : YRT_I8);
}

static void quantize_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_quantize_f32_i8(&t->s->isa, (const float *)e->in[0] + lo, (int8_t *)e->out + lo, hi - lo, e->q[2].scale,
                     e->q[2].zero_point);
}

static void quantize_i16_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_quantize_f32_i16((const float *)e->in[0] + lo, (int16_t *)e->out + lo, hi - lo, e->q[2].scale);
}

yrt_status yrt_run_quantize(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  /* int16 output: its own range function (the frame stage writes only int8, see below) */
  const int i16 = s->model->tensors[e->node->out[0]].dtype == YRT_I16;
  yrt_run_par(s, e, i16 ? quantize_i16_range : quantize_range, e->numel, 1);
  return YRT_OK;
}

/* pointwise: the frame stage (prepost/frame.c) writes a camera frame's quantized values into this
 * node's output itself when the node is the float input's only reader. */
int yrt_pointwise_quantize(const yrt_exec *e, int32_t *unary) {
  (void)unary;
  if (e->esize != 1) return YRT_POINTWISE_NONE; /* int16: the frame stage writes int8 only */
  return e->run == yrt_run_quantize ? YRT_POINTWISE_QUANTIZE : YRT_POINTWISE_NONE;
}
