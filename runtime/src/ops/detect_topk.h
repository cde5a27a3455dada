/* detect_topk.h — YRT_OP_DETECT_TOPK's row functions (detect_topk.c), for op_table.c. */
#ifndef YOLORT_OPS_DETECT_TOPK_H
#define YOLORT_OPS_DETECT_TOPK_H

#include "op_def.h"

yrt_status yrt_check_topk(const yrt_node_check *v);
yrt_status yrt_prepare_topk(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_topk(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_topk(yrt_exec *e);

#endif
