/* caller_struct.h — reading a public struct a caller filled that may have grown since the caller
 * was compiled (or may grow later): its struct_size field says how many bytes the caller's
 * version has. One rule for every such struct (yrt_session_options, yrt_postprocess_params,
 * yrt_frame): 0 means the fields before struct_size (an initializer that leaves it out); a size
 * inside those fields is refused, and so is one over YRT_STRUCT_SIZE_MAX (garbage: reading its
 * "unknown tail" would go past what the caller owns); a larger struct than this library knows is accepted when its
 * unknown tail is zero (fields whose zero means "default"), else refused as built for a newer
 * yolort. Fields the caller's size does not cover read as zero. */
#ifndef YOLORT_CALLER_STRUCT_H
#define YOLORT_CALLER_STRUCT_H

#include <stddef.h>

#include "yolort.h"

/* in: the caller's struct; struct_size: its struct_size field; size_at: offsetof(T, struct_size);
 * known: sizeof(T) here. Fills out (known bytes) or returns YRT_ERR_INVALID_ARG naming `what`. */
yrt_status yrt_struct_read(const void *in, size_t struct_size, size_t size_at, size_t known, void *out,
                           const char *what, yrt_error *err);

/* The other direction, a growable struct this library fills (yrt_model_info, yrt_tensor_view,
 * yrt_session_memory: yolort.h, yrt_model_get_info_sized): full is this library's struct (known
 * bytes), out the caller's of out_size bytes. Copies what fits, zeroes the caller's bytes past
 * known; out_size below v1 (the struct's first version) or over YRT_STRUCT_SIZE_MAX is refused
 * before anything is written. */
yrt_status yrt_struct_write(void *out, size_t out_size, const void *full, size_t known, size_t v1, const char *what,
                            yrt_error *err);

/* A growable struct the caller passes by size instead of a struct_size field (yrt_letterbox given
 * to yrt_postprocess_sized ...): copies min(in_size, known) bytes into out (known bytes, the rest
 * zero); in_size below v1 or over YRT_STRUCT_SIZE_MAX, or a non-zero byte past known (a field of a
 * newer yolort), is refused naming `what`. */
yrt_status yrt_struct_read_sized(const void *in, size_t in_size, size_t known, size_t v1, void *out, const char *what,
                                 yrt_error *err);

/* First-version sizes of the growable output structs: what the exported plain-named calls write. */
#define YRT_MODEL_INFO_V1_SIZE (offsetof(yrt_model_info, file_bytes) + sizeof(size_t))
#define YRT_TENSOR_VIEW_V1_SIZE (offsetof(yrt_tensor_view, count) + sizeof(size_t))
#define YRT_LETTERBOX_V1_SIZE (offsetof(yrt_letterbox, ratio_y) + sizeof(float))

#endif
