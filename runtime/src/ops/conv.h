/* conv.h — YRT_OP_CONV2D's row functions for op_table.c: conv.c's here, the float runner
 * (conv_float.c) and absorb_next (conv_int8.c) in conv_paths.h, with the paths they belong to. */
#ifndef YOLORT_OPS_CONV_H
#define YOLORT_OPS_CONV_H

#include "conv_paths.h"
#include "op_def.h"

yrt_status yrt_check_conv(const yrt_node_check *v);
yrt_status yrt_prepare_conv(yrt_session *s, yrt_exec *e, yrt_error *err);
void yrt_release_conv(yrt_exec *e);
const char *yrt_kind_conv(const yrt_model *m, const yrt_node_rec *n);
int yrt_publish_range_conv(yrt_exec *e);
size_t yrt_conv_dynq_bytes(const yrt_model *m, const yrt_node_rec *n);
int yrt_conv_view_in(const yrt_model *m, const yrt_node_rec *n, uint32_t k);
int yrt_conv_view_out(const yrt_model *m, const yrt_node_rec *n);

#endif
