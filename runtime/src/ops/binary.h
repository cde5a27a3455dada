/* binary.h — YRT_OP_BINARY's row functions (binary.c), for op_table.c. */
#ifndef YOLORT_OPS_BINARY_H
#define YOLORT_OPS_BINARY_H

#include "op_def.h"

yrt_status yrt_check_binary(const yrt_node_check *v);
yrt_status yrt_prepare_binary(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_binary(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_binary(yrt_exec *e);
int yrt_publish_range_binary(yrt_exec *e);

int yrt_binary_takes_views(const yrt_model *m, const yrt_node_rec *n);
int yrt_binary_view_in(const yrt_model *m, const yrt_node_rec *n, uint32_t k);

#endif
