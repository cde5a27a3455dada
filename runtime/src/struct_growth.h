/* struct_growth.h — reading a public struct a caller filled that may have grown since the caller
 * was compiled (or may grow later): its struct_size field says how many bytes the caller's
 * version has. One rule for every such struct (yrt_session_options, yrt_postprocess_params,
 * yrt_frame): 0 means the fields before struct_size (an initializer that leaves it out); a size
 * inside those fields is refused, and so is one over YRT_STRUCT_SIZE_MAX (garbage: reading its
 * "unknown tail" would go past what the caller owns); a larger struct than this library knows is accepted when its
 * unknown tail is zero (fields whose zero means "default"), else refused as built for a newer
 * yolort. Fields the caller's size does not cover read as zero. */
#ifndef YOLORT_STRUCT_GROWTH_H
#define YOLORT_STRUCT_GROWTH_H

#include <stddef.h>

#include "yolort.h"

/* in: the caller's struct; struct_size: its struct_size field; size_at: offsetof(T, struct_size);
 * known: sizeof(T) here. Fills out (known bytes) or returns YRT_ERR_INVALID_ARG naming `what`. */
yrt_status yrt_struct_read(const void *in, size_t struct_size, size_t size_at, size_t known, void *out,
                           const char *what, yrt_error *err);

#endif
