/* file_list.c — see file_list.h. */
#include "file_list.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void progress_bar(int done, int total, const char *label) {
  if (!isatty(2) && done != total) return;
  const int width = 30;
  int fill = total > 0 ? (int)((long)done * width / total) : width;
  char bar[64];
  for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
  bar[width] = 0;
  fprintf(stderr, "\r[%s] %d/%d %s", bar, done, total, label ? label : "");
  if (done >= total) fputc('\n', stderr);
  fflush(stderr);
}
