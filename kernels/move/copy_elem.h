/* copy_elem.h — internal: strided element copy specialised for 1/2/4/8-byte elements. */
#ifndef YOLORT_YK_COPY_ELEM_H
#define YOLORT_YK_COPY_ELEM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* dst[i] = src[i * stride] for i < n (stride in elements, may be negative). */
static inline void yk_copy_strided(uint8_t *dst, const uint8_t *src, int64_t stride, int64_t n,
                                   size_t es) {
  const ptrdiff_t sb = (ptrdiff_t)stride * (ptrdiff_t)es;
  switch (es) {
    case 1:
      for (int64_t i = 0; i < n; i++) dst[i] = src[i * sb];
      break;
    case 4:
      for (int64_t i = 0; i < n; i++) memcpy(dst + 4 * i, src + i * sb, 4);
      break;
    default:
      for (int64_t i = 0; i < n; i++) memcpy(dst + (size_t)i * es, src + i * sb, es);
      break;
  }
}

#endif /* YOLORT_YK_COPY_ELEM_H */
