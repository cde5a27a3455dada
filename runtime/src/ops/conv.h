/* conv.h — YRT_OP_CONV2D's row functions (conv.c; absorb_next in conv_int8.c), for op_table.c. */
#ifndef YOLORT_OPS_CONV_H
#define YOLORT_OPS_CONV_H

#include "op_def.h"

yrt_status yrt_check_conv(const yrt_node_check *v);
yrt_status yrt_prepare_conv(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_conv_f32(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_conv(yrt_exec *e);
const char *yrt_kind_conv(const yrt_model *m, const yrt_node_rec *n);
int yrt_publish_range_conv(yrt_exec *e);
int yrt_conv_absorb_next(const yrt_session *s, yrt_exec *e, const yrt_exec *next, yrt_op_pixels_fn fn);
size_t yrt_conv_dynq_bytes(const yrt_model *m, const yrt_node_rec *n);
int yrt_conv_view_in(const yrt_model *m, const yrt_node_rec *n, uint32_t k);
int yrt_conv_view_out(const yrt_model *m, const yrt_node_rec *n);

#endif
