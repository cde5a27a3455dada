/* pack_target.h — yolort-convert --target: the converted .yrt with its conv weights packed for a
 * named target by the runtime's own packer (runtime/src/model_prepack.h; tools -> runtime). */
#ifndef YOLORT_PACK_TARGET_H
#define YOLORT_PACK_TARGET_H

#include <stddef.h>

#include "yolort.h"

/* Names --target takes, for messages: "portable, native, x86-avx2, ...". */
#define YRT_PACK_TARGET_NAMES \
  "portable (default), native, x86-avx2, x86-avxvnni, x86-avx512vnni, x86-amx, aarch64-neon, aarch64-sdot"

/* 1 when name is one of YRT_PACK_TARGET_NAMES. */
int pack_target_known(const char *name);

/* *buf (malloc'ed, *size bytes, a .yrt image) replaced by the image packed for target name
 * ("portable": left as it is; "native": this CPU's). On error *buf is unchanged. */
yrt_status pack_target_apply(const char *name, void **buf, size_t *size, yrt_error *err);

#endif
