/* resize.h — YRT_OP_RESIZE_NEAREST's row functions (resize.c), for op_table.c. */
#ifndef YOLORT_OPS_RESIZE_H
#define YOLORT_OPS_RESIZE_H

#include "op_def.h"

yrt_status yrt_check_resize(const yrt_node_check *v);
yrt_status yrt_prepare_resize(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_resize(const yrt_session *s, const yrt_exec *e, yrt_error *err);

int yrt_resize_view_out(const yrt_model *m, const yrt_node_rec *n);

#endif
