/*
 * lower_internal.h — the lowered graph (yrt tensors + nodes in physical layout) and the helpers
 * the lowering files share. Private to tools/lower.
 *
 * Every IR tensor can exist in up to four "forms": {float, int8} x {PLAIN, NHWC}. The producer
 * writes one form; a consumer that needs another gets it derived on demand (TRANSPOSE,
 * QUANTIZE, DEQUANTIZE emitted right before that consumer) and cached, so all consumers share
 * one conversion. The "int8" form of a tensor annotated int16 (ir_quant.dtype IR_I16, a W8A16
 * stem) is int16: only the int16 conv path (lower_conv.c) and the float conversions read it.
 */
#ifndef YOLORT_LOWER_INTERNAL_H
#define YOLORT_LOWER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "convert.h"
#include "ir.h"
#include "onnx_ops.h"
#include "yolort_format.h"

typedef struct lw_tensor {
  char *name;
  uint32_t dtype, kind, layout;
  int rank;
  int64_t dims[YRT_MAX_RANK]; /* physical */
  void *data;                 /* CONST: physical data (owned) */
  size_t nbytes;
  float scale;
  int32_t zp;
  float *scales; /* per-channel (owned), n_scales > 1 */
  int n_scales;
  int q_axis;
  int view_holder, view_ch; /* a view: 1 + holder tensor, first channel in it (plan_views.c) */
  int first, last; /* liveness in node order (plan_memory.c) */
  uint64_t offset; /* arena offset (ACT/INPUT/OUTPUT) */
} lw_tensor;

typedef struct lw_node {
  uint32_t op;
  char *name;
  int n_in, n_out;
  int in[YRT_MAX_NODE_IO], out[YRT_MAX_NODE_IO];
  int32_t p[YRT_NODE_PARAMS];
  float f[YRT_NODE_FPARAMS];
} lw_node;

/* form index: [int8][layout] */
#define LW_FORM(i8, layout) ((i8) ? 2 : 0) + ((layout) == YRT_LAYOUT_NHWC ? 1 : 0)

typedef struct lw_ctx {
  ir_graph *g;
  const yrt_convert_options *opt;
  yrt_convert_report *rep;
  yrt_error *err;
  lw_tensor *t;
  int nt, cap_t;
  lw_node *n;
  int nn, cap_n;
  int *form;      /* 4 per IR tensor: lw tensor index or -1 */
  int *fuse_mul;  /* per IR node: Conv -> index of the fused SiLU Mul node, else -1 */
  int *fuse_act;  /* per IR node: Conv -> index of the fused Relu / LeakyRelu node, else -1 */
  int *absorbed;  /* per IR node: 1 when fused into another node */
  int *inputs, n_inputs;
  int *outputs, n_outputs;
  uint64_t arena_bytes;
  const char *cur; /* ONNX node being lowered (for names / messages) */
  yrt_status status; /* code of the last error set through lw_err */
} lw_ctx;

/* Set err (message) and remember the code in c->status; evaluates to the code. */
#define lw_err(c, s, ...) ((c)->status = yrt_set_error((c)->err, (s), __VA_ARGS__))

/* ---- lw_graph.c */
yrt_status lw_init(lw_ctx *c, ir_graph *g, const yrt_convert_options *o, yrt_convert_report *rep,
                   yrt_error *err);
void lw_free(lw_ctx *c);
/* New tensor (zeroed, name copied, q_axis 0, first/last -1). -1 on NOMEM (err set). */
int lw_add_tensor(lw_ctx *c, const char *name, uint32_t dtype, uint32_t kind, uint32_t layout,
                  int rank, const int64_t *dims);
/* New node named after c->cur. NULL on NOMEM (err set). Pointer valid until the next add. */
lw_node *lw_add_node(lw_ctx *c, uint32_t op, const int *in, int n_in, const int *out, int n_out);
int64_t lw_numel(const lw_tensor *t);

/* ---- layout.c */
/* logical axis -> physical axis for rank-4 NHWC (N->0, C->3, H->1, W->2) */
extern const int lw_l2p_nhwc[4];
/* Layout an activation IR tensor is produced in (NHWC if any NHWC form exists). */
uint32_t lw_layout_of(const lw_ctx *c, int irt);
/* Physical axis of logical axis a for a tensor of rank r in layout l. */
int lw_phys_axis(uint32_t layout, int rank, int a);
/* Activation IR tensor irt in the given form; emits conversions as needed. -1 on error. */
int lw_get(lw_ctx *c, int irt, int i8, uint32_t layout);
/* Define the form the current node writes for IR tensor irt (kind ACT). -1 on error. */
int lw_def(lw_ctx *c, int irt, int i8, uint32_t layout);
/* A new ACT tensor shaped like lw tensor `like`, with other dtype/quant (temporaries). */
int lw_temp_like(lw_ctx *c, int like, const char *suffix, uint32_t dtype, float scale,
                 int32_t zp);
/* Constant IR tensor irt as a CONST tensor: rank padded to `rank` with leading 1s, then
 * permuted to `layout`; i8 uses qdata (per-tensor int8). -1 on error. */
int lw_const(lw_ctx *c, int irt, int i8, uint32_t layout, int rank);
/* New CONST tensor owning a copy of data. */
int lw_const_raw(lw_ctx *c, const char *name, uint32_t dtype, int rank, const int64_t *dims,
                 const void *data, size_t nbytes);
/* Activation irt in the requested form with its rank padded (RESHAPE) to `rank`. */
int lw_get_rank(lw_ctx *c, int irt, int i8, uint32_t layout, int rank);
/* Transpose tensor x with a physical perm into a new tensor (layout given). */
int lw_emit_transpose(lw_ctx *c, int x, const int *perm, uint32_t out_layout, const char *suffix);

/* ---- schedule_adds.c */
/* Move each int8 Add to just after the int8 conv that makes its last-computed input (the runtime
 * then runs it in that conv's tasks). Returns how many moved. */
int lw_schedule_adds(lw_ctx *c);

/* ---- lower_int8.c */
/* 1 when node n is named by --keep-fp32. */
int lw_node_excluded(const lw_ctx *c, const ir_node *n);
/* 1 when node ni runs int8; otherwise *why says why (static string). */
int lw_node_int8(const lw_ctx *c, int ni, const char **why);
/* 1 when Conv node ni has int8 input and weights but a float output (yolort-quantize leaves the
 * head's last convs so): it lowers to an int8 CONV2D with a float output. Not under
 * --exact-qdq (onnxruntime runs such a conv in float), --keep-fp32, or with groups > 1. */
int lw_conv_i8_float_out(const lw_ctx *c, int ni);
/* 1 when IR tensor t is an int8-quantized (per-tensor) activation or constant (lw_graph.c). */
int lw_q_ok(const ir_graph *g, int t);
/* Int8 data movement into IR output irt: returns the tensor the op must write (out itself or
 * a temp carrying the input's q); lw_requant_end emits the LUT when they differ. */
int lw_requant_begin(lw_ctx *c, int out, int in);
yrt_status lw_requant_end(lw_ctx *c, int wrote, int out);
/* 256-entry CONST LUT tensor; scale/zp record the index domain's q. */
/* A constant int8 table of 256 entries indexed by values of grid (sx, zx). */
int lw_lut_table(lw_ctx *c, const int8_t lut[256], float sx, int32_t zx);
int lw_lut_unary(lw_ctx *c, int kind, float alpha, float sx, int32_t zx, float sy, int32_t zy);
int lw_lut_silu(lw_ctx *c, const ir_quant *qy, const ir_quant *qs, const ir_quant *qz);
/* A binary node (Add / Sub / Mul / Div) of an int8 activation and a float scalar constant, with
 * an int8 output, is a function of one int8 tensor: a LUT (the attention's Mul by
 * 1/sqrt(key_dim) between QDQ pairs, which otherwise runs as dequantize, float Mul, quantize).
 * Returns the activation's input index (0 or 1) and *val the constant, else -1. */
int lw_binary_scalar_operand(const lw_ctx *c, int ni, float *val);
/* A Softmax over the last axis (at most YRT_SOFTMAX_I8_MAX_LEN) between QDQ pairs, with
 * lw_softmax_qlinear_k in (0, 1]: an int8 SOFTMAX node (yolort_format.h), the float chain it
 * replaces row by row. The whole decision: lower_softmax and fake_quant's readers both ask here. */
int lw_softmax_int8(const lw_ctx *c, int ni);
/* DQ -> Softmax -> Q is onnxruntime's QLinearSoftmax, which quantizes p as
 * round(p * floor(1 / s_y)) + zp (qlinear_softmax.cc), not round(p / s_y) + zp: p scaled by
 * k = floor(1 / s_y) * s_y rounds the same way in a QUANTIZE of scale s_y. */
float lw_softmax_qlinear_k(float sy);
/* The LUT of x op k (k op x when k_first), x in (sx, zx), result quantized to (sy, zy). */
int lw_lut_binary_scalar(lw_ctx *c, int kind, float k, int k_first, float sx, int32_t zx, float sy,
                         int32_t zy);
void lw_note_fp32(lw_ctx *c, const ir_node *n, const char *why);
/* After node ni is lowered: a node that ran in float outside the fp32 region (no int8 kernel,
 * unquantized inputs) but whose output the QDQ graph quantizes gets that rounding applied
 * (QUANTIZE + DEQUANTIZE), so its float readers see what they see in the QDQ graph. */
yrt_status lw_fake_quant_outputs(lw_ctx *c, int ni);

/* ---- fuse_token_matmul.c: the attention's Transpose -> MatMul -> Reshape as one token-major
 * int8 MATMUL (IR node indices of the pieces; tensors: p the softmax, v_tokens the NHWC-read
 * Reshape of V, out the Reshape's output). */
typedef struct lw_token_matmul {
  int transpose, reshape, reshape_v;
  int p, v_tokens, out;
} lw_token_matmul;
int lw_token_matmul_match(const lw_ctx *c, int mi, lw_token_matmul *m);
/* Mark the Transpose and Reshape of every match absorbed (lowered by the MatMul, lower_ops.c). */
yrt_status lw_fuse_token_matmul(lw_ctx *c);

/* ---- fuse_softmax_lut.c: the int8 Softmax taking the table of the scalar op before it (op its
 * IR node, lowered as lower_binary_scalar would: x op k, k first when xj == 1). */
typedef struct lw_softmax_lut {
  int op, xj, kind;
  float k;
} lw_softmax_lut;
int lw_softmax_lut_match(const lw_ctx *c, int si, lw_softmax_lut *m);
/* Mark every matched op absorbed (its table goes into the SOFTMAX). */
yrt_status lw_fuse_softmax_lut(lw_ctx *c);
/* The op's input in int8 PLAIN form (*xi) and its table; -1 on error (c->status set). */
int lw_softmax_lut_table(lw_ctx *c, const lw_softmax_lut *m, int *xi);

/* ---- fuse_silu.c */
/* Fill c->fuse_mul / c->absorbed for Conv -> Sigmoid -> Mul(y, s) patterns, and c->fuse_act /
 * c->absorbed for Conv -> Relu / LeakyRelu. */
yrt_status lw_fuse_silu(lw_ctx *c);
yrt_status lw_fuse_act(lw_ctx *c);

/* ---- lower_conv.c / lower_ops.c */
/* Conv/MaxPool geometry into p[0..9] = kh kw sh sw pad_t pad_l pad_b pad_r dh dw from the
 * node's strides/pads/dilations/auto_pad (ceil_mode widens pad_b/pad_r); checks oh/ow. */
yrt_status lw_spatial_params(lw_ctx *c, const ir_node *n, int64_t h, int64_t w, int kh, int kw,
                             int64_t oh, int64_t ow, int ceil_mode, int32_t *p);
yrt_status lw_lower_conv(lw_ctx *c, int ni);
/* lower_conv_transpose.c: ConvTranspose -> YRT_OP_CONV_TRANSPOSE (float). */
yrt_status lw_lower_conv_transpose(lw_ctx *c, int ni);
yrt_status lw_lower_node(lw_ctx *c, int ni);

/* ---- plan_views.c: zero-copy Concat / Split as tensor views; *n_views made. */
yrt_status lw_plan_views(lw_ctx *c, int *n_views);

/* ---- plan_memory.c */
yrt_status lw_plan_memory(lw_ctx *c);

/* ---- yrt_writer.c */
/* META's class count (and the fused head's strides into strides[0..2], left 0 otherwise). */
uint32_t lw_class_count(const lw_ctx *c, size_t n_names, uint32_t strides[4]);
yrt_status lw_write(lw_ctx *c, const char *source, uint32_t flags, void **out, size_t *size,
                    uint64_t *weight_bytes);

/* ---- small helpers (lw_graph.c) */
int lw_ir_const_i64(const ir_tensor *t, int64_t i, int64_t *v);
char *lw_strdup(const char *s);

/* ---- the fused head nodes (domain "yolort", made by tools/ir/fuse_*_head.c; lower_detect.c),
 * rows of the op table lowered whole: they read the logits in the form their convs wrote (int8 or
 * float NHWC) and count themselves in the report */
yrt_status lw_lower_detect(lw_ctx *c, int ni); /* DetectDecode -> YRT_OP_DETECT_DECODE */
yrt_status lw_lower_obj(lw_ctx *c, int ni);    /* ObjDecode -> YRT_OP_OBJ_DECODE */
yrt_status lw_lower_e2e(lw_ctx *c, int ni);    /* DetectTopK -> YRT_OP_DETECT_TOPK */
yrt_status lw_lower_pose(lw_ctx *c, int ni);   /* PoseDecode -> YRT_OP_POSE_DECODE */
yrt_status lw_lower_obb(lw_ctx *c, int ni);    /* ObbDecode -> YRT_OP_OBB_DECODE (angle maps + rows) */

#endif
