/* op_table.c — the built-in node kinds, one row each (op_def.h says what a row holds).
 * tests/runtime/test_runtime_op_table.c checks that every yrt_op in 1..YRT_OP_COUNT_-1 has a
 * complete row; the assert below makes a new enum value fail to compile until it has one. */
#include "op_table.h"

#include "ops/binary.h"
#include "ops/concat.h"
#include "ops/conv.h"
#include "ops/dequantize.h"
#include "ops/gather.h"
#include "ops/lut.h"
#include "ops/matmul.h"
#include "ops/maxpool.h"
#include "ops/reshape.h"
#include "ops/resize.h"
#include "ops/softmax.h"
#include "ops/transpose.h"
#include "ops/detect_decode.h"
#include "ops/detect_topk.h"
#include "ops/obj_decode.h"
#include "ops/quantize.h"
#include "ops/slice.h"
#include "ops/unary.h"
#include "ops/conv_transpose.h"
#include "ops/pose_decode.h"
#include "ops/obb_decode.h"

_Static_assert(YRT_OP_COUNT_ == 22, "a new yrt_op needs a row in k_builtin below: add it, then bump this count");

static const yrt_op_def k_builtin[YRT_OP_COUNT_] = {
    [YRT_OP_CONV2D] = {YRT_OP_NAMES("conv2d"), .min_in = 2, .max_in = 4, .n_out = 1,
                       .optional_in = 1u << 2, .per_channel_in = 1u << 1, .check = yrt_check_conv,
                       .prepare = yrt_prepare_conv, .run = yrt_run_conv_f32, .release = yrt_release_conv,
                       .kind = yrt_kind_conv, .publish_range = yrt_publish_range_conv,
                       .absorb_next = yrt_conv_absorb_next, .dynq = yrt_conv_dynq_bytes,
                       .view_in = yrt_conv_view_in, .view_out = yrt_conv_view_out},
    [YRT_OP_BINARY] = {YRT_OP_NAMES("binary"), .min_in = 2, .max_in = 2, .n_out = 1,
                       .check = yrt_check_binary, .prepare = yrt_prepare_binary, .run = yrt_run_binary,
                       .release = yrt_release_binary, .publish_range = yrt_publish_range_binary,
                       .view_in = yrt_binary_view_in, .view_out = yrt_binary_takes_views},
    [YRT_OP_UNARY] = {YRT_OP_NAMES("unary"), .min_in = 1, .max_in = 1, .n_out = 1, .check = yrt_check_unary,
                      .prepare = yrt_prepare_unary, .run = yrt_run_unary,
                      .publish_range = yrt_publish_range_unary, .pointwise = yrt_pointwise_unary},
    [YRT_OP_LUT] = {YRT_OP_NAMES("lut"), .min_in = 2, .max_in = 2, .n_out = 1, .check = yrt_check_lut,
                    .run = yrt_run_lut},
    [YRT_OP_CONCAT] = {YRT_OP_NAMES("concat"), .min_in = 1, .max_in = 8, .n_out = 1,
                       .check = yrt_check_concat, .prepare = yrt_prepare_concat, .run = yrt_run_concat,
                       .publish_range = yrt_publish_range_concat, .view_in = yrt_concat_slot_in_place,
                       .in_place = yrt_concat_slot_in_place},
    [YRT_OP_SLICE] = {YRT_OP_NAMES("slice"), .min_in = 1, .max_in = 1, .n_out = 1, .check = yrt_check_slice,
                      .prepare = yrt_prepare_slice, .run = yrt_run_slice,
                      .publish_range = yrt_publish_range_slice, .view_in = yrt_slice_view_in,
                      .view_out = yrt_slice_is_in_place, .in_place = yrt_slice_in_place},
    [YRT_OP_TRANSPOSE] = {YRT_OP_NAMES("transpose"), .min_in = 1, .max_in = 1, .n_out = 1,
                          .check = yrt_check_transpose, .prepare = yrt_prepare_transpose,
                          .run = yrt_run_transpose},
    /* a second input is accepted (and not read): the byte copy needs only the element count */
    [YRT_OP_RESHAPE] = {YRT_OP_NAMES("reshape"), .min_in = 1, .max_in = 2, .n_out = 1,
                        .check = yrt_check_reshape, .run = yrt_run_reshape},
    [YRT_OP_MAXPOOL] = {YRT_OP_NAMES("maxpool"), .min_in = 1, .max_in = 1, .n_out = 1,
                        .check = yrt_check_maxpool, .prepare = yrt_prepare_maxpool, .run = yrt_run_maxpool},
    /* a second input: an int8 requantization table applied as it copies (yolort_format.h) */
    [YRT_OP_RESIZE_NEAREST] = {YRT_OP_NAMES("resize_nearest"), .min_in = 1, .max_in = 2, .n_out = 1,
                               .check = yrt_check_resize, .prepare = yrt_prepare_resize,
                               .run = yrt_run_resize, .view_out = yrt_resize_view_out},
    [YRT_OP_MATMUL] = {YRT_OP_NAMES("matmul"), .min_in = 2, .max_in = 2, .n_out = 1,
                       .check = yrt_check_matmul, .prepare = yrt_prepare_matmul, .run = yrt_run_matmul},
    [YRT_OP_SOFTMAX] = {YRT_OP_NAMES("softmax"), .min_in = 1, .max_in = 2, .n_out = 1,
                        .check = yrt_check_softmax, .prepare = yrt_prepare_softmax, .run = yrt_run_softmax},
    [YRT_OP_QUANTIZE] = {YRT_OP_NAMES("quantize"), .min_in = 1, .max_in = 1, .n_out = 1,
                         .check = yrt_check_quantize, .run = yrt_run_quantize,
                         .pointwise = yrt_pointwise_quantize},
    [YRT_OP_DEQUANTIZE] = {YRT_OP_NAMES("dequantize"), .min_in = 1, .max_in = 1, .n_out = 1,
                           .check = yrt_check_dequantize, .prepare = yrt_prepare_dequantize,
                           .run = yrt_run_dequantize,
                           .pointwise = yrt_pointwise_dequantize},
    [YRT_OP_GATHER] = {YRT_OP_NAMES("gather"), .min_in = 2, .max_in = 2, .n_out = 1,
                       .check = yrt_check_gather, .prepare = yrt_prepare_gather, .run = yrt_run_gather},
    [YRT_OP_DETECT_DECODE] = {YRT_OP_NAMES("detect_decode"), .min_in = 3, .max_in = 7, .n_out = 1,
                              .check = yrt_check_detect, .prepare = yrt_prepare_detect, .run = yrt_run_detect,
                              .release = yrt_release_detect, .detect_over = yrt_detect_decode_over},
    [YRT_OP_DETECT_TOPK] = {YRT_OP_NAMES("detect_topk"), .min_in = 1, .max_in = 1, .n_out = 1,
                            .check = yrt_check_topk, .prepare = yrt_prepare_topk, .run = yrt_run_topk,
                            .release = yrt_release_topk},
    [YRT_OP_OBJ_DECODE] = {YRT_OP_NAMES("obj_decode"), .min_in = 2, .max_in = 7, .n_out = 1,
                           .check = yrt_check_obj_decode, .prepare = yrt_prepare_obj_decode,
                           .run = yrt_run_obj_decode, .release = yrt_release_obj_decode,
                           .detect_over = yrt_obj_decode_over},
    [YRT_OP_CONV_TRANSPOSE] = {YRT_OP_NAMES("conv_transpose"), .min_in = 2, .max_in = 3, .n_out = 1,
                               .optional_in = 1u << 2, .per_channel_in = 1u << 1, .check = yrt_check_conv_transpose,
                               .prepare = yrt_prepare_conv_transpose, .run = yrt_run_conv_transpose,
                               .release = yrt_release_conv_transpose},
    [YRT_OP_POSE_DECODE] = {YRT_OP_NAMES("pose_decode"), .min_in = 1, .max_in = 5, .n_out = 1,
                            .check = yrt_check_pose_decode, .prepare = yrt_prepare_pose_decode,
                            .run = yrt_run_pose_decode, .release = yrt_release_pose_decode,
                            .keypoints = yrt_pose_decode_keypoints},
    [YRT_OP_OBB_DECODE] = {YRT_OP_NAMES("obb_decode"), .min_in = 2, .max_in = 4, .n_out = 1,
                           .check = yrt_check_obb_decode, .prepare = yrt_prepare_obb_decode,
                           .run = yrt_run_obb_decode, .release = yrt_release_obb_decode, .rotated = 1},
};

static const yrt_op_table k_builtin_table = {k_builtin, YRT_OP_COUNT_};

const yrt_op_table *yrt_builtin_ops(void) { return &k_builtin_table; }
