/* cli_version.h — `--version` for every yolort program: prints "PROG yolort X.Y.Z" (the linked
 * library's yrt_version(), with the header's version when they differ) on stdout. */
#ifndef YOLORT_CLI_VERSION_H
#define YOLORT_CLI_VERSION_H

#include <stdio.h>
#include <string.h>

#include "yolort.h"

/* 1 when argv holds --version (the caller exits 0 after this printed it). */
static inline int cli_version_requested(int argc, char **argv, const char *prog) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--version")) {
      if (strcmp(yrt_version(), YOLORT_VERSION_STRING))
        printf("%s yolort %s (built against headers %s)\n", prog, yrt_version(), YOLORT_VERSION_STRING);
      else
        printf("%s yolort %s\n", prog, yrt_version());
      return 1;
    }
  return 0;
}

#endif
