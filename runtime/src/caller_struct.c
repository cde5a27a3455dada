/* caller_struct.c — see caller_struct.h. */
#include "caller_struct.h"

#include <string.h>

/* A caller's struct of size bytes into this library's (known bytes, zero past the caller's),
 * refused when it sets a byte past known: a field of a newer yolort, never ignored. */
static yrt_status copy_known(const void *in, size_t size, size_t known, void *out, const char *what, yrt_error *err) {
  const unsigned char *b = in;
  for (size_t i = known; i < size; i++)
    if (b[i])
      return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                           "%s: a struct of %zu bytes sets a field at byte %zu that this library (%zu bytes) "
                           "does not know: built for a newer yolort?",
                           what, size, i, known);
  memset(out, 0, known);
  memcpy(out, in, size < known ? size : known);
  return YRT_OK;
}

yrt_status yrt_struct_read(const void *in, size_t struct_size, size_t size_at, size_t known, void *out,
                           const char *what, yrt_error *err) {
  const size_t v1 = size_at; /* the fields before struct_size existed */
  const size_t size = struct_size ? struct_size : v1;
  if (struct_size && struct_size < v1 + sizeof(size_t))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: struct_size %zu is too small (0, or at least %zu)", what,
                         struct_size, v1 + sizeof(size_t));
  /* A garbage struct_size (an uninitialised field, a pointer stored there) would have the unknown
   * tail check read far past what the caller owns: no struct of this library will grow past
   * YRT_STRUCT_SIZE_MAX (yolort.h), so a larger size is refused before any byte past `known` is read. */
  if (struct_size > YRT_STRUCT_SIZE_MAX)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "%s: struct_size %zu is over %u bytes (this library's struct is %zu): uninitialised? "
                         "(set it with the struct's _init function)",
                         what, struct_size, (unsigned)YRT_STRUCT_SIZE_MAX, known);
  const yrt_status st = copy_known(in, size, known, out, what, err);
  if (!st) memcpy((unsigned char *)out + size_at, &known, sizeof known); /* now this library's size */
  return st;
}

yrt_status yrt_struct_write(void *out, size_t out_size, const void *full, size_t known, size_t v1, const char *what,
                            yrt_error *err) {
  if (!out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: NULL output", what);
  if (out_size < v1 || out_size > YRT_STRUCT_SIZE_MAX)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: size %zu is outside [%zu, %u] (pass sizeof the struct)", what,
                         out_size, v1, (unsigned)YRT_STRUCT_SIZE_MAX);
  memcpy(out, full, out_size < known ? out_size : known);
  if (out_size > known) memset((unsigned char *)out + known, 0, out_size - known); /* a newer header's fields */
  return YRT_OK;
}

yrt_status yrt_struct_read_sized(const void *in, size_t in_size, size_t known, size_t v1, void *out, const char *what,
                                 yrt_error *err) {
  if (in_size < v1 || in_size > YRT_STRUCT_SIZE_MAX)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "%s: size %zu is outside [%zu, %u] (pass sizeof the struct)", what,
                         in_size, v1, (unsigned)YRT_STRUCT_SIZE_MAX);
  return copy_known(in, in_size, known, out, what, err);
}
