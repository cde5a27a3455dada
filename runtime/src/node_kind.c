/* node_kind.c — op and node-kind names of the built-in table, for messages and the converter's
 * summaries (the names of any table: op_def.h's yrt_op_table_name / yrt_op_table_kind_name). */
#include "node_kind.h"

#include "op_table.h"

const char *yrt_op_name(uint32_t op) { return yrt_op_table_name(yrt_builtin_ops(), op); }

const char *yrt_node_kind_name(uint32_t op, uint32_t dtype) {
  return yrt_op_table_kind_name(yrt_builtin_ops(), op, dtype);
}
