/* qdq_writer.h — rewrite a float ONNX model into a QDQ ONNX model in onnxruntime's
 * quantize_static layout, so both onnxruntime and yolort-convert accept it:
 *   - one QuantizeLinear -> DequantizeLinear pair per quantized activation, shared by all its
 *     consumers (tensor names X_QuantizeLinear_Output / X_DequantizeLinear_Output);
 *   - Conv weights int8, symmetric per output channel (axis 0, zero points 0), behind a
 *     DequantizeLinear; bias int32 with scale s_x * s_w[c];
 *   - BatchNormalization after a Conv is folded into it first;
 *   - opset raised to 13 when lower (per-channel DequantizeLinear needs it), rewriting Split's
 *     'split' and Squeeze/Unsqueeze's 'axes' attributes into inputs as opset 13 requires.
 */
#ifndef YOLORT_QDQ_WRITER_H
#define YOLORT_QDQ_WRITER_H

#include <stdint.h>

#include "onnx.pb-c.h"
#include "yolort.h"

typedef struct qdq_act {
  const char *name; /* activation tensor */
  float scale;
  int32_t zero_point; /* int8 zero point (shifted by +128 when writing uint8) */
  int int16;          /* 1: an int16 pair (zero point 0, W8A16: yolort's int16-input convs) */
} qdq_act;

typedef struct qdq_plan {
  const qdq_act *acts;
  int n_acts;
  int uint8_acts;                  /* 1: uint8 activations (onnxruntime's U8S8) */
  const char *const *skip_weights; /* Conv node names whose weights stay float (NULL-terminated) */
  int weight_scale;                /* per-channel weight scale: a weight_scale_kind (weight_scale.h) */
  int float_out_float_weights;     /* 1: a conv whose output stays float keeps float weights (it
                                      then runs in float); 0: int8 weights, int8 -> f32 conv */
} qdq_plan;

/* Fold Conv -> BatchNormalization pairs (initializer parameters) in place. */
yrt_status qdq_fold_batchnorm(Onnx__ModelProto *m, yrt_error *err);

/* Raise the default-domain opset to >= 13, rewriting attribute-style Split/Squeeze/Unsqueeze. */
yrt_status qdq_upgrade_opset13(Onnx__ModelProto *m, yrt_error *err);

/* Insert the Q/DQ pairs of plan->acts and quantize the weights of every Conv whose input is
 * quantized (and output too with float_out_float_weights), unless listed in skip_weights. m is
 * modified in place. */
yrt_status qdq_write(Onnx__ModelProto *m, const qdq_plan *plan, yrt_error *err);

#endif
