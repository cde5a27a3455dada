/*
 * ir.h — the converter's graph IR (tools side only; the runtime never sees it).
 *
 * An ir_graph is what the ONNX reader produces and what every pass rewrites:
 *   onnx_read -> ir_fold_constants -> ir_infer_shapes -> ir_qdq_annotate -> ir_mark_fp32_head
 *   -> lower (tools/lower) -> .yrt
 * Tensors and nodes live in growable arrays and are referred to by index. Passes mark nodes
 * dead instead of removing them; ir_compact() drops dead nodes and unused tensors.
 * Shapes are LOGICAL (ONNX order). All memory is owned by the graph.
 */
#ifndef YOLORT_IR_H
#define YOLORT_IR_H

#include <stddef.h>
#include <stdint.h>

#include "yolort.h"

#define IR_MAX_RANK 8

/* Element types: values are ONNX TensorProto.DataType codes so the reader maps 1:1. */
typedef enum ir_dtype {
  IR_UNDEF = 0,
  IR_F32 = 1,
  IR_U8 = 2,
  IR_I8 = 3,
  IR_U16 = 4, /* read for int16 / uint16 QDQ zero points (W8A16 activations) */
  IR_I16 = 5,
  IR_I32 = 6,
  IR_I64 = 7,
  IR_BOOL = 9,
  IR_F64 = 11,
} ir_dtype;

size_t ir_dtype_size(ir_dtype t); /* 0 for unsupported */
/* ONNX TensorProto.DataType -> the IR type a tensor of it is read as: float16 (10) and bfloat16
 * (16) are float32 in yolort (an FP16 export's weights are widened exactly on read, its Casts
 * between float types become no-ops); IR_UNDEF for a type yolort does not read. */
ir_dtype ir_dtype_from_onnx(int64_t onnx_type);
#define IR_ONNX_FLOAT16 10
#define IR_ONNX_BFLOAT16 16

typedef struct ir_quant {
  int on;            /* 1: this tensor is stored quantized */
  ir_dtype dtype;    /* IR_I8 (uint8 is normalised to int8 by ir_qdq_annotate: zp -= 128), or
                      * IR_I16 for a symmetric int16 activation (uint16 zp 32768 normalised: zp 0) */
  float scale;       /* per-tensor */
  int32_t zero_point;
  float *scales;     /* per-channel (owned), NULL for per-tensor */
  int n_scales;
  int axis;          /* logical axis of per-channel scales */
} ir_quant;

typedef struct ir_tensor {
  char *name;
  ir_dtype dtype;         /* logical element type (F32 for activations, even when quantized) */
  int rank;               /* -1 = unknown */
  int64_t dims[IR_MAX_RANK];
  void *data;             /* non-NULL: constant, nbytes of raw little-endian data (owned) */
  size_t nbytes;
  int producer;           /* node index, -1 for graph inputs and constants */
  int is_input, is_output;
  ir_quant q;             /* activation/weight quantization, set by ir_qdq_annotate */
  /* For a quantized constant (conv weight / bias): the raw integer data (owned) in q.dtype
   * (I8 weights, I32 bias); `data` then holds the dequantized float copy. */
  void *qdata;
} ir_tensor;

typedef enum ir_attr_type {
  IR_ATTR_INT = 1, IR_ATTR_FLOAT, IR_ATTR_STRING, IR_ATTR_INTS, IR_ATTR_FLOATS, IR_ATTR_TENSOR
} ir_attr_type;

typedef struct ir_attr {
  char *name;
  ir_attr_type type;
  int64_t i;
  float f;
  char *s;
  int64_t *ints;
  int n_ints;
  float *floats;
  int n_floats;
  int tensor;             /* IR_ATTR_TENSOR: index of a constant tensor in the graph */
} ir_attr;

typedef struct ir_node {
  char *name;
  char *op_type;          /* ONNX op type, e.g. "Conv" */
  char *domain;           /* "" for the default domain */
  int op;                 /* onnx_op id of op_type (tools/ir/onnx_ops.h), set by ir_add_node */
  int *in;                /* tensor indices; -1 for an omitted optional input ("") */
  int n_in;
  int *out;
  int n_out;
  ir_attr *attrs;
  int n_attrs;
  int dead;
  int fp32;               /* 1: must run in float (head region or user exclusion) */
} ir_node;

/* How the image becomes the network input (issue 36 item 8). set = 0: the Ultralytics default
 * (RGB, x / 255, aspect-keeping letterbox centred, pad 114). Filled from the metadata, from the
 * family a head fusion recognised (YOLOX: BGR 0..255 at the top-left), or by yolort-convert
 * --preprocess; stored in the .yrt and applied by the frame and JPEG paths alike. */
typedef enum ir_resize_mode { IR_RESIZE_LETTERBOX = 0, IR_RESIZE_STRETCH = 1, IR_RESIZE_CROP = 2 } ir_resize_mode;
typedef struct ir_preprocess {
  int set;          /* 1 when any field below was decided (not the default) */
  int bgr;          /* 1: channels B, G, R */
  float scale;      /* pixel (0..255) multiplier before mean/std: 1/255 or 1 */
  float mean[3], std[3]; /* per network channel, after scale: (x * scale - mean) / std; 0 / 1 */
  int top_left;     /* 1: the resized image at the top-left, padding right and bottom */
  int resize;       /* ir_resize_mode; CROP = shorter side to the input, centre crop (classify) */
  float pad;        /* padding value in 0..255 units (114) */
  char why[96];     /* where it came from, for the converter's summary */
} ir_preprocess;

/* The NMS a graph did itself (an Ultralytics nms=True export), cut off by the converter and kept
 * as the model's postprocess defaults. set = 0: none. NAN / 0: the graph did not say. */
typedef struct ir_nms {
  int set;
  double iou, conf;  /* IoU threshold, score threshold */
  int max_det;       /* detections kept */
  int class_aware;   /* 1: per class (the class offset trick), 0: class-agnostic */
} ir_nms;

typedef struct ir_graph {
  ir_tensor *tensors;
  int n_tensors, cap_tensors;
  ir_node *nodes;
  int n_nodes, cap_nodes;
  int *inputs;            /* graph inputs that are not initializers */
  int n_inputs;
  int *outputs;
  int n_outputs;
  int64_t opset;          /* default-domain opset */
  int synthetic;          /* set from metadata_props "yolort.synthetic" == "1" */
  int n_half;             /* float16 / bfloat16 constants widened to float32 on read */
  char *class_names;      /* '\n'-separated, from metadata_props "names" if present (owned) */
  /* Ultralytics metadata_props (onnx_reader.c): task ("detect", "segment", "pose", ...; NULL when
   * absent, owned), imgsz (0 when absent), max stride (0), kpt_shape (0, 0). */
  char *task;
  int imgsz_h, imgsz_w, meta_stride;
  int kpt_shape[2];
  ir_preprocess pre;      /* zeroed by ir_graph_new: the default preprocessing */
  ir_nms nms;             /* the graph's own NMS, cut off (tools/lower/cut_graph_nms.c) */
  /* name -> tensor index hash (ir.c private; rebuilt by ir_compact / ir_graph_rehash). */
  int *name_hash;
  int name_hash_cap;
} ir_graph;

/* ---- construction / lookup (tools/ir/ir.c) */
ir_graph *ir_graph_new(void);
void ir_graph_free(ir_graph *g);
/* Returns the index of a new tensor (name copied), or -1 on allocation failure. */
int ir_add_tensor(ir_graph *g, const char *name, ir_dtype dtype);
/* A new constant F32 tensor named base+suffix (unnamed if that name is taken) with the given shape
 * and n values copied from data. Tensor index, or -1 on failure. */
int ir_add_const_f32(ir_graph *g, const char *base, const char *suffix, int rank, const int64_t *dims,
                     const float *data, size_t n);
int ir_find_tensor(const ir_graph *g, const char *name); /* -1 if absent */
/* New node; in/out arrays copied. Returns index or -1. */
int ir_add_node(ir_graph *g, const char *name, const char *op_type, const int *in, int n_in,
                const int *out, int n_out);
const ir_attr *ir_attr_get(const ir_node *n, const char *name);
int64_t ir_attr_int(const ir_node *n, const char *name, int64_t dflt);
float ir_attr_float(const ir_node *n, const char *name, float dflt);
const char *ir_attr_string(const ir_node *n, const char *name, const char *dflt);
/* Number of live consumers of tensor t; fills up to cap node indices. */
int ir_consumers(const ir_graph *g, int t, int *nodes, int cap);
int64_t ir_numel(const ir_tensor *t); /* -1 if rank unknown */
/* Node indices in a valid execution order (live nodes only). Caller frees. */
yrt_status ir_topo_order(const ir_graph *g, int **order, int *n, yrt_error *err);
/* Drop dead nodes and tensors no live node or graph output refers to. */
yrt_status ir_compact(ir_graph *g, yrt_error *err);

/* ---- helpers (additions beyond the original contract, tools/ir/ir.c).
 * NOTE: ir_add_tensor / ir_add_node may realloc g->tensors / g->nodes: re-take pointers after. */
char *ir_strdup(const char *s); /* malloc'ed copy; NULL -> "" */
/* Rebuild the name hash; call after renaming a tensor (t->name) in place. */
void ir_graph_rehash(ir_graph *g);
/* Append t to g->inputs / g->outputs (and set is_input / is_output). 0 ok, -1 no memory. */
int ir_graph_add_input(ir_graph *g, int t);
int ir_graph_add_output(ir_graph *g, int t);
/* Set (add or replace) a node attribute. 0 ok, -1 bad node / no memory. */
int ir_set_attr_int(ir_graph *g, int node, const char *name, int64_t v);
int ir_set_attr_float(ir_graph *g, int node, const char *name, float v);
int ir_set_attr_string(ir_graph *g, int node, const char *name, const char *v);
int ir_set_attr_ints(ir_graph *g, int node, const char *name, const int64_t *v, int n);
int ir_set_attr_floats(ir_graph *g, int node, const char *name, const float *v, int n);
int ir_set_attr_tensor(ir_graph *g, int node, const char *name, int tensor);
/* Shape (rank -1..IR_MAX_RANK) and constant data (copied) of a tensor. 0 ok, -1 error. */
int ir_tensor_set_shape(ir_tensor *t, int rank, const int64_t *dims);
int ir_tensor_set_data(ir_tensor *t, const void *data, size_t nbytes);
/* Deep copy of a quantization annotation (dst's old per-channel scales are freed). */
int ir_quant_copy(ir_quant *dst, const ir_quant *src);
/* Free t->q.scales and t->qdata and zero t->q. */
void ir_tensor_clear_quant(ir_tensor *t);
/* Make every live node input (and graph output) that refers to `from` refer to `to`. */
void ir_replace_uses(ir_graph *g, int from, int to);
/* Constant tensor element i as double / int64 (F32, F64, I8, U8, I32, I64, BOOL); the caller
 * guarantees i < numel and t->data != NULL. */
double ir_const_f64(const ir_tensor *t, int64_t i);
int64_t ir_const_i64(const ir_tensor *t, int64_t i);
/* Slice (opset 1-9 attributes or 10+ constant inputs) resolved for every axis d of the data
 * tensor (whose shape must be known): first index start[d], step[d], output length len[d];
 * axes not sliced get 0, 1, dim. Arrays hold IR_MAX_RANK. (tools/ir/shape_infer.c) */
yrt_status ir_slice_resolve(const ir_graph *g, const ir_node *n, int64_t *start, int64_t *step,
                            int64_t *len, yrt_error *err);
/* 1 if n is a default-domain node of this op type (prefer ir_node_is_op / ir_node_op of
 * onnx_ops.h, which read the op table id cached in n->op). */
int ir_node_is(const ir_node *n, const char *op_type);
/* 1 if a node name matches an exclusion pattern: the exact name, or, when the pattern ends in
 * '*', any name starting with what precedes it (so "/model.10/" followed by "*" keeps the whole block). */
int ir_name_matches(const char *name, const char *pattern);

/* ---- ONNX reader (tools/onnx/onnx_reader.c) */
yrt_status onnx_read_file(const char *path, ir_graph **out, yrt_error *err);
yrt_status onnx_read_memory(const void *data, size_t size, ir_graph **out, yrt_error *err);

/* ---- passes (tools/ir/) */
/* Constant nodes -> constant tensors; nodes with all-constant inputs evaluated (Shape, Gather,
 * Concat, Unsqueeze, Cast, Reshape, arithmetic on small int/float tensors, ...). */
yrt_status ir_fold_constants(ir_graph *g, yrt_error *err);
/* onnxruntime quantize_dynamic chains (DynamicQuantizeLinear -> ConvInteger / MatMulInteger ->
 * Cast -> Mul by input scale x weight scale [-> Add of a per-channel bias]) become float Conv /
 * MatMul nodes reading the float input, with weights (Wq - Wzp) * w_scale recovered exactly;
 * each gets attribute "yolort.dynamic_quant" = 1. *n_recovered (may be NULL) counts them. An
 * integer op in another form -> YRT_ERR_UNSUPPORTED naming it. Run after ir_fold_constants
 * (the bias Reshapes fold) and before ir_infer_shapes. (tools/ir/recover_integer_ops.c) */
yrt_status ir_recover_integer_ops(ir_graph *g, int *n_recovered, yrt_error *err);
/* Gemm with constant 2-D weights and transA = 0 (a classifier's Linear layer) -> MatMul(A,
 * alpha * op(B)) [-> Add(beta * C)]; any other Gemm -> YRT_ERR_UNSUPPORTED naming it. Run before
 * ir_infer_shapes (Gemm has no shape rule). *n_rewritten may be NULL. (tools/ir/gemm_as_matmul.c) */
yrt_status ir_gemm_as_matmul(ir_graph *g, int *n_rewritten, yrt_error *err);
/* A dynamically quantized MatMul (ir_recover_integer_ops) of a [1, K] input by constant [K, N]
 * weights (a classifier's Linear layer) -> Reshape [1, K, 1, 1] -> 1x1 Conv (weights [N, K, 1, 1],
 * the same dynamic tags) -> Reshape [1, N], so it runs on the dynamic int8 conv path with the
 * input quantized per run as onnxruntime's MatMulInteger does (a float MatMul differs from it by
 * the input's 8-bit rounding). Run after ir_infer_shapes (sets the new shapes itself). */
yrt_status ir_dynamic_linear_as_conv(ir_graph *g, int *n_rewritten, yrt_error *err);
/* Infer every tensor's rank/dims from the graph input shapes. Unsupported op -> error naming
 * the op and node. Constant-input nodes met on the way are folded (as ir_fold_constants).
 * Attributes are normalised for the lowering: Conv/MaxPool get explicit kernel_shape,
 * strides, dilations, pads (auto_pad resolved for Conv, rejected for MaxPool) and Conv group;
 * Split gets a non-negative axis and an explicit 'split' list (from attribute, input or
 * num_outputs); Concat/Gather/Softmax axis and Transpose perm become explicit/non-negative. */
yrt_status ir_infer_shapes(ir_graph *g, yrt_error *err);
/* AveragePool and GlobalAveragePool (rank 4, shapes known) become a depthwise Conv (group C)
 * whose weights are 1/(kh*kw), rewritten in place (name, input and output kept), where that is
 * exactly the pool: no padding, or count_include_pad = 1, and no partial window from ceil_mode;
 * other pools are left as they are. In a graph with a DequantizeLinear the weights are int8 127
 * through a new DQ at scale 1/(127*kh*kw) (for ir_qdq_annotate), else float. *n_rewritten (may
 * be NULL) counts them. Run right after ir_infer_shapes (tools/ir/avgpool_as_conv.c). */
yrt_status ir_avgpool_as_conv(ir_graph *g, int *n_rewritten, yrt_error *err);
/* Fold BatchNormalization that follows a Conv into its weights/bias (FP32 graphs). New
 * weight/bias tensors are created (the originals may be shared); the Conv then writes the BN
 * output tensor. Needs constant float weights; other BNs are left alone. */
yrt_status ir_fold_batchnorm(ir_graph *g, yrt_error *err);
/* Turn every QuantizeLinear->DequantizeLinear pair into a quantization annotation on the
 * float tensor (tensor.q) and every DequantizeLinear of an initializer into a constant with
 * q + qdata; removes the Q/DQ nodes. A QuantizeLinear of a float constant is folded first (its
 * output becomes the integer constant). A graph without QDQ is left unchanged.
 * When a DQ output was a graph output, the float tensor takes over its name ("output0").
 * Unsupported (error naming the node): Q/DQ pairs with different parameters, a Q read by
 * anything but DQ, DQ of a non-constant tensor not produced by Q, per-channel activations,
 * per-channel zero points that differ on activations (constants: conv weights are centred to
 * symmetric int8 per output channel, exactly when the values fit), blocked quantization
 * (block_size), types other than int8/uint8 (int32 for biases). */
yrt_status ir_qdq_annotate(ir_graph *g, yrt_error *err);
/* onnxruntime's QOperator layout (QLinearConv, QLinearAdd, QLinearMul, QLinearConcat,
 * QLinearSigmoid, QLinearLeakyRelu, QLinearGlobalAveragePool, QLinearAveragePool) rewritten as QDQ: each becomes
 * DequantizeLinear of its inputs -> the float op -> QuantizeLinear of its output, for
 * ir_qdq_annotate (QLinearConv's int32 bias: a DQ at x_scale * w_scale). Run first. *n_lowered
 * (may be NULL) counts the rewritten nodes (tools/ir/qoperator_to_qdq.c). */
yrt_status ir_lower_qoperators(ir_graph *g, int *n_lowered, yrt_error *err);
/* QAT / TensorRT-style layout (Q/DQ on conv inputs only, float between convs; detected as: most
 * convs with a quantized input have a float output): conv outputs take the quantization their
 * consumers apply, as TensorRT does — a Conv -> SiLU whose output z is quantized gets the int8
 * range whose SiLU covers z's (ir_silu_input_quant), quantization moves backwards across
 * Concat / Add / data movement (MaxPool, Resize, Reshape, Transpose, Slice, Split...) to inputs
 * without one, and forwards across data movement and Concat. Graphs of other layouts (onnxruntime's,
 * yolort-quantize's) are untouched. Returns how many tensors got a quantization
 * (tools/ir/qdq_propagate.c). */
int ir_qdq_propagate(ir_graph *g);
/* The int8 quantization (scale, zero point) of a SiLU's input when its output is quantized with
 * (sz, zz): covers up to silu^-1 of z's largest value, and down to the lower bound that
 * minimises the larger of the clamping and rounding errors. */
void ir_silu_input_quant(float sz, int32_t zz, float *sy, int32_t *zy);
/* Mark the FP32 region: every node reachable from an op that turns a rank-4 activation into
 * another rank (the detection head's flatten), and from head Sigmoid/Softmax/Gather/Slice.
 * A region a flatten starts ends at the first node whose output is rank 4 again on the
 * flattened input's grid (batch, H, W; attention that flattens to tokens and comes back, as
 * YOLO12's AAttn): that node is fp32, what reads its output is not (tools/ir/fp32_region.c).
 * Quantization annotations on tensors produced and consumed only inside the region are
 * cleared (the head computes in float; borders are dequantized per branch). Also marks the
 * nodes named in `exclude` (NULL-terminated, may be NULL; ir_name_matches patterns) fp32
 * (mixed precision).
 * Precisely: q is cleared on every tensor made in float (produced by an fp32 node, or a
 * constant — its float data is the exact dequantized value) whose every reader is fp32.
 * An exclude pattern matching no node -> YRT_ERR_INVALID_ARG. Needs shapes (run ir_infer_shapes first). */
yrt_status ir_mark_fp32_region(ir_graph *g, const char *const *exclude, yrt_error *err);
/* Same; head == 0 marks only the exclusions, keeping every quantization of the QDQ graph (the
 * head then runs in float between explicit quantize/dequantize steps, as onnxruntime does). */
yrt_status ir_mark_fp32_region_ex(ir_graph *g, const char *const *exclude, int head, yrt_error *err);
/* Names (strdup'ed, in a NULL-terminated array of *n; free each and the array) of the live
 * nodes that read activations and whose result, and everything it is computed from, is at
 * stride <= max_stride of the image input's height: the high-resolution stem (tools/ir/stem.c).
 * Needs shapes. No rank-4 image input -> YRT_ERR_SHAPE. */
yrt_status ir_stem_nodes(const ir_graph *g, int max_stride, char ***names, int *n, yrt_error *err);
/* The tensors feeding a Concat (through channel Splits / Slices, from the int8 Conv, Add or Concat
 * computing them) take the Concat's quantization, so the Concat and the Splits only move bytes
 * (views) and nothing is rounded twice: for QDQ files quantized elsewhere (onnxruntime gives
 * every tensor its own range). Run after ir_mark_fp32_region. Returns how many tensors changed
 * (tools/ir/qdq_tie.c). */
int ir_qdq_tie_concat(ir_graph *g);
/* Concat inputs that are all outputs of one Split, consecutive, in order, along the same axis
 * and with the Split input's quantization, are replaced by the Split input (merge_split_concat.c).
 * Returns how many runs were merged. */
int ir_merge_split_concat(ir_graph *g);
/* Casts whose input already has the output's type (float -> float16 -> float in an FP16 export,
 * read as float32) are removed: the producer writes the Cast's output directly, or, for a graph
 * input, its readers read the input. Returns how many (drop_noop_casts.c; ir_infer_shapes runs it). */
int ir_drop_noop_casts(ir_graph *g);

#endif /* YOLORT_IR_H */
