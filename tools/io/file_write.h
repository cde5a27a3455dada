/* file_write.h — how the CLIs write an output file (.yrt, .onnx). A regular file (or a new path)
 * is written to a temporary file in the same directory and rename()d over the target, so two runs
 * writing one path never interleave and a failed write leaves the old file intact. A path that
 * exists and is not a regular file (/dev/null, a FIFO, a device) is written in place and never
 * removed (a FIFO without a reader is an error, never a wait). Only the temporary file this call created is ever removed.
 * While the temporary file exists, SIGINT / SIGTERM / SIGHUP (those not ignored) unlink it and
 * then kill the process with the signal's default action (the caller's handlers are put back
 * after the call): an interrupted yolort-convert leaves no PATH.tmp.XXXXXX behind. */
#ifndef YOLORT_FILE_WRITE_H
#define YOLORT_FILE_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include "yolort.h"

/* YRT_ERR_IO with the path and the OS reason on failure. */
yrt_status yrt_write_file_atomic(const char *path, const void *data, size_t size, yrt_error *err);

/* The same for an output written piece by piece (eval --dets / --json, quantize --report): *f is
 * where to write; yrt_out_commit flushes and closes it and renames the temporary file over path,
 * YRT_ERR_IO naming the path when any write, the flush, the close or the rename failed (a full
 * disk, /dev/full), the temporary file then removed; yrt_out_abort drops it. Exactly one of the
 * two ends every yrt_out_open that succeeded. */
typedef struct yrt_out_file yrt_out_file;
yrt_status yrt_out_open(const char *path, yrt_out_file **out, FILE **f, yrt_error *err);
yrt_status yrt_out_commit(yrt_out_file *o, yrt_error *err);
void yrt_out_abort(yrt_out_file *o);

/* 1 when paths a and b name one existing file: the same st_dev and st_ino, so a hard link or a
 * symlink to it, or another spelling of the path, counts; 0 otherwise (either missing or NULL). */
int yrt_same_file(const char *a, const char *b);

/* Every CLI checks each output against each input before reading or writing anything (issue 40:
 * `yolort-convert in.onnx -o in.onnx`, `yolort-detect m.yrt img -o m.yrt` destroyed the input).
 * When output `out` (given with `flag`, e.g. "-o") is the same file as input `in` (`role`, e.g.
 * "the model"), prints "PROG: FLAG OUT is the same file as ROLE IN: refused, writing it would
 * destroy the input" on stderr and returns 0; 1 when they differ or either is NULL. */
int cli_output_distinct(const char *prog, const char *flag, const char *out, const char *role, const char *in);

/* The same against every entry of folder dir (the images or labels a tool reads from it). */
int cli_output_outside(const char *prog, const char *flag, const char *out, const char *role, const char *dir);

#endif
