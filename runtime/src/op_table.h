/* op_table.h — the built-in node kinds: the table of rows op_table.c holds (the row type and the
 * table type are op_def.h's). Read by the loader (model_load.c: the table a model is validated
 * and run with) and the built-in names (node_kind.c); the kinds and the executor never include it. */
#ifndef YOLORT_OP_TABLE_H
#define YOLORT_OP_TABLE_H

#include "op_def.h"

/* The built-in kinds (op_table.c). */
const yrt_op_table *yrt_builtin_ops(void);

/* yrt_model_load_memory with an op table other than the built-in one (tests). */
yrt_status yrt_model_load_memory_ops(const void *data, size_t size, int copy, const yrt_op_table *ops,
                                     yrt_model **out, yrt_error *err);

#endif
