/* conv_paths.h — what the files of YRT_OP_CONV2D share (private to them): conv.c checks and
 * dispatches to a path, conv_float.c (XNNPACK f32 / reference, the activation pass),
 * conv_int8.c (our kernels, XNNPACK qc8, reference, int8 to float), conv_dynamic.c (f32 input
 * quantized per run), conv_int16.c (int16 input, W8A16). */
#ifndef YOLORT_OPS_CONV_PATHS_H
#define YOLORT_OPS_CONV_PATHS_H

#include "conv_ref.h"
#include "op_def.h"
#include "op_run.h"
#include "xnn_backend.h"
#include "yk_conv16.h"
#include "yk_dwconv.h"
#include "yk_qconv.h"

/* The state of a prepared conv, all its paths (test_runtime_conv.c looks at it too). */
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
  int own;                  /* 1: yk_qconv (groups 1), 2: yk_dwconv (depthwise 3x3), 3: yk_conv16 */
  yk_qconv qc;              /* packed weights in qc.packed (owned unless packed_shared) */
  int packed_shared;        /* 1: qc.packed is the model's copy (packed_weight_cache.h), not freed here */
  union {                   /* own 2 and 3 exclude each other (yrt_exec's state is small) */
    yk_dwconv dw;           /* dw.packed points inside the dw_w block */
    yk_conv16 *c16;         /* int16 input: one owned block, the struct then its packed weights */
  };
  int8_t *dw_w;             /* depthwise weights re-laid as [3][3][C], then dw.packed (owned) */
  size_t rows_per_task;     /* output rows per thread-pool task */
  const struct yrt_exec *post_add; /* the node after this conv, reading its output, run on each
                                      task's rows right after them (absorb_next), or NULL */
  void (*post_fn)(const struct yrt_session *s, const struct yrt_exec *e, size_t lo, size_t hi); /* its pixels */
  /* dynamic quantization (f32 x, i8 w, f32 bias and y): x is quantized into the session's
   * dynq buffer with the range measured on each run; the kernel's packed head follows it */
  /* set by the dynamic path (conv_dynamic.c): run on each task's rows after the kernel, so the
   * int8 runner needs nothing of that file */
  void (*dyn_rows)(const struct yrt_exec_conv *c, const int8_t *x, float *y, size_t r0, size_t r1);
  const float *fbias;       /* f32 bias or NULL */
  int32_t *wsum;            /* [cout] sum of each channel's int8 weights (owned) */
  size_t x_numel;
  const struct yrt_exec *x_src; /* dyn: the node whose published range is x's, or NULL */
  struct yrt_conv_woff *woff; /* dyn with weight offsets (CONV2D input 3), or NULL (owned) */
  int16_t *dw16;            /* dyn depthwise: w + woff as [kh][kw][cout] (owned), or NULL */
} yrt_exec_conv;

YRT_EXEC_STATE_FITS(yrt_exec_conv);
static inline yrt_exec_conv *yrt_conv_state(const yrt_exec *e) { return YRT_EXEC_STATE(yrt_exec_conv, e); }

/* ---- conv_float.c */

/* The float runner (op_table.c's row, through conv.h). */
yrt_status yrt_run_conv_f32(const yrt_session *s, const yrt_exec *e, yrt_error *err);

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

/* absorb_next of the row (op_table.c, through conv.h): the residual Add run in this conv's tasks. */
int yrt_conv_absorb_next(const yrt_session *s, yrt_exec *e, const yrt_exec *next, yrt_op_pixels_fn fn);

yrt_status yrt_conv_prepare_i8(yrt_session *s, yrt_exec *e, yrt_error *err);

/* ---- conv_int16.c: int16 x (symmetric), int8 w, int32 bias, int8 y (+ LUT), groups 1 */
yrt_status yrt_conv_check_i16(const yrt_node_check *v);
yrt_status yrt_conv_prepare_i16(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_conv_run_i16(const yrt_session *s, const yrt_exec *e, yrt_error *err);
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
void yrt_conv_dyn_release(yrt_exec_conv *c);

#endif
