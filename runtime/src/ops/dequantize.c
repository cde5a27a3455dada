/* dequantize.c — YRT_OP_DEQUANTIZE: int8 -> f32 with the input's scale and zero point (or
 * int16 -> f32, symmetric: where an int16 stem meets a float op), in one
 * room: its check (the validator calls it through the row), its run and its pointwise column
 * (the row in op_table.c points here). */
#include "dequantize.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"
#include "yk_conv16.h"

yrt_status yrt_check_dequantize(const yrt_node_check *v) {
  return yrt_check_cast(v, yrt_node_in(v, 0)->dtype == YRT_I16 ? YRT_I16 : YRT_I8, YRT_F32);
}

static void dequantize_i16_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_dequantize_i16_f32((const int16_t *)e->in[0] + lo, (float *)e->out + lo, hi - lo, e->q[0].scale);
}

static void dequantize_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_dequantize_i8_f32(&t->s->isa, (const int8_t *)e->in[0] + lo, (float *)e->out + lo, hi - lo, e->q[0].scale,
                       e->q[0].zero_point);
}

yrt_status yrt_run_dequantize(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, dequantize_range, e->numel, 1);
  return YRT_OK;
}

static yrt_status run_dequantize_i16(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par(s, e, dequantize_i16_range, e->numel, 1);
  return YRT_OK;
}

/* The int16 form runs apart: it is no pointwise DEQUANTIZE for the fusions (they read int8). */
yrt_status yrt_prepare_dequantize(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)err;
  if (s->model->tensors[e->node->in[0]].dtype == YRT_I16) e->run = run_dequantize_i16;
  return YRT_OK;
}

int yrt_pointwise_dequantize(const yrt_exec *e, int32_t *unary) {
  (void)unary;
  return e->run == yrt_run_dequantize ? YRT_POINTWISE_DEQUANTIZE : YRT_POINTWISE_NONE;
}
