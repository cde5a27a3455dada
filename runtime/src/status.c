/* status.c — status names and the error-message helper every fallible call uses. */
#include <stdarg.h>
#include <stdio.h>

#include "yolort.h"

const char *yrt_status_name(yrt_status s) {
  switch (s) {
    case YRT_OK: return "YRT_OK";
    case YRT_ERR_INVALID_ARG: return "YRT_ERR_INVALID_ARG";
    case YRT_ERR_IO: return "YRT_ERR_IO";
    case YRT_ERR_FORMAT: return "YRT_ERR_FORMAT";
    case YRT_ERR_UNSUPPORTED: return "YRT_ERR_UNSUPPORTED";
    case YRT_ERR_NOMEM: return "YRT_ERR_NOMEM";
    case YRT_ERR_BACKEND: return "YRT_ERR_BACKEND";
    case YRT_ERR_SHAPE: return "YRT_ERR_SHAPE";
    case YRT_ERR_CANCELLED: return "YRT_ERR_CANCELLED";
  }
  return "YRT_ERR_UNKNOWN";
}

yrt_status yrt_set_error(yrt_error *err, yrt_status s, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return s;
}
