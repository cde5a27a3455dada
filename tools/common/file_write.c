/* file_write.c — temp file in the target's directory + rename() (see file_write.h). */
#define _POSIX_C_SOURCE 200809L
#include "file_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const void *data, size_t size) {
  const unsigned char *p = data;
  while (size) {
    const ssize_t w = write(fd, p, size);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return -1;
    }
    p += w;
    size -= (size_t)w;
  }
  return 0;
}

/* An existing non-regular target: write in place, never create, truncate only what can be. */
static yrt_status write_in_place(const char *path, const void *data, size_t size, yrt_error *err) {
  /* O_NONBLOCK for the open only: a FIFO nobody reads fails with ENXIO instead of blocking the
   * program forever (issue 40); a pipe with a reader is then written as usual, blocking */
  const int fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0 && errno == ENXIO)
    return yrt_set_error(err, YRT_ERR_IO, "cannot write '%s': a FIFO that no process reads", path);
  if (fd < 0) return yrt_set_error(err, YRT_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(errno));
  const int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    const int e = errno;
    close(fd);
    return yrt_set_error(err, YRT_ERR_IO, "cannot write '%s': %s", path, strerror(e));
  }
  int bad = write_all(fd, data, size);
  const int e = errno;
  if (close(fd) != 0 && !bad) bad = -1;
  if (bad) return yrt_set_error(err, YRT_ERR_IO, "writing '%s' failed: %s", path, strerror(e));
  return YRT_OK;
}

/* The temporary file while it exists, for the signal path (issue 40 item 9: SIGINT / SIGTERM /
 * SIGHUP during the write left `PATH.tmp.XXXXXX` behind). This is the project's accepted exception
 * to "no global mutable state": a signal handler can reach nothing else, so the path it unlinks is
 * a static buffer and `tmp_armed` a volatile sig_atomic_t, both private to this file. They are set
 * with those signals blocked, and only one atomic write runs at a time (the CLIs write their
 * outputs one after another; a nested or concurrent call finds it armed and goes without the
 * handler, its failure path still unlinking its own file). */
#define TMP_SIGNALS 3
static const int tmp_signals[TMP_SIGNALS] = {SIGINT, SIGTERM, SIGHUP};
static char tmp_path[4096];
static volatile sig_atomic_t tmp_armed;

/* Async-signal-safe: unlink the temporary file, then die of the signal with its default action
 * (restored here; the signal is blocked while this runs, so raise() takes effect at return). */
static void tmp_on_signal(int sig) {
  const int e = errno;
  if (tmp_armed) {
    tmp_armed = 0;
    (void)unlink(tmp_path);
  }
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  (void)sigaction(sig, &dfl, NULL);
  (void)raise(sig);
  errno = e;
}

typedef struct tmp_guard {
  int armed;
  struct sigaction old[TMP_SIGNALS];
  int installed[TMP_SIGNALS];
  sigset_t prev; /* the mask before block_signals */
} tmp_guard;

static void block_signals(tmp_guard *g) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < TMP_SIGNALS; i++) sigaddset(&set, tmp_signals[i]);
  (void)sigprocmask(SIG_BLOCK, &set, &g->prev);
}

static void restore_mask(const tmp_guard *g) { (void)sigprocmask(SIG_SETMASK, &g->prev, NULL); }

/* With the signals blocked: record path, install the handler where the signal is not ignored. */
static void tmp_arm(tmp_guard *g, const char *path) {
  memset(g->installed, 0, sizeof g->installed);
  g->armed = 0;
  const size_t n = strlen(path);
  if (tmp_armed || n >= sizeof tmp_path) return; /* failure path only (see above) */
  memcpy(tmp_path, path, n + 1);
  for (int i = 0; i < TMP_SIGNALS; i++) {
    if (sigaction(tmp_signals[i], NULL, &g->old[i]) != 0) continue;
    if (!(g->old[i].sa_flags & SA_SIGINFO) && g->old[i].sa_handler == SIG_IGN) continue; /* nohup */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tmp_on_signal;
    sigemptyset(&sa.sa_mask);
    for (int j = 0; j < TMP_SIGNALS; j++) sigaddset(&sa.sa_mask, tmp_signals[j]);
    if (sigaction(tmp_signals[i], &sa, NULL) == 0) g->installed[i] = 1;
  }
  g->armed = 1;
  tmp_armed = 1;
}

/* With the signals blocked: forget the path, put the caller's handlers back. */
static void tmp_disarm(tmp_guard *g) {
  if (!g->armed) return;
  tmp_armed = 0;
  for (int i = 0; i < TMP_SIGNALS; i++)
    if (g->installed[i]) (void)sigaction(tmp_signals[i], &g->old[i], NULL);
  g->armed = 0;
}

yrt_status yrt_write_file_atomic(const char *path, const void *data, size_t size, yrt_error *err) {
  if (!path || !*path || (!data && size))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_write_file_atomic: no path or no data");
  struct stat st;
  mode_t mode = 0644;
  int existing = 0;
  if (stat(path, &st) == 0) {
    existing = 1;
    if (S_ISDIR(st.st_mode)) return yrt_set_error(err, YRT_ERR_IO, "cannot write '%s': it is a directory", path);
    if (!S_ISREG(st.st_mode)) return write_in_place(path, data, size, err);
    mode = st.st_mode & 0777; /* keep an existing file's permissions */
  }
  const size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  if (!tmp) return yrt_set_error(err, YRT_ERR_NOMEM, "out of memory for the path of '%s'", path);
  memcpy(tmp, path, n);
  memcpy(tmp + n, ".tmp.XXXXXX", 12);
  /* the file is created and its path recorded for the handler with the signals blocked, so no
   * signal can come between the two; they stay deliverable during the write */
  tmp_guard guard;
  block_signals(&guard);
  const int fd = mkstemp(tmp);
  if (fd < 0) {
    const int e0 = errno;
    restore_mask(&guard);
    yrt_status s = yrt_set_error(err, YRT_ERR_IO, "cannot create a temporary file beside '%s': %s", path,
                                 strerror(e0));
    free(tmp);
    return s;
  }
  tmp_arm(&guard, tmp);
  restore_mask(&guard);
  /* mkstemp makes 0600: an existing file keeps its mode, a new one gets 0644 less the umask (read
   * and restored at once; the CLIs are single-threaded here) */
  if (!existing) {
    const mode_t um = umask(0);
    umask(um);
    mode &= ~um;
  }
  (void)fchmod(fd, mode); /* not fatal: the content is still right */
  int bad = write_all(fd, data, size);
  int e = errno;
  if (close(fd) != 0 && !bad) bad = -1, e = errno;
  block_signals(&guard); /* rename or unlink, then disarm, as one step for the handler */
  if (!bad && rename(tmp, path) != 0) bad = -1, e = errno;
  if (bad) unlink(tmp); /* ours: created by mkstemp above */
  tmp_disarm(&guard);
  restore_mask(&guard);
  if (bad) {
    yrt_status s = yrt_set_error(err, YRT_ERR_IO, "writing '%s' failed: %s", path, strerror(e));
    free(tmp);
    return s;
  }
  free(tmp);
  return YRT_OK;
}

int yrt_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (!a || !b || stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_output_distinct(const char *prog, const char *flag, const char *out, const char *role, const char *in) {
  if (!yrt_same_file(out, in)) return 1;
  fprintf(stderr, "%s: %s %s is the same file as %s %s: refused, writing it would destroy the input\n", prog, flag,
          out, role, in);
  return 0;
}

int cli_output_outside(const char *prog, const char *flag, const char *out, const char *role, const char *dir) {
  struct stat so;
  if (!out || !dir || stat(out, &so) != 0) return 1; /* a new file is no input */
  DIR *d = opendir(dir);
  if (!d) return 1; /* the tool reports an unreadable folder itself */
  int ok = 1;
  const size_t dl = strlen(dir);
  for (struct dirent *e; ok && (e = readdir(d));) {
    if (e->d_ino != so.st_ino) continue; /* cheap filter; the device is checked by stat */
    const size_t el = strlen(e->d_name);
    char *p = malloc(dl + el + 2);
    if (!p) break;
    memcpy(p, dir, dl);
    p[dl] = '/';
    memcpy(p + dl + 1, e->d_name, el + 1);
    ok = cli_output_distinct(prog, flag, out, role, p);
    free(p);
  }
  closedir(d);
  return ok;
}
