/* node_kind.h — printable names of ops ("conv2d") and node kinds ("conv2d.i8"), read from an op
 * table's rows (op_table.h). */
#ifndef YOLORT_NODE_KIND_H
#define YOLORT_NODE_KIND_H

#include <stdint.h>

#include "yolort_format.h"

struct yrt_op_table;

/* yrt_op_name (yolort_format.h) is the built-in table's name. */
/* "conv2d.f32" / "conv2d.i8" / "gather.i32"; "unknown" for out-of-range values. */
const char *yrt_node_kind_name(uint32_t op, uint32_t dtype);
/* Both, from the rows of table t. */
const char *yrt_op_table_name(const struct yrt_op_table *t, uint32_t op);
const char *yrt_op_table_kind_name(const struct yrt_op_table *t, uint32_t op, uint32_t dtype);

#endif
