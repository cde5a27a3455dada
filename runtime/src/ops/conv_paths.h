/* conv_paths.h — what the files of YRT_OP_CONV2D share (private to them): conv.c checks and
 * dispatches to a path, conv_float.c (XNNPACK f32 / reference, the activation pass),
 * conv_int8.c (our kernels, XNNPACK qc8, reference, int8 to float), conv_dynamic.c (f32 input
 * quantized per run). */
#ifndef YOLORT_OPS_CONV_PATHS_H
#define YOLORT_OPS_CONV_PATHS_H

#include "conv.h"
#include "op_run.h"

/* ---- conv_float.c */

#define ACT_BLOCK 2048 /* values activated, then measured while still in L1 */

/* The activation pass over output values [lo, hi) of act_ctx y, measured into lohi's slot of
 * the range (lo / chunk) when lohi is not NULL. */
typedef struct act_ctx {
  const yrt_session *s;
  int act;
  float *y;
  size_t chunk;
  float *lohi; /* NULL, or [2 * YRT_RANGE_SLOTS]: each range's min(0, ...) and max(0, ...) */
} act_ctx;
void yrt_conv_act_range(const void *ctx, size_t lo, size_t hi);
/* e's activation over y[0, n) on the pool; with e->pub_range the range is published too. */
void yrt_conv_act_pass(const yrt_session *s, yrt_exec *e, float *y, size_t n);
yrt_xnn_conv_desc yrt_conv_xnn_desc(const yrt_node_rec *n, const yrt_conv_geom *g, size_t x_stride, size_t y_stride);
yrt_status yrt_conv_prepare_f32(yrt_session *s, yrt_exec *e);

/* ---- conv_int8.c */

yrt_status yrt_conv_prepare_i8(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_conv_run_i8(const yrt_session *s, const yrt_exec *e, yrt_error *err);
yrt_status yrt_conv_prepare_i8f32(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_conv_run_i8f32(const yrt_session *s, const yrt_exec *e, yrt_error *err);
/* A yk_qconv with the node's geometry, everything else zero (the callers add operands and scales). */
yk_qconv yrt_conv_qconv_of_geom(const yrt_conv_geom *g);
/* Packs c->qc (shareable: may use the model's copy) and splits its rows into tasks. */
yrt_status yrt_conv_pack_own(yrt_session *s, yrt_exec *e, int shareable, yrt_error *err);
/* Our float-output kernel on input x and its activation pass (with e->pub_range, measured). */
void yrt_conv_run_own_act(const yrt_session *s, yrt_exec *e, const void *x);

/* ---- conv_dynamic.c */

yrt_status yrt_conv_prepare_dyn(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_conv_run_dyn(const yrt_session *s, const yrt_exec *e, yrt_error *err);

#endif
