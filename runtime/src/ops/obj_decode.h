/* obj_decode.h — YRT_OP_OBJ_DECODE's row functions (obj_decode.c), for op_table.c. */
#ifndef YOLORT_OPS_OBJ_DECODE_H
#define YOLORT_OPS_OBJ_DECODE_H

#include "op_def.h"

yrt_status yrt_check_obj_decode(const yrt_node_check *v);
yrt_status yrt_prepare_obj_decode(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_obj_decode(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_obj_decode(yrt_exec *e);
size_t yrt_obj_decode_over(const yrt_session *s, const yrt_exec *e, float conf, int32_t *list);

#endif
