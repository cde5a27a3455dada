/* quantize.h — YRT_OP_QUANTIZE's row functions (quantize.c), for op_table.c. */
#ifndef YOLORT_OPS_QUANTIZE_H
#define YOLORT_OPS_QUANTIZE_H

#include "op_def.h"

yrt_status yrt_check_quantize(const yrt_node_check *v);
yrt_status yrt_run_quantize(const yrt_session *s, const yrt_exec *e, yrt_error *err);
int yrt_pointwise_quantize(const yrt_exec *e, int32_t *unary);

#endif
