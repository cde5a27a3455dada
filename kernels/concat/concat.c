/* concat.c — Concat of n inputs viewed as [outer][inner_i]: one memcpy per (outer, input) run. */
#include <string.h>

#include "yk.h"

void yk_concat(const void *const *x, const size_t *inner, int n, size_t outer, void *y,
               size_t elem_size) {
  uint8_t *dst = (uint8_t *)y;
  for (size_t o = 0; o < outer; o++) {
    for (int i = 0; i < n; i++) {
      const size_t run = inner[i] * elem_size;
      if (run) memcpy(dst, (const uint8_t *)x[i] + o * run, run);
      dst += run;
    }
  }
}
