/* reshape.h — YRT_OP_RESHAPE's row functions (reshape.c), for op_table.c. */
#ifndef YOLORT_OPS_RESHAPE_H
#define YOLORT_OPS_RESHAPE_H

#include "op_def.h"

yrt_status yrt_check_reshape(const yrt_node_check *v);
yrt_status yrt_run_reshape(const yrt_session *s, const yrt_exec *e, yrt_error *err);

#endif
