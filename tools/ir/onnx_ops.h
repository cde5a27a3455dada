/*
 * onnx_ops.h — the converter's op table: one row per ONNX op_type (default domain) saying how
 * the converter infers its shapes, folds it when its inputs are constants, lowers it to yrt
 * nodes, and whether it runs in int8. Every pass asks this table (ir_node_op) instead of
 * comparing op_type strings; adding an op is adding an enum value and a row (onnx_ops.c).
 * The table is data only and lives with the IR (tools/ir): the lowering (tools/lower) maps
 * `lower` families to its functions, so the table never points up into the lowering. The nodes
 * the head fusions make (domain "yolort") have rows too, so the lowering has one dispatch.
 */
#ifndef YOLORT_ONNX_OPS_H
#define YOLORT_ONNX_OPS_H

#include <stdint.h>

#include "ir.h"

/* One value per row of onnx_ops.c (the row's index); ONNX_OP_NONE: not in the table. */
typedef enum onnx_op {
  ONNX_OP_NONE = 0,
  ONNX_OP_ABS,
  ONNX_OP_ADD,
  ONNX_OP_AVERAGE_POOL,
  ONNX_OP_BATCH_NORMALIZATION,
  ONNX_OP_CAST,
  ONNX_OP_CEIL,
  ONNX_OP_CLIP,
  ONNX_OP_CONCAT,
  ONNX_OP_CONSTANT,
  ONNX_OP_CONSTANT_OF_SHAPE,
  ONNX_OP_CONV,
  ONNX_OP_CONV_TRANSPOSE,
  ONNX_OP_COS,
  ONNX_OP_DEQUANTIZE_LINEAR,
  ONNX_OP_DIV,
  ONNX_OP_ERF,
  ONNX_OP_EXP,
  ONNX_OP_EXPAND,
  ONNX_OP_FLATTEN,
  ONNX_OP_FLOOR,
  ONNX_OP_GATHER,
  ONNX_OP_GATHER_ELEMENTS,
  ONNX_OP_GLOBAL_AVERAGE_POOL,
  ONNX_OP_GLOBAL_MAX_POOL,
  ONNX_OP_HARD_SIGMOID,
  ONNX_OP_HARD_SWISH,
  ONNX_OP_IDENTITY,
  ONNX_OP_LEAKY_RELU,
  ONNX_OP_LOG,
  ONNX_OP_MATMUL,
  ONNX_OP_MAX,
  ONNX_OP_MAX_POOL,
  ONNX_OP_MIN,
  ONNX_OP_MOD,
  ONNX_OP_MUL,
  ONNX_OP_NEG,
  ONNX_OP_NON_MAX_SUPPRESSION,
  ONNX_OP_POW,
  ONNX_OP_QUANTIZE_LINEAR,
  ONNX_OP_RANGE,
  ONNX_OP_RECIPROCAL,
  ONNX_OP_REDUCE_MAX,
  ONNX_OP_RELU,
  ONNX_OP_RESHAPE,
  ONNX_OP_RESIZE,
  ONNX_OP_ROUND,
  ONNX_OP_SHAPE,
  ONNX_OP_SIGMOID,
  ONNX_OP_SIN,
  ONNX_OP_SLICE,
  ONNX_OP_SOFTMAX,
  ONNX_OP_SPLIT,
  ONNX_OP_SQRT,
  ONNX_OP_SQUEEZE,
  ONNX_OP_SUB,
  ONNX_OP_TANH,
  ONNX_OP_TILE,
  ONNX_OP_TOPK,
  ONNX_OP_TRANSPOSE,
  ONNX_OP_UNSQUEEZE,
  ONNX_OP_UPSAMPLE,
  /* domain "yolort": the nodes the head fusions make (tools/ir/fuse_*_head.c) */
  ONNX_OP_YOLORT_DETECT_DECODE,
  ONNX_OP_YOLORT_OBJ_DECODE,
  ONNX_OP_YOLORT_DETECT_TOPK,
  ONNX_OP_YOLORT_POSE_DECODE,
  ONNX_OP_YOLORT_OBB_DECODE,
  ONNX_OP_COUNT
} onnx_op;

/* How the lowering can run the op on quantized data. */
typedef enum onnx_qclass {
  ONNX_Q_FLOAT = 0, /* float only: quantized neighbours are dequantized around it */
  ONNX_Q_INT8,      /* int8 compute: an int8 kernel (conv, binary, LUT) */
  ONNX_Q_MOVE,      /* data movement: int8 copy of its input's values, requantized if q differs */
} onnx_qclass;

/* Lowering families (tools/lower/lower_ops.c maps each to one function). */
typedef enum onnx_lower {
  ONNX_LOWER_NONE = 0, /* not lowered: folded, annotated or fused away before, else unsupported */
  ONNX_LOWER_CONV,
  ONNX_LOWER_BINARY,   /* YRT_OP_BINARY, kind = row->lower_kind (YRT_BIN_*) */
  ONNX_LOWER_UNARY,    /* YRT_OP_UNARY / LUT, kind = row->lower_kind (YRT_UNARY_*) */
  ONNX_LOWER_CONCAT,
  ONNX_LOWER_SPLIT,
  ONNX_LOWER_SLICE,
  ONNX_LOWER_TRANSPOSE,
  ONNX_LOWER_RESHAPE,  /* Reshape, Flatten, Squeeze, Unsqueeze: same data, new shape */
  ONNX_LOWER_MAXPOOL,
  ONNX_LOWER_RESIZE,
  ONNX_LOWER_MATMUL,
  ONNX_LOWER_SOFTMAX,
  ONNX_LOWER_GATHER,
  ONNX_LOWER_POW,      /* x^2 (a constant exponent 2) as x * x, float: YOLOv5's box size */
  ONNX_LOWER_CONV_TRANSPOSE, /* YRT_OP_CONV_TRANSPOSE, float or int8 (lower_conv_transpose.c) */
  ONNX_LOWER_DETECT_DECODE,  /* the fused head nodes (domain "yolort", lower_detect.c) */
  ONNX_LOWER_OBJ_DECODE,
  ONNX_LOWER_DETECT_TOPK,
  ONNX_LOWER_POSE_DECODE,
  ONNX_LOWER_OBB_DECODE,
  ONNX_LOWER_COUNT
} onnx_lower;

/* Row flags: policy of the quantizer (yolort-quantize) and of the fp32 head region. */
enum {
  ONNX_F_PTQ_QUANTIZE = 1, /* yolort-quantize quantizes its activation inputs and outputs */
  ONNX_F_PTQ_SHARE = 2,    /* yolort-quantize: its outputs share its first input's parameters */
  ONNX_F_HEAD_SEED = 4,    /* on a non-rank-4 activation it starts the float detection head */
  ONNX_F_E2E_SELECT = 8,   /* may stand in an end-to-end head's selection (fuse_e2e_head.c: the
                              index, gather and shape ops between the Split and the Concat) */
};

typedef struct onnx_op_row onnx_op_row;

/* Output rank/dims/dtype of node `node` (input 0's shape is known when called). */
typedef yrt_status (*onnx_shape_fn)(ir_graph *g, int node, const onnx_op_row *row, yrt_error *err);
/* Values of the node's single output from its constant inputs into data (numel elements of the
 * output's dtype, zeroed). Returns 1 done, 0 cannot (left to the runtime), -2 error (*st set). */
typedef int (*onnx_fold_fn)(ir_graph *g, const ir_node *n, const onnx_op_row *row, void *data,
                            int64_t numel, yrt_status *st, yrt_error *err);

struct onnx_op_row {
  const char *op_type;  /* ONNX op_type */
  onnx_op id;           /* == index in the table */
  onnx_shape_fn shape;  /* NULL: the converter does not take this op */
  onnx_fold_fn fold;    /* NULL: never evaluated at conversion time */
  onnx_qclass qclass;
  uint8_t q_inputs;     /* int8: leading inputs that carry quantized data (0 = all) */
  uint8_t flags;        /* ONNX_F_* */
  onnx_lower lower;
  int32_t lower_kind;   /* unary / binary families: YRT_UNARY_* / YRT_BIN_* */
  float alpha;          /* unary family: default of the node's 'alpha' attribute (0: it has none) */
  const char *domain;   /* NULL: the default domain; "yolort": a node a head fusion makes (its
                           shapes set by the fusion, lowered whole: no shape or fold function) */
};

/* Row of an ONNX op_type, NULL when the converter does not know it. */
const onnx_op_row *onnx_op_find(const char *op_type);
/* Row of an id; NULL for ONNX_OP_NONE or out of range. */
const onnx_op_row *onnx_op_row_of(onnx_op id);
/* Table id of an op_type (ONNX_OP_NONE when unknown); ir_add_node caches it in ir_node.op. */
onnx_op onnx_op_id(const char *op_type);
/* Row of a node of the default domain ("" or "ai.onnx"), NULL otherwise or when unknown. */
const onnx_op_row *ir_node_op(const ir_node *n);
/* Row of a node of the default domain or of domain "yolort" (a fused head node), NULL when its
 * (domain, op_type) has no row. */
const onnx_op_row *ir_node_row(const ir_node *n);
/* 1 if n is a node with this table id (of the row's domain). */
int ir_node_is_op(const ir_node *n, onnx_op id);
/* 1 for a live node with this id: the head fusions' nodes (ONNX_OP_YOLORT_*), looked for after
 * the fusion marked what it replaced dead. */
int ir_node_is_live_op(const ir_node *n, onnx_op id);
/* The one error for an op the converter does not take: "unsupported op 'X' at node 'Y'"
 * (with the domain when it is not the default one). Returns YRT_ERR_UNSUPPORTED. */
yrt_status onnx_op_unsupported(const ir_node *n, yrt_error *err);

#endif /* YOLORT_ONNX_OPS_H */
