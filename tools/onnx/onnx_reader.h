/* onnx_reader.h — lower-level pieces of the ONNX reader (tools/onnx/onnx_reader.c), for tools
 * that hold a protobuf-c Onnx__ModelProto themselves (yolort-quantize). The plain entry points
 * onnx_read_file / onnx_read_memory are declared in ir.h. */
#ifndef YOLORT_ONNX_READER_H
#define YOLORT_ONNX_READER_H

#include "ir.h"
#include "onnx.pb-c.h"

/* Build an ir_graph from an already-unpacked model (m is not modified or kept). */
yrt_status onnx_model_to_ir(const Onnx__ModelProto *m, ir_graph **out, yrt_error *err);

/* Decode a TensorProto (raw_data or typed fields) into a malloc'ed little-endian buffer.
 * `name` (NULL: tp->name) is used in messages. dims must hold IR_MAX_RANK entries. */
yrt_status onnx_tensor_decode(const Onnx__TensorProto *tp, const char *name, ir_dtype *dtype,
                              int *rank, int64_t *dims, void **data, size_t *nbytes,
                              yrt_error *err);
/* Decode tp and add it to g as a constant tensor named `name` (NULL: tp->name). */
yrt_status onnx_tensor_to_ir(ir_graph *g, const Onnx__TensorProto *tp, const char *name, int *out,
                             yrt_error *err);

/* Parse Ultralytics' "names" metadata ({0: 'person', 1: 'bicycle'}) into a malloc'ed
 * '\n'-separated list in id order; NULL if it does not parse or ids are not 0..n-1. */
char *onnx_parse_names(const char *s);

/* Whole file into a malloc'ed buffer (caller frees). */
yrt_status onnx_read_file_bytes(const char *path, uint8_t **bytes, size_t *size, yrt_error *err);

#endif
