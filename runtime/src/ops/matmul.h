/* matmul.h — YRT_OP_MATMUL's row functions (matmul.c), for op_table.c. */
#ifndef YOLORT_OPS_MATMUL_H
#define YOLORT_OPS_MATMUL_H

#include "op_def.h"

yrt_status yrt_check_matmul(const yrt_node_check *v);
yrt_status yrt_prepare_matmul(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_matmul(const yrt_session *s, const yrt_exec *e, yrt_error *err);

#endif
