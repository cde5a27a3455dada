/* transpose.h — YRT_OP_TRANSPOSE's row functions (transpose.c), for op_table.c. */
#ifndef YOLORT_OPS_TRANSPOSE_H
#define YOLORT_OPS_TRANSPOSE_H

#include "op_def.h"

yrt_status yrt_check_transpose(const yrt_node_check *v);
yrt_status yrt_prepare_transpose(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_transpose(const yrt_session *s, const yrt_exec *e, yrt_error *err);

#endif
