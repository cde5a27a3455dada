/* ir_test_util.h — small helpers for building ONNX models in tests. */
#ifndef YOLORT_IR_TEST_UTIL_H
#define YOLORT_IR_TEST_UTIL_H

#include <stdlib.h>

#include "ir.h"
#include "onnx_write.h"

/* Pack m, free it, read the bytes back as an ir_graph. */
static inline yrt_status tu_to_graph(Onnx__ModelProto *m, ir_graph **g, yrt_error *err) {
  uint8_t *b = NULL;
  size_t n = 0;
  yrt_status st = onnx_model_pack(m, &b, &n, err);
  onnx_model_free(m);
  if (st) return st;
  st = onnx_read_memory(b, n, g, err);
  free(b);
  return st;
}

#define TU_NODE(m, op, name, ins, outs)                                                       \
  onnx_model_add_node((m), (op), (name), (ins), (int)(sizeof(ins) / sizeof((ins)[0])), (outs), \
                      (int)(sizeof(outs) / sizeof((outs)[0])))

static inline int tu_t(const ir_graph *g, const char *name) { return ir_find_tensor(g, name); }

#endif
