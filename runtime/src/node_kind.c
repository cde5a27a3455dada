/* node_kind.c — op and node-kind names for messages and profiles, from the op table's rows. */
#include "node_kind.h"

#include "op_table.h"

const char *yrt_op_table_name(const yrt_op_table *t, uint32_t op) {
  const yrt_op_def *d = yrt_op_lookup(t, op);
  return d ? d->name : "unknown";
}

const char *yrt_op_table_kind_name(const yrt_op_table *t, uint32_t op, uint32_t dtype) {
  const yrt_op_def *d = yrt_op_lookup(t, op);
  if (!d || dtype < YRT_F32 || dtype > YRT_I32) return "unknown";
  return d->kind_names[dtype - 1];
}

const char *yrt_op_name(uint32_t op) { return yrt_op_table_name(yrt_builtin_ops(), op); }

const char *yrt_node_kind_name(uint32_t op, uint32_t dtype) {
  return yrt_op_table_kind_name(yrt_builtin_ops(), op, dtype);
}
