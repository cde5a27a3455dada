/* node_kind.c — op and node-kind names for messages and profiles. */
#include "node_kind.h"

#include "yolort_format.h"

#define KIND3(s) {s ".f32", s ".i8", s ".i32"}

static const char *const k_op_names[YRT_OP_COUNT_] = {
    [YRT_OP_CONV2D] = "conv2d",       [YRT_OP_BINARY] = "binary",   [YRT_OP_UNARY] = "unary",
    [YRT_OP_LUT] = "lut",             [YRT_OP_CONCAT] = "concat",   [YRT_OP_SLICE] = "slice",
    [YRT_OP_TRANSPOSE] = "transpose", [YRT_OP_RESHAPE] = "reshape", [YRT_OP_MAXPOOL] = "maxpool",
    [YRT_OP_RESIZE_NEAREST] = "resize_nearest", [YRT_OP_MATMUL] = "matmul",
    [YRT_OP_SOFTMAX] = "softmax",     [YRT_OP_QUANTIZE] = "quantize", [YRT_OP_DEQUANTIZE] = "dequantize",
    [YRT_OP_GATHER] = "gather",       [YRT_OP_DETECT_DECODE] = "detect_decode",
};

static const char *const k_kind_names[YRT_OP_COUNT_][3] = {
    [YRT_OP_CONV2D] = KIND3("conv2d"),       [YRT_OP_BINARY] = KIND3("binary"),
    [YRT_OP_UNARY] = KIND3("unary"),         [YRT_OP_LUT] = KIND3("lut"),
    [YRT_OP_CONCAT] = KIND3("concat"),       [YRT_OP_SLICE] = KIND3("slice"),
    [YRT_OP_TRANSPOSE] = KIND3("transpose"), [YRT_OP_RESHAPE] = KIND3("reshape"),
    [YRT_OP_MAXPOOL] = KIND3("maxpool"),     [YRT_OP_RESIZE_NEAREST] = KIND3("resize_nearest"),
    [YRT_OP_MATMUL] = KIND3("matmul"),       [YRT_OP_SOFTMAX] = KIND3("softmax"),
    [YRT_OP_QUANTIZE] = KIND3("quantize"),   [YRT_OP_DEQUANTIZE] = KIND3("dequantize"),
    [YRT_OP_GATHER] = KIND3("gather"),   [YRT_OP_DETECT_DECODE] = KIND3("detect_decode"),
};

const char *yrt_op_name(uint32_t op) {
  if (op < 1 || op >= YRT_OP_COUNT_) return "unknown";
  return k_op_names[op];
}

const char *yrt_node_kind_name(uint32_t op, uint32_t dtype) {
  if (op < 1 || op >= YRT_OP_COUNT_ || dtype < YRT_F32 || dtype > YRT_I32) return "unknown";
  return k_kind_names[op][dtype - 1];
}
