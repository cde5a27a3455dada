/* op_check.c — the failure message every kind's check writes (op_def.h: yrt_node_fail). */
#include <stdarg.h>
#include <stdio.h>

#include "model_internal.h"
#include "op_check.h"

yrt_status yrt_node_fail(const yrt_node_check *v, yrt_status s, const char *fmt, ...) {
  char what[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *name = yrt_model_string_ok(v->m, v->n->name) ? yrt_model_string(v->m, v->n->name) : "?";
  const yrt_op_def *d = v->def ? v->def : yrt_op_lookup(v->m->ops, v->n->op);
  return yrt_set_error(v->err, s, "yrt: node %u '%.64s' (%s): %s", (unsigned)v->idx, name, d ? d->name : "unknown",
                       what);
}
