/* rel_models.h — tiny ONNX models built in memory (tools/onnx/onnx_write.h), shared by the
 * reliability tests and the fuzz seed generator (tests/fuzz/make_seeds.c). Small enough that a
 * whole model fits in a fuzzer input, varied enough to reach every lowering path we care about:
 * a float mini-YOLO (Conv+SiLU, MaxPool, Concat, Resize, residual Add, head Reshape/Split/Sigmoid),
 * its QDQ int8 twin in onnxruntime's layout, its quantize_dynamic twin, and a float graph of the
 * remaining ops. */
#ifndef YOLORT_REL_MODELS_H
#define YOLORT_REL_MODELS_H

#include <stddef.h>
#include <stdint.h>

#include "yolort.h"

typedef enum rel_model_kind {
  REL_MODEL_F32_YOLO = 0, /* input [1,3,16,16], output0 [1,6,64] */
  REL_MODEL_QDQ_YOLO,     /* same graph with Q/DQ pairs, int8 per-channel weights */
  REL_MODEL_F32_MISC,     /* Transpose, MatMul, Add, Softmax, Gather, Slice, Div, Tanh ... */
  REL_MODEL_F32_YOLO_1CH, /* the float mini-YOLO on a 1-channel [1,1,16,16] input (not an image) */
  REL_MODEL_F32_YOLO_4CH, /* ... on a 4-channel [1,4,16,16] input */
  REL_MODEL_DYNQ_YOLO,    /* the mini-YOLO as onnxruntime quantize_dynamic writes it: DynamicQuantizeLinear +
                             ConvInteger + Cast + Mul + Add per conv, uint8 weights per channel */
  REL_MODEL_COUNT
} rel_model_kind;

/* Short name ("f32_yolo"), for seed file names and messages. */
const char *rel_model_name(rel_model_kind k);

/* Serialised ONNX bytes (malloc'ed, caller frees). */
yrt_status rel_model_onnx(rel_model_kind k, uint8_t **bytes, size_t *size, yrt_error *err);

/* The same model read back and converted to .yrt (64-byte aligned, caller frees). */
yrt_status rel_model_yrt(rel_model_kind k, void **yrt, size_t *size, yrt_error *err);

#endif
