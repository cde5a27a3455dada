/* threshold_scan.c — yk_detect_over_i8 and yk_detect_over_f32 (the camera path's threshold scan:
 * which anchors can pass the confidence threshold): the variants yk_isa_select chose
 * (include/variants/detect.inc). */
#include "yk_detect.h"
#include "yk_variants.h"

size_t yk_detect_over_i8(const yk_isa *isa, const int8_t *q, size_t n, int nc, int8_t t, int32_t base, int32_t *list) {
  return YK_PICK(isa, detect_over_i8)(q, n, nc, t, base, list);
}

size_t yk_detect_over_f32(const yk_isa *isa, const float *x, size_t n, int nc, float t, int32_t base, int32_t *list) {
  return YK_PICK(isa, detect_over_f32)(x, n, nc, t, base, list);
}
