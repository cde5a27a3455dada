/* conv.h — YRT_OP_CONV2D's row functions (conv.c, conv_int8.c), for op_table.c. */
#ifndef YOLORT_OPS_CONV_H
#define YOLORT_OPS_CONV_H

#include "conv_ref.h"
#include "op_table.h"
#include "session_internal.h"
#include "xnn_backend.h"
#include "yk_dwconv.h"
#include "yk_qconv.h"

/* The state of a prepared conv (all its paths; tests look at it). */
typedef struct yrt_exec_conv {
  yrt_xnn_conv *op;         /* NULL: our kernels or the scalar reference */
  yrt_conv_geom g;
  int act;                  /* unary kind applied after the conv (f32), NONE if fused/none */
  float f_min, f_max;       /* f32 clamp */
  int8_t i_min, i_max;      /* i8 clamp */
  int32_t x_zp, y_zp;
  float *requant;           /* i8: [cout] sx * sw[c] / sy (owned) */
  float *kscale;            /* i8: [cout] weight scales given to XNNPACK (owned) */
  int32_t *zero_bias;       /* i8/f32 without bias: zeros (owned) */
  const int8_t *lut;        /* i8: table applied after requantization, or NULL */
  size_t out_numel;
  /* i8, our own kernels (chosen over XNNPACK when available): */
  int own;                  /* 1: yk_qconv (groups 1), 2: yk_dwconv (depthwise 3x3) */
  yk_qconv qc;              /* packed weights in qc.packed (owned unless packed_shared) */
  int packed_shared;        /* 1: qc.packed is the model's copy (model_packs.h), not freed here */
  yk_dwconv dw;             /* dw.packed points inside the dw_w block */
  int8_t *dw_w;             /* depthwise weights re-laid as [3][3][C], then dw.packed (owned) */
  size_t rows_per_task;     /* output rows per thread-pool task */
  const struct yrt_exec *post_add; /* the node after this conv, reading its output, run on each
                                      task's rows right after them (absorb_next), or NULL */
  void (*post_fn)(const struct yrt_session *s, const struct yrt_exec *e, size_t lo, size_t hi); /* its pixels */
  /* dynamic quantization (f32 x, i8 w, f32 bias and y): x is quantized into the session's
   * dynq buffer with the range measured on each run; the kernel's packed head follows it */
  int dyn;
  const float *fbias;       /* f32 bias or NULL */
  int32_t *wsum;            /* [cout] sum of each channel's int8 weights (owned) */
  int32_t bias_lim;         /* |bias in accumulator units| kept below this (no int32 overflow) */
  size_t x_numel;
  const struct yrt_exec *x_src; /* dyn: the node whose published range is x's, or NULL */
} yrt_exec_conv;

YRT_EXEC_STATE_FITS(yrt_exec_conv);
static inline yrt_exec_conv *yrt_conv_state(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_conv, e); }

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
