/* struct_growth.c — see struct_growth.h. */
#include "struct_growth.h"

#include <string.h>

yrt_status yrt_struct_read(const void *in, size_t struct_size, size_t size_at, size_t known, void *out,
                           const char *what, yrt_error *err) {
  const size_t v1 = size_at; /* the fields before struct_size existed */
  const size_t size = struct_size ? struct_size : v1;
  if (struct_size && struct_size < v1 + sizeof(size_t))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: struct_size %zu is too small (0, or at least %zu)", what,
                         struct_size, v1 + sizeof(size_t));
  const unsigned char *b = in;
  for (size_t i = known; i < size; i++)
    if (b[i])
      return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                           "%s: a struct of %zu bytes sets a field at byte %zu that this library (%zu bytes) "
                           "does not know: built for a newer yolort?",
                           what, size, i, known);
  memset(out, 0, known);
  memcpy(out, in, size < known ? size : known);
  memcpy((unsigned char *)out + size_at, &known, sizeof known); /* now this library's size */
  return YRT_OK;
}
