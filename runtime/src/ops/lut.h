/* lut.h — YRT_OP_LUT's row functions (lut.c), for op_table.c. */
#ifndef YOLORT_OPS_LUT_H
#define YOLORT_OPS_LUT_H

#include "op_def.h"

yrt_status yrt_check_lut(const yrt_node_check *v);
yrt_status yrt_run_lut(const yrt_session *s, const yrt_exec *e, yrt_error *err);

#endif
