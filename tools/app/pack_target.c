/* pack_target.c — yolort-convert --target (pack_target.h). */
#include "pack_target.h"

#include <stdlib.h>
#include <string.h>

#include "model_prepack.h"
#include "yolort_format.h"

int pack_target_known(const char *name) {
  return name && (strcmp(name, "portable") == 0 || strcmp(name, "native") == 0 || yrt_pack_target_parse(name) != 0);
}

yrt_status pack_target_apply(const char *name, void **buf, size_t *size, yrt_error *err) {
  if (!pack_target_known(name))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "--target %s: not one of " YRT_PACK_TARGET_NAMES,
                         name ? name : "(null)");
  if (strcmp(name, "portable") == 0) return YRT_OK;
  const uint32_t t = strcmp(name, "native") == 0 ? yrt_pack_target_native() : yrt_pack_target_parse(name);
  if (!t)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "--target native: this CPU has no kernel a packed file serves "
                                                   "(no AVX2 / NEON); keep the portable file");
  void *out = NULL;
  size_t n = 0;
  const yrt_status st = yrt_model_prepack(*buf, *size, t, &out, &n, err);
  if (st != YRT_OK) return st;
  free(*buf);
  *buf = out;
  *size = n;
  return YRT_OK;
}
