/* onnx_ops.c — THE converter op table (see onnx_ops.h): one row per ONNX op_type the converter
 * knows. Shape functions are in shape_*.c, fold functions in fold_ops.c, lowering families in
 * tools/lower/lower_ops.c. An op_type without a row is unsupported (onnx_op_unsupported). */
#include "onnx_ops.h"

#include <string.h>

#include "ir_passes.h"
#include "yolort_format.h"

/* columns: op_type, id, shape, fold, quant class, int8 data inputs (0 = all), flags,
 *          lowering family, its kind (YRT_UNARY_* / YRT_BIN_*), default 'alpha' */
#define ROW(name, ID, shape, fold, qc, qin, flags, lower, kind, alpha) \
  [ONNX_OP_##ID] = {name, ONNX_OP_##ID, shape, fold, qc, qin, flags, lower, kind, alpha, NULL}
/* a node of domain "yolort" a head fusion makes: lowered whole by its family */
#define YOLORT_ROW(name, ID, lower) \
  [ONNX_OP_YOLORT_##ID] = {name, ONNX_OP_YOLORT_##ID, NULL, NULL, ONNX_Q_FLOAT, 0, 0, lower, 0, 0, "yolort"}
#define FLOAT ONNX_Q_FLOAT
#define INT8 ONNX_Q_INT8
#define MOVE ONNX_Q_MOVE
#define PTQ ONNX_F_PTQ_QUANTIZE
#define SHARE ONNX_F_PTQ_SHARE
#define HEAD ONNX_F_HEAD_SEED
#define E2E ONNX_F_E2E_SELECT
#define L(x) ONNX_LOWER_##x

static const onnx_op_row k_rows[ONNX_OP_COUNT] = {
  ROW("Abs", ABS, ir_shape_unary, ir_fold_unary, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Add", ADD, ir_shape_binary, ir_fold_binary, INT8, 0, PTQ | E2E, L(BINARY), YRT_BIN_ADD, 0),
  ROW("AveragePool", AVERAGE_POOL, ir_shape_pool, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("BatchNormalization", BATCH_NORMALIZATION, ir_shape_batchnorm, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Cast", CAST, ir_shape_cast, ir_fold_cast, FLOAT, 0, E2E, L(NONE), 0, 0),
  ROW("Ceil", CEIL, ir_shape_unary, ir_fold_unary, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Clip", CLIP, ir_shape_unary, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Concat", CONCAT, ir_shape_concat, ir_fold_concat, MOVE, 0, PTQ | E2E, L(CONCAT), 0, 0),
  ROW("Constant", CONSTANT, NULL, NULL, FLOAT, 0, 0, L(NONE), 0, 0), /* ir_try_fold */
  ROW("ConstantOfShape", CONSTANT_OF_SHAPE, ir_shape_constant_of_shape, ir_fold_constant_of_shape,
      FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Conv", CONV, ir_shape_conv, NULL, INT8, 1, PTQ, L(CONV), 0, 0),
  /* float (an OBB head's dist2rbox; fused into obb_decode, run only by the head check) */
  ROW("Cos", COS, ir_shape_unary, NULL, FLOAT, 0, 0, L(UNARY), YRT_UNARY_COS, 0),
  /* int8 between QDQ pairs with int8 symmetric weights (lower_int8.c, lower_conv_transpose.c) */
  ROW("ConvTranspose", CONV_TRANSPOSE, ir_shape_conv_transpose, NULL, INT8, 1, PTQ, L(CONV_TRANSPOSE), 0, 0),
  ROW("DequantizeLinear", DEQUANTIZE_LINEAR, ir_shape_qdq, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Div", DIV, ir_shape_binary, ir_fold_binary, FLOAT, 0, E2E, L(BINARY), YRT_BIN_DIV, 0),
  ROW("Erf", ERF, ir_shape_unary, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Exp", EXP, ir_shape_unary, NULL, INT8, 1, 0, L(UNARY), YRT_UNARY_EXP, 0),
  ROW("Expand", EXPAND, ir_shape_expand, ir_fold_expand, FLOAT, 0, E2E, L(NONE), 0, 0),
  ROW("Flatten", FLATTEN, ir_shape_flatten, ir_fold_copy, MOVE, 1, SHARE | E2E, L(RESHAPE), 0, 0),
  ROW("Floor", FLOOR, ir_shape_unary, ir_fold_unary, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Gather", GATHER, ir_shape_gather, ir_fold_gather, FLOAT, 0, HEAD | E2E, L(GATHER), 0, 0),
  /* not taken on their own: only inside an end-to-end head's selection (fuse_e2e_head.c) */
  ROW("GatherElements", GATHER_ELEMENTS, NULL, NULL, FLOAT, 0, E2E, L(NONE), 0, 0),
  ROW("GlobalAveragePool", GLOBAL_AVERAGE_POOL, ir_shape_global_pool, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("GlobalMaxPool", GLOBAL_MAX_POOL, ir_shape_global_pool, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("HardSigmoid", HARD_SIGMOID, ir_shape_unary, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("HardSwish", HARD_SWISH, ir_shape_unary, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Identity", IDENTITY, ir_shape_unary, ir_fold_copy, INT8, 1, E2E, L(UNARY), YRT_UNARY_IDENTITY, 0),
  ROW("LeakyRelu", LEAKY_RELU, ir_shape_unary, NULL, INT8, 1, 0, L(UNARY), YRT_UNARY_LEAKY_RELU, 0.01f),
  ROW("Log", LOG, ir_shape_unary, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  /* int8 (QLinearMatMul) when both inputs and the output are per-tensor int8 (lower_int8.c) */
  ROW("MatMul", MATMUL, ir_shape_matmul, NULL, INT8, 0, 0, L(MATMUL), 0, 0),
  ROW("Max", MAX, ir_shape_binary, ir_fold_binary, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("MaxPool", MAX_POOL, ir_shape_pool, NULL, MOVE, 1, PTQ | SHARE, L(MAXPOOL), 0, 0),
  ROW("Min", MIN, ir_shape_binary, ir_fold_binary, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Mod", MOD, NULL, NULL, FLOAT, 0, E2E, L(NONE), 0, 0), /* fuse_e2e_head.c only */
  ROW("Mul", MUL, ir_shape_binary, ir_fold_binary, INT8, 0, PTQ | E2E, L(BINARY), YRT_BIN_MUL, 0),
  ROW("Neg", NEG, ir_shape_unary, ir_fold_unary, FLOAT, 0, 0, L(NONE), 0, 0),
  /* never lowered: cut away before the passes (lower/cut_graph_nms.c), else refused */
  ROW("NonMaxSuppression", NON_MAX_SUPPRESSION, NULL, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Pow", POW, ir_shape_binary, ir_fold_binary, FLOAT, 0, 0, L(POW), 0, 0),
  ROW("QuantizeLinear", QUANTIZE_LINEAR, ir_shape_qdq, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Range", RANGE, ir_shape_range, ir_fold_range, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Reciprocal", RECIPROCAL, ir_shape_unary, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("ReduceMax", REDUCE_MAX, NULL, NULL, FLOAT, 0, E2E, L(NONE), 0, 0), /* fuse_e2e_head.c only */
  ROW("Relu", RELU, ir_shape_unary, NULL, INT8, 1, 0, L(UNARY), YRT_UNARY_RELU, 0),
  ROW("Reshape", RESHAPE, ir_shape_reshape, ir_fold_copy, MOVE, 1, SHARE | E2E, L(RESHAPE), 0, 0),
  ROW("Resize", RESIZE, ir_shape_resize, NULL, MOVE, 1, PTQ | SHARE, L(RESIZE), 0, 0),
  ROW("Round", ROUND, ir_shape_unary, NULL, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Shape", SHAPE, ir_shape_shape, ir_fold_shape, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Sigmoid", SIGMOID, ir_shape_unary, NULL, INT8, 1, PTQ | HEAD, L(UNARY), YRT_UNARY_SIGMOID, 0),
  ROW("Sin", SIN, ir_shape_unary, NULL, FLOAT, 0, 0, L(UNARY), YRT_UNARY_SIN, 0),
  ROW("Slice", SLICE, ir_shape_slice, ir_fold_slice, MOVE, 1, SHARE | HEAD, L(SLICE), 0, 0),
  ROW("Softmax", SOFTMAX, ir_shape_softmax, NULL, FLOAT, 0, HEAD, L(SOFTMAX), 0, 0),
  ROW("Split", SPLIT, ir_shape_split, NULL, MOVE, 1, PTQ | SHARE, L(SPLIT), 0, 0),
  ROW("Sqrt", SQRT, ir_shape_unary, ir_fold_unary, FLOAT, 0, 0, L(NONE), 0, 0),
  ROW("Squeeze", SQUEEZE, ir_shape_squeeze, ir_fold_copy, MOVE, 1, SHARE | E2E, L(RESHAPE), 0, 0),
  ROW("Sub", SUB, ir_shape_binary, ir_fold_binary, FLOAT, 0, 0, L(BINARY), YRT_BIN_SUB, 0),
  ROW("Tanh", TANH, ir_shape_unary, NULL, INT8, 1, 0, L(UNARY), YRT_UNARY_TANH, 0),
  ROW("Tile", TILE, NULL, NULL, FLOAT, 0, E2E, L(NONE), 0, 0), /* fuse_e2e_head.c only */
  ROW("TopK", TOPK, NULL, NULL, FLOAT, 0, E2E, L(NONE), 0, 0),  /* fuse_e2e_head.c only */
  ROW("Transpose", TRANSPOSE, ir_shape_transpose, ir_fold_transpose, MOVE, 1, SHARE, L(TRANSPOSE), 0, 0),
  ROW("Unsqueeze", UNSQUEEZE, ir_shape_squeeze, ir_fold_copy, MOVE, 1, SHARE | E2E, L(RESHAPE), 0, 0),
  /* Upsample (opset < 10): not quantized by yolort-quantize, which writes opset 13+ Resize */
  ROW("Upsample", UPSAMPLE, ir_shape_resize, NULL, MOVE, 1, 0, L(RESIZE), 0, 0),
  YOLORT_ROW("DetectDecode", DETECT_DECODE, L(DETECT_DECODE)), /* fuse_detect_head.c */
  YOLORT_ROW("ObjDecode", OBJ_DECODE, L(OBJ_DECODE)),          /* fuse_obj_head.c */
  YOLORT_ROW("DetectTopK", DETECT_TOPK, L(DETECT_TOPK)),       /* fuse_e2e_head.c */
  YOLORT_ROW("PoseDecode", POSE_DECODE, L(POSE_DECODE)),       /* fuse_pose_head.c */
  YOLORT_ROW("ObbDecode", OBB_DECODE, L(OBB_DECODE)),          /* fuse_obb_head.c */
};

const onnx_op_row *onnx_op_row_of(onnx_op id) {
  if (id <= ONNX_OP_NONE || id >= ONNX_OP_COUNT || !k_rows[id].op_type) return NULL;
  return &k_rows[id];
}

const onnx_op_row *onnx_op_find(const char *op_type) {
  if (!op_type) return NULL;
  for (int i = ONNX_OP_NONE + 1; i < ONNX_OP_COUNT; i++)
    if (k_rows[i].op_type && strcmp(k_rows[i].op_type, op_type) == 0) return &k_rows[i];
  return NULL;
}

onnx_op onnx_op_id(const char *op_type) {
  const onnx_op_row *row = onnx_op_find(op_type);
  return row ? row->id : ONNX_OP_NONE;
}

static int default_domain(const char *d) { return !d || !d[0] || strcmp(d, "ai.onnx") == 0; }

const onnx_op_row *ir_node_op(const ir_node *n) {
  if (!n || !default_domain(n->domain)) return NULL;
  const onnx_op_row *row = onnx_op_row_of((onnx_op)n->op);
  return row && !row->domain ? row : NULL;
}

const onnx_op_row *ir_node_row(const ir_node *n) {
  if (!n) return NULL;
  const onnx_op_row *row = onnx_op_row_of((onnx_op)n->op);
  if (!row) return NULL;
  if (!row->domain) return default_domain(n->domain) ? row : NULL;
  return n->domain && strcmp(n->domain, row->domain) == 0 ? row : NULL;
}

int ir_node_is_op(const ir_node *n, onnx_op id) {
  const onnx_op_row *row = ir_node_row(n);
  return row && row->id == id;
}

int ir_node_is_live_op(const ir_node *n, onnx_op id) { return n && !n->dead && ir_node_is_op(n, id); }

yrt_status onnx_op_unsupported(const ir_node *n, yrt_error *err) {
  if (n->domain && n->domain[0])
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "unsupported op '%s' (domain '%s') at node '%s'",
                         n->op_type, n->domain, n->name);
  return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "unsupported op '%s' at node '%s'", n->op_type,
                       n->name);
}
