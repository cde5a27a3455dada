/* float_recover.h — yolort-quantize's input stage: the float graph behind a quantized export.
 *
 * A model people publish is often already int8: onnxruntime quantize_dynamic
 * (DynamicQuantizeLinear + ConvInteger / MatMulInteger + Cast + Mul), a static QDQ export
 * (int8 / uint8, per-tensor / per-channel, asymmetric weights, QuantizeLinear of constants) or
 * the QOperator layout (QLinearConv...). The converter already recognises all of them
 * (ir_lower_qoperators, ir_recover_integer_ops, ir_qdq_annotate); this runs those passes and then
 * drops every quantization they found, so what is left is the float network: weights
 * (Wq - Wzp) * w_scale, biases dequantized, activation Q/DQ pairs gone. A QuantizeLinear of a
 * float constant gives way to that constant (its exact value). The quantizer then calibrates the
 * float graph as it would an FP32 export. An FP32 model is left untouched. */
#ifndef YOLORT_FLOAT_RECOVER_H
#define YOLORT_FLOAT_RECOVER_H

#include <stddef.h>
#include <stdio.h>

#include "onnx.pb-c.h"
#include "yolort.h"

typedef struct float_recover_report {
  int n_half;            /* float16 / bfloat16 constants widened to float32 (an FP16 export) */
  int n_qoperators;      /* QLinearConv, QLinearAdd... rewritten to float ops */
  int n_conv_integer;    /* ConvInteger recovered to float Conv */
  int n_matmul_integer;  /* MatMulInteger recovered to float MatMul */
  int n_dq_constants;    /* DequantizeLinear of a constant (weights, biases) made float */
  int n_q_constants;     /* QuantizeLinear of a float constant: the constant itself kept */
  int n_qdq_pairs;       /* activation QuantizeLinear -> DequantizeLinear pairs removed */
  int n_u8, n_per_channel, n_asymmetric; /* of the dequantized constants (int32 biases excluded) */
} float_recover_report;

/* Replace *m by the float graph of the quantized export it holds (the old model is freed); an
 * FP32 model (nothing recognised) stays as it is. rep gets the counts. A quantized form the
 * converter does not know -> its error (naming the node). */
yrt_status float_recover(Onnx__ModelProto **m, float_recover_report *rep, yrt_error *err);

/* 1 when rep says something was recovered. */
int float_recover_any(const float_recover_report *rep);

/* One line: "input: dynamic-quant, 64 ConvInteger recovered to float Conv" / "input: FP32". */
void float_recover_print(const float_recover_report *rep, FILE *f);
/* The same line into buf (cap bytes, truncated, NUL-terminated). */
void float_recover_describe(const float_recover_report *rep, char *buf, size_t cap);

#endif
