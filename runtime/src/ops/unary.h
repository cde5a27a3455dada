/* unary.h — YRT_OP_UNARY's row functions (unary.c), for op_table.c. */
#ifndef YOLORT_OPS_UNARY_H
#define YOLORT_OPS_UNARY_H

#include "op_def.h"

yrt_status yrt_check_unary(const yrt_node_check *v);
yrt_status yrt_prepare_unary(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_unary(const yrt_session *s, const yrt_exec *e, yrt_error *err);
int yrt_publish_range_unary(yrt_exec *e);
int yrt_pointwise_unary(const yrt_exec *e, int32_t *unary);

#endif
