/* conv_transpose.h — YRT_OP_CONV_TRANSPOSE's row functions (conv_transpose.c), for op_table.c. */
#ifndef YOLORT_OPS_CONV_TRANSPOSE_H
#define YOLORT_OPS_CONV_TRANSPOSE_H

#include "op_def.h"

yrt_status yrt_check_conv_transpose(const yrt_node_check *v);
yrt_status yrt_prepare_conv_transpose(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_conv_transpose(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_conv_transpose(yrt_exec *e);

#endif
