/* dequantize.h — YRT_OP_DEQUANTIZE's row functions (dequantize.c), for op_table.c. */
#ifndef YOLORT_OPS_DEQUANTIZE_H
#define YOLORT_OPS_DEQUANTIZE_H

#include "op_def.h"

yrt_status yrt_check_dequantize(const yrt_node_check *v);
yrt_status yrt_run_dequantize(const yrt_session *s, const yrt_exec *e, yrt_error *err);
yrt_status yrt_prepare_dequantize(yrt_session *s, yrt_exec *e, yrt_error *err);
int yrt_pointwise_dequantize(const yrt_exec *e, int32_t *unary);

#endif
