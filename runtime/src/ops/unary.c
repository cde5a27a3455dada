/* unary.c — YRT_OP_UNARY: a float activation (yrt_unary_kind), element by element, in one room:
 * its check (the validator calls it through the row), its prepare and run (the row in
 * op_table.c points here). */
#include <string.h>

#include "unary.h"
#include "kernel_kinds.h"
#include "op_check.h"
#include "op_run.h"
#include "yk.h"

yrt_status yrt_check_unary(const yrt_node_check *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (x->dtype != YRT_F32 || y->dtype != YRT_F32) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "unary ops are f32 only");
  if (!yrt_range_ok(v->n->p[0], YRT_UNARY_NONE, YRT_UNARY_COUNT_ - 1)) return yrt_node_fail(v, YRT_ERR_FORMAT, "unary kind %d", (int)v->n->p[0]);
  if (yrt_tensor_numel(x) != yrt_tensor_numel(y)) return yrt_node_fail(v, YRT_ERR_SHAPE, "element counts differ");
  return YRT_OK;
}

static void unary_range(const void *ctx, size_t lo, size_t hi) {
  const yrt_node_ctx *t = ctx;
  const yrt_exec *e = t->e;
  yk_unary_f32(&t->s->isa, e->node->p[0], e->node->f[0], (const float *)e->in[0] + lo, (float *)e->out + lo,
               hi - lo);
}

yrt_status yrt_run_unary(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  yrt_run_par_out(s, e, unary_range, e->numel, 1);
  return YRT_OK;
}

/* A unary node of kind NONE / IDENTITY is a copy: done here, so no kind the kernel has no case
 * for ever reaches yk_unary_f32. */
static yrt_status run_copy(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  if (e->out != e->in[0] && e->numel) memmove(e->out, e->in[0], e->numel * e->esize);
  return YRT_OK;
}

yrt_status yrt_prepare_unary(yrt_session *s, yrt_exec *e, yrt_error *err) {
  (void)s, (void)err;
  const int32_t kind = e->node->p[0];
  if (kind == YRT_UNARY_NONE || kind == YRT_UNARY_IDENTITY) e->run = run_copy;
  return YRT_OK;
}

int yrt_publish_range_unary(yrt_exec *e) { return yrt_publish_when_run_by(e, yrt_run_unary); }

int yrt_pointwise_unary(const yrt_exec *e, int32_t *unary) {
  if (e->run != yrt_run_unary) return YRT_POINTWISE_NONE;
  *unary = e->node->p[0];
  return YRT_POINTWISE_UNARY;
}
