/* file_list.c — see file_list.h. */
#include "file_list.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <unistd.h>

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_image(const char *name) {
  const char *dot = strrchr(name, '.');
  return dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"));
}

yrt_status file_list_images(const char *dir, file_list *out, yrt_error *err) {
  out->paths = NULL;
  out->n = 0;
  DIR *d = opendir(dir);
  if (!d) return yrt_set_error(err, YRT_ERR_IO, "cannot open folder '%s'", dir);
  int cap = 0;
  struct dirent *e;
  yrt_status st = YRT_OK;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || !is_image(e->d_name)) continue;
    if (out->n == cap) {
      cap = cap ? 2 * cap : 64;
      char **p = realloc(out->paths, sizeof(char *) * (size_t)cap);
      if (!p) {
        st = yrt_set_error(err, YRT_ERR_NOMEM, "out of memory listing '%s'", dir);
        break;
      }
      out->paths = p;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    char *path = malloc(len);
    if (!path) {
      st = yrt_set_error(err, YRT_ERR_NOMEM, "out of memory listing '%s'", dir);
      break;
    }
    snprintf(path, len, "%s/%s", dir, e->d_name);
    out->paths[out->n++] = path;
  }
  closedir(d);
  if (st == YRT_OK && out->n == 0)
    st = yrt_set_error(err, YRT_ERR_IO, "no .jpg images in '%s'", dir);
  if (st != YRT_OK) {
    file_list_free(out);
    return st;
  }
  qsort(out->paths, (size_t)out->n, sizeof(char *), cmp_str);
  return YRT_OK;
}

void file_list_free(file_list *l) {
  for (int i = 0; i < l->n; i++) free(l->paths[i]);
  free(l->paths);
  l->paths = NULL;
  l->n = 0;
}

void file_stem(const char *path, char *out, size_t cap) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(out, cap, "%s", base);
  char *dot = strrchr(out, '.');
  if (dot && dot != out) *dot = 0;
}

double progress_clock(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* m:ss, or h:mm:ss from an hour on */
static void fmt_time(double s, char *out, size_t cap) {
  long t = s > 0.0 && s < 1e8 ? (long)(s + 0.5) : 0;
  if (t >= 3600) snprintf(out, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else snprintf(out, cap, "%ld:%02ld", t / 60, t % 60);
}

void progress_bar(int done, int total, const char *label, double start) {
  if (!isatty(2) && done != total) return;
  const int width = 30;
  int fill = total > 0 ? (int)((long)done * width / total) : width;
  char bar[64], el[24], eta[24];
  for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
  bar[width] = 0;
  const double elapsed = progress_clock() - start;
  fmt_time(elapsed, el, sizeof el);
  if (done >= total) {
    fprintf(stderr, "\r[%s] %d/%d %s  %s elapsed\n", bar, done, total, label ? label : "", el);
  } else {
    fmt_time(done > 0 ? elapsed / done * (total - done) : 0.0, eta, sizeof eta);
    /* trailing spaces: a shorter line overwrites the longer one before it */
    fprintf(stderr, "\r[%s] %d/%d %s  %s elapsed, ETA %s   ", bar, done, total, label ? label : "", el,
            done > 0 ? eta : "?");
  }
  fflush(stderr);
}
