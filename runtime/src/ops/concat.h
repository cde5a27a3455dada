/* concat.h — YRT_OP_CONCAT's row functions (concat.c), for op_table.c. */
#ifndef YOLORT_OPS_CONCAT_H
#define YOLORT_OPS_CONCAT_H

#include "op_def.h"

yrt_status yrt_check_concat(const yrt_node_check *v);
yrt_status yrt_prepare_concat(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_concat(const yrt_session *s, const yrt_exec *e, yrt_error *err);
int yrt_publish_range_concat(yrt_exec *e);

int yrt_concat_slot_in_place(const yrt_model *m, const yrt_node_rec *n, uint32_t k);

#endif
