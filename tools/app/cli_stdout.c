/* cli_stdout.c — standard output checked at exit (cli_stdout.h). */
#define _GNU_SOURCE /* program_invocation_short_name: the message names the program without state of ours */
#include "cli_stdout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void close_stdout_at_exit(void) {
  int e = 0, bad = 0;
  /* fflush reports the last buffer's error; ferror one that an earlier write set (its errno gone) */
  if (fflush(stdout) != 0) bad = 1, e = errno;
  if (ferror(stdout)) bad = 1;
  if (fclose(stdout) != 0 && !bad) bad = 1, e = errno;
  if (!bad) return;
  fprintf(stderr, "%s: writing to standard output failed%s%s: the results are lost\n", program_invocation_short_name,
          e ? ": " : "", e ? strerror(e) : "");
  /* the status main returned is already on its way: only _exit can still change it (gnulib's
   * close_stdout does the same) */
  _exit(EXIT_FAILURE);
}

void cli_stdout_guard(void) {
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    /* the opposite direction of the stream's: its reads or writes keep failing with EBADF */
    const int nfd = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_NOCTTY);
    if (nfd > fd) { /* lower descriptors are open (earlier iterations), so this is rare */
      (void)dup2(nfd, fd);
      close(nfd);
    }
  }
  (void)atexit(close_stdout_at_exit);
}
