/* obb_decode.h — YRT_OP_OBB_DECODE's row functions (obb_decode.c), for op_table.c. */
#ifndef YOLORT_OPS_OBB_DECODE_H
#define YOLORT_OPS_OBB_DECODE_H

#include "op_def.h"

yrt_status yrt_check_obb_decode(const yrt_node_check *v);
yrt_status yrt_prepare_obb_decode(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_obb_decode(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_obb_decode(yrt_exec *e);

#endif
