/* gather.h — YRT_OP_GATHER's row functions (gather.c), for op_table.c. */
#ifndef YOLORT_OPS_GATHER_H
#define YOLORT_OPS_GATHER_H

#include "op_def.h"

yrt_status yrt_check_gather(const yrt_node_check *v);
yrt_status yrt_prepare_gather(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_gather(const yrt_session *s, const yrt_exec *e, yrt_error *err);

#endif
