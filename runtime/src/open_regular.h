/* open_regular.h — open a file for reading only when it is a regular file, without blocking.
 * open() of a FIFO blocks until a writer appears (yolort-detect on a named pipe hung forever
 * before the fstat type check could refuse it, issue 40): the file is opened with O_NONBLOCK,
 * checked with fstat, and O_NONBLOCK is cleared again before any read. Header-only so the
 * runtime, the image library and the tools share one copy without exporting a symbol. */
#ifndef YOLORT_OPEN_REGULAR_H
#define YOLORT_OPEN_REGULAR_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "yolort.h"

/* what: the role in messages ("model", "image", "labels"...). On success *fd is a blocking
 * descriptor of a regular file (close it); on failure a YRT_ERR_IO naming what and path. */
static inline yrt_status yrt_open_regular(const char *path, const char *what, int *fd, yrt_error *err) {
  *fd = -1;
  const int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (f < 0) return yrt_set_error(err, YRT_ERR_IO, "%s %s: cannot open: %s", what, path, strerror(errno));
  struct stat sb;
  if (fstat(f, &sb) != 0) {
    const int e = errno;
    close(f);
    return yrt_set_error(err, YRT_ERR_IO, "%s %s: cannot stat: %s", what, path, strerror(e));
  }
  if (!S_ISREG(sb.st_mode)) {
    close(f);
    return yrt_set_error(err, YRT_ERR_IO, "%s %s is not a regular file (%s)", what, path,
                         S_ISDIR(sb.st_mode)    ? "a directory"
                         : S_ISFIFO(sb.st_mode) ? "a FIFO"
                         : S_ISCHR(sb.st_mode)  ? "a character device"
                         : S_ISBLK(sb.st_mode)  ? "a block device"
                         : S_ISSOCK(sb.st_mode) ? "a socket"
                                                : "not a plain file");
  }
  const int fl = fcntl(f, F_GETFL);
  if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    const int e = errno;
    close(f);
    return yrt_set_error(err, YRT_ERR_IO, "%s %s: cannot clear O_NONBLOCK: %s", what, path, strerror(e));
  }
  *fd = f;
  return YRT_OK;
}

/* The same as a stdio stream (mode "r" or "rb"); NULL with *err set on failure. */
static inline FILE *yrt_fopen_regular(const char *path, const char *what, const char *mode, yrt_error *err) {
  int fd = -1;
  if (yrt_open_regular(path, what, &fd, err) != YRT_OK) return NULL;
  FILE *f = fdopen(fd, mode);
  if (!f) {
    const int e = errno;
    close(fd);
    yrt_set_error(err, YRT_ERR_IO, "%s %s: fdopen: %s", what, path, strerror(e));
  }
  return f;
}

#endif
