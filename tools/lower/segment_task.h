/* segment_task.h — a segment head recognised by its structure when the export recorded no task
 * (issue 36 item 3). Private to tools/lower. */
#ifndef YOLORT_SEGMENT_TASK_H
#define YOLORT_SEGMENT_TASK_H

#include <stddef.h>

#include "ir.h"

/* Runs after the Detect head fusion. With no task in the metadata, exactly two outputs, a fused
 * DetectDecode of nc classes, output0 [1, 4 + nc + nm, N] and output1 [1, nm, H / k, W / k] of the
 * H x W input: the graph gets task "segment" (stored in the .yrt: the nm rows are mask
 * coefficients, never classes) and note says so (empty otherwise). Only allocation fails. */
yrt_status lw_segment_recognise(ir_graph *g, char *note, size_t note_cap, yrt_error *err);

#endif
