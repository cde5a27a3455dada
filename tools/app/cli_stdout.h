/* cli_stdout.h — results a program prints are never lost with exit 0 (issue 40 item 7): every
 * yolort CLI calls cli_stdout_guard() first in main. At exit (any path: return from main or
 * exit()) standard output is flushed and closed; when a write, the flush or the close failed (a
 * closed stdout `>&-`, `>/dev/full`, a pipe whose disk filled) the program says so on stderr and
 * exits 1 instead of its own status. A standard stream closed at start is parked on /dev/null,
 * opened so that the stream's writes still fail (EBADF, as on the closed descriptor) and no file
 * the program opens later takes its number (a model or output file would then receive the text). */
#ifndef YOLORT_CLI_STDOUT_H
#define YOLORT_CLI_STDOUT_H

void cli_stdout_guard(void);

#endif
