/* version.c — the library's version, for callers to compare with the header they compiled against. */
#include "yolort.h"

const char *yrt_version(void) { return YOLORT_VERSION_STRING; }
