/* node_kind.h — printable names of the built-in ops ("conv2d") and node kinds ("conv2d.i8"), read
 * from the built-in table's rows (op_table.h; any table's: op_def.h). */
#ifndef YOLORT_NODE_KIND_H
#define YOLORT_NODE_KIND_H

#include <stdint.h>

#include "yolort_format.h"

const char *yrt_node_kind_name(uint32_t op, uint32_t dtype);

#endif
