/* file_write.h — how the CLIs write an output file (.yrt, .onnx). A regular file (or a new path)
 * is written to a temporary file in the same directory and rename()d over the target, so two runs
 * writing one path never interleave and a failed write leaves the old file intact. A path that
 * exists and is not a regular file (/dev/null, a FIFO, a device) is written in place and never
 * removed. Only the temporary file this call created is ever removed. */
#ifndef YOLORT_FILE_WRITE_H
#define YOLORT_FILE_WRITE_H

#include <stddef.h>

#include "yolort.h"

/* YRT_ERR_IO with the path and the OS reason on failure. */
yrt_status yrt_write_file_atomic(const char *path, const void *data, size_t size, yrt_error *err);

#endif
