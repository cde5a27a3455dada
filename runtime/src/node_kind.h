/* node_kind.h — printable names of ops ("conv2d") and node kinds ("conv2d.i8"). */
#ifndef YOLORT_NODE_KIND_H
#define YOLORT_NODE_KIND_H

#include <stdint.h>

/* "conv2d", ..., or "unknown" for an out-of-range op. */
const char *yrt_op_name(uint32_t op);
/* "conv2d.f32" / "conv2d.i8" / "gather.i32"; "unknown" for out-of-range values. */
const char *yrt_node_kind_name(uint32_t op, uint32_t dtype);

#endif
