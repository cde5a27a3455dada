/* slice.h — YRT_OP_SLICE's row functions (slice.c), for op_table.c. */
#ifndef YOLORT_OPS_SLICE_H
#define YOLORT_OPS_SLICE_H

#include "op_def.h"

yrt_status yrt_check_slice(const yrt_node_check *v);
yrt_status yrt_prepare_slice(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_slice(const yrt_session *s, const yrt_exec *e, yrt_error *err);
int yrt_publish_range_slice(yrt_exec *e);

int yrt_slice_is_in_place(const yrt_model *m, const yrt_node_rec *n);
int yrt_slice_view_in(const yrt_model *m, const yrt_node_rec *n, uint32_t k);
int yrt_slice_in_place(const yrt_model *m, const yrt_node_rec *n, uint32_t k);

#endif
