/* classify_task.h — is the graph an image classifier (Ultralytics task 'classify', or by its
 * shape), and does its output hold probabilities or logits. Private to tools/lower. */
#ifndef YOLORT_CLASSIFY_TASK_H
#define YOLORT_CLASSIFY_TASK_H

#include <stddef.h>

#include "ir.h"

/* Runs after ir_infer_shapes. A classifier: metadata task "classify", or, with no task recorded,
 * one image input [1, 3, H, W], one float output [1, nc] or [1, nc, 1, 1] (2 <= nc) made by a
 * Softmax, Gemm, MatMul or Add (through Reshape / Flatten / Squeeze / Identity), or a [1, nc]
 * Flatten / Reshape of a Conv (no detection tensor). Then
 * *is_cls = 1, *nc its classes, *logits = 1 unless the output is a Softmax over the class axis
 * (through Reshape / Flatten / Squeeze / Identity), and a task-less graph gets task "classify"
 * (stored in the .yrt). note says what was found. Errors: task "classify" with another output
 * shape, or more classes than YRT_MAX_CLASSES (named). */
yrt_status lw_classify_recognise(ir_graph *g, int *is_cls, int *nc, int *logits, char *note, size_t note_cap,
                                 yrt_error *err);

#endif
