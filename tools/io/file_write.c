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

/* An output being written: a FILE on the temporary file (or, for an existing non-regular target,
 * on the target itself), committed by rename() or dropped. */
struct yrt_out_file {
  FILE *f;
  char *path, *tmp; /* tmp NULL: written in place */
  tmp_guard guard;
};

static yrt_status out_fail(yrt_out_file *o, yrt_status st) {
  if (o) {
    free(o->path);
    free(o->tmp);
    free(o);
  }
  return st;
}

/* An existing non-regular target: open in place, never create, truncate only what can be. */
static yrt_status open_in_place(yrt_out_file *o, yrt_error *err) {
  /* O_NONBLOCK for the open only: a FIFO nobody reads fails with ENXIO instead of blocking the
   * program forever (issue 40); a pipe with a reader is then written as usual, blocking */
  const int fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0 && errno == ENXIO)
    return yrt_set_error(err, YRT_ERR_IO, "cannot write '%s': a FIFO that no process reads", o->path);
  if (fd < 0) return yrt_set_error(err, YRT_ERR_IO, "cannot open '%s' for writing: %s", o->path, strerror(errno));
  const int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 || !(o->f = fdopen(fd, "wb"))) {
    const int e = errno;
    close(fd);
    return yrt_set_error(err, YRT_ERR_IO, "cannot write '%s': %s", o->path, strerror(e));
  }
  return YRT_OK;
}

static char *dup_str(const char *s) {
  const size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

yrt_status yrt_out_open(const char *path, yrt_out_file **out, FILE **f, yrt_error *err) {
  if (out) *out = NULL;
  if (f) *f = NULL;
  if (!path || !*path || !out || !f)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_out_open: no path or no result pointer");
  yrt_out_file *o = calloc(1, sizeof *o);
  if (!o || !(o->path = dup_str(path)))
    return out_fail(o, yrt_set_error(err, YRT_ERR_NOMEM, "out of memory for the output '%s'", path));
  struct stat st;
  mode_t mode = 0644;
  int existing = 0;
  if (stat(path, &st) == 0) {
    existing = 1;
    if (S_ISDIR(st.st_mode))
      return out_fail(o, yrt_set_error(err, YRT_ERR_IO, "cannot write '%s': it is a directory", path));
    if (!S_ISREG(st.st_mode)) {
      const yrt_status s = open_in_place(o, err);
      if (s) return out_fail(o, s);
      *out = o;
      *f = o->f;
      return YRT_OK;
    }
    mode = st.st_mode & 0777; /* keep an existing file's permissions */
  }
  const size_t n = strlen(path);
  if (!(o->tmp = malloc(n + 16)))
    return out_fail(o, yrt_set_error(err, YRT_ERR_NOMEM, "out of memory for the path of '%s'", path));
  memcpy(o->tmp, path, n);
  memcpy(o->tmp + n, ".tmp.XXXXXX", 12);
  /* the file is created and its path recorded for the handler with the signals blocked, so no
   * signal can come between the two; they stay deliverable during the write */
  block_signals(&o->guard);
  const int fd = mkstemp(o->tmp);
  if (fd < 0) {
    const int e0 = errno;
    restore_mask(&o->guard);
    return out_fail(o, yrt_set_error(err, YRT_ERR_IO, "cannot write '%s': no temporary file beside it: %s", path,
                                     strerror(e0)));
  }
  tmp_arm(&o->guard, o->tmp);
  restore_mask(&o->guard);
  /* mkstemp makes 0600: an existing file keeps its mode, a new one gets 0644 less the umask (read
   * and restored at once; the CLIs are single-threaded here) */
  if (!existing) {
    const mode_t um = umask(0);
    umask(um);
    mode &= ~um;
  }
  (void)fchmod(fd, mode); /* not fatal: the content is still right */
  if (!(o->f = fdopen(fd, "wb"))) {
    const int e = errno;
    close(fd);
    yrt_out_abort(o);
    return yrt_set_error(err, YRT_ERR_IO, "cannot write '%s': %s", path, strerror(e));
  }
  *out = o;
  *f = o->f;
  return YRT_OK;
}

/* Closes the stream (every buffered byte and any deferred error reported), then renames the
 * temporary file over the target, or removes it when anything failed. */
static yrt_status out_finish(yrt_out_file *o, int keep, yrt_error *err) {
  /* fflush before ferror: a write error of the last buffer shows only here (ENOSPC, EBADF); an
   * earlier one only as the stream's error flag (its errno is gone by now) */
  int bad = !keep, e = 0;
  if (!bad && fflush(o->f) != 0) bad = 1, e = errno;
  if (!bad && ferror(o->f)) bad = 1;
  if (o->f && fclose(o->f) != 0 && !bad) bad = 1, e = errno;
  if (o->tmp) {
    block_signals(&o->guard); /* rename or unlink, then disarm, as one step for the handler */
    if (!bad && rename(o->tmp, o->path) != 0) bad = 1, e = errno;
    if (bad) unlink(o->tmp); /* ours: created by mkstemp */
    tmp_disarm(&o->guard);
    restore_mask(&o->guard);
  }
  yrt_status st = YRT_OK;
  if (bad && keep)
    st = yrt_set_error(err, YRT_ERR_IO, "writing '%s' failed: %s", o->path, e ? strerror(e) : "a write failed");
  out_fail(o, YRT_OK);
  return st;
}

yrt_status yrt_out_commit(yrt_out_file *o, yrt_error *err) {
  if (!o) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_out_commit: no output");
  return out_finish(o, 1, err);
}

void yrt_out_abort(yrt_out_file *o) {
  if (o) (void)out_finish(o, 0, NULL);
}

yrt_status yrt_write_file_atomic(const char *path, const void *data, size_t size, yrt_error *err) {
  if (!path || !*path || (!data && size))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_write_file_atomic: no path or no data");
  yrt_out_file *o = NULL;
  FILE *f = NULL;
  yrt_status st = yrt_out_open(path, &o, &f, err);
  if (st) return st;
  if (size && fwrite(data, 1, size, f) != size) {
    const int e = errno;
    yrt_out_abort(o);
    return yrt_set_error(err, YRT_ERR_IO, "writing '%s' failed: %s", path, strerror(e));
  }
  return yrt_out_commit(o, err);
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
