/* detect_decode.h — YRT_OP_DETECT_DECODE's row functions (detect_decode.c), for op_table.c. */
#ifndef YOLORT_OPS_DETECT_DECODE_H
#define YOLORT_OPS_DETECT_DECODE_H

#include "op_def.h"

yrt_status yrt_check_detect(const yrt_node_check *v);
yrt_status yrt_prepare_detect(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_detect(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_detect(yrt_exec *e);
size_t yrt_detect_decode_over(const yrt_session *s, const yrt_exec *e, float conf, int32_t *list);

#endif
