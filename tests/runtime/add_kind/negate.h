/* negate.h — YRT_OP_NEGATE's row functions (negate.c), for op_table.c. A demonstration kind: the
 * recipe tests/runtime/add_kind/add_kind.sh copies this file to runtime/src/ops/ of a scratch copy
 * of the runtime, exactly where a real kind's header goes. */
#ifndef YOLORT_OPS_NEGATE_H
#define YOLORT_OPS_NEGATE_H

#include "op_def.h"

yrt_status yrt_check_negate(const yrt_node_check *v);
yrt_status yrt_run_negate(const yrt_session *s, const yrt_exec *e, yrt_error *err);

#endif
