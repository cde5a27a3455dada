/* softmax.h — YRT_OP_SOFTMAX's row functions (softmax.c), for op_table.c. */
#ifndef YOLORT_OPS_SOFTMAX_H
#define YOLORT_OPS_SOFTMAX_H

#include "op_def.h"

yrt_status yrt_check_softmax(const yrt_node_check *v);
yrt_status yrt_prepare_softmax(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_softmax(const yrt_session *s, const yrt_exec *e, yrt_error *err);

#endif
