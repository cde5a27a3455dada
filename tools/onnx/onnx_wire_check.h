/* onnx_wire_check.h — refuse protobuf bytes that would make protobuf-c's recursive unpack overflow
 * the stack (see onnx_wire_check.c). Every unpack of untrusted ONNX bytes goes through it. */
#ifndef YOLORT_ONNX_WIRE_CHECK_H
#define YOLORT_ONNX_WIRE_CHECK_H

#include <stddef.h>

#include <protobuf-c/protobuf-c.h>

#include "yolort.h"

/* Deepest message nesting accepted (ModelProto = level 0). Real ONNX models nest under 20 levels
 * (graph, node, attribute, subgraph, tensor, type); protobuf-c uses a few hundred bytes of stack
 * per level. */
#define ONNX_MAX_NESTING 64

/* YRT_OK, or YRT_ERR_FORMAT naming the byte offset. O(size), no allocation. */
yrt_status onnx_wire_check(const void *data, size_t size, const ProtobufCMessageDescriptor *root,
                           yrt_error *err);

#endif
