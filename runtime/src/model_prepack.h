/* model_prepack.h — a .yrt with its conv weights packed for a named target (yolort_format.h,
 * PACKED), made by the runtime's own packer: yolort-convert --target calls this (tools -> runtime),
 * so the packing loop exists once, in the kernels the runtime runs. */
#ifndef YOLORT_MODEL_PREPACK_H
#define YOLORT_MODEL_PREPACK_H

#include <stddef.h>
#include <stdint.h>

#include "yk.h"
#include "yolort.h"
#include "packed_weight_cache.h"

/* *out (malloc'ed, *out_size bytes) = the .yrt image yrt (size bytes) with a PACKED section for
 * target (a yrt_pack_target; any PACKED the input had is replaced): every int8 conv our kernels
 * run for that target, packed as a session on such a CPU packs it. A target of another
 * architecture than this build's kernels is refused (YRT_ERR_UNSUPPORTED, saying which build can). */
yrt_status yrt_model_prepack(const void *yrt, size_t size, uint32_t target, void **out, size_t *out_size,
                             yrt_error *err);

#endif
