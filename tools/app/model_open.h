/* model_open.h — open a model for the command-line tools: a .yrt file is mapped, an .onnx file is
 * converted in memory first (FP32 ONNX runs in float, QDQ ONNX in int8), so every tool accepts both. */
#ifndef YOLORT_MODEL_OPEN_H
#define YOLORT_MODEL_OPEN_H

#include <stddef.h>

#include "yolort.h"

/* Returns 1 when path ends in ".onnx" (case-insensitive). */
int yrt_path_is_onnx(const char *path);

/* Load MODEL (.yrt or .onnx). quiet=0 prints the conversion summary for ONNX to stderr.
 * Prints a notice on stderr when the model is synthetic (generated weights). */
yrt_status yrt_open_model(const char *path, int quiet, yrt_model **out, yrt_error *err);
/* An ONNX model held in memory, converted (keep_fp32: node names kept float, NULL-terminated, may
 * be NULL) and loaded; `source` names it in META. */
yrt_status yrt_open_onnx_memory(const void *bytes, size_t size, const char *source, const char *const *keep_fp32,
                                yrt_model **out, yrt_error *err);

#endif
