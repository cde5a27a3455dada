/* test_data.h — locating ../shared from tests.
 * YOLORT_DATA (env) or the compiled-in default. A test that needs the data calls
 * YT_REQUIRE_DATA(path_buffer): on a developer machine without it the test is skipped; with
 * CI=true it fails, as the project brief requires. */
#ifndef YOLORT_TEST_DATA_H
#define YOLORT_TEST_DATA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static inline const char *yt_data_dir(void) {
  const char *d = getenv("YOLORT_DATA");
  return (d && *d) ? d : YOLORT_DEFAULT_DATA;
}

static inline int yt_in_ci(void) {
  const char *ci = getenv("CI");
  return ci && (strcmp(ci, "true") == 0 || strcmp(ci, "1") == 0);
}

/* Writes <data>/<rel> into out; returns 1 if it exists. */
static inline int yt_data_path(char *out, size_t cap, const char *rel) {
  struct stat st;
  snprintf(out, cap, "%s/%s", yt_data_dir(), rel);
  return stat(out, &st) == 0;
}

/* Inside a cmocka test: skip (dev) or fail (CI) when rel is missing. */
#define YT_REQUIRE_DATA(buf, rel)                                                      \
  do {                                                                                 \
    if (!yt_data_path((buf), sizeof(buf), (rel))) {                                    \
      if (yt_in_ci()) {                                                                \
        fail_msg("CI=true and test data %s is missing (set YOLORT_DATA)", (buf));      \
      }                                                                                \
      print_message("skipping: %s not found (set YOLORT_DATA)\n", (buf));              \
      skip();                                                                          \
    }                                                                                  \
  } while (0)

#endif
