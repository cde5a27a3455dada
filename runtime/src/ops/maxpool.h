/* maxpool.h — YRT_OP_MAXPOOL's row functions (maxpool.c), for op_table.c. */
#ifndef YOLORT_OPS_MAXPOOL_H
#define YOLORT_OPS_MAXPOOL_H

#include "op_def.h"

yrt_status yrt_check_maxpool(const yrt_node_check *v);
yrt_status yrt_prepare_maxpool(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_maxpool(const yrt_session *s, const yrt_exec *e, yrt_error *err);

#endif
