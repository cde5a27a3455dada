/* coco_dets.c — see coco_dets.h. */
#include "coco_dets.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "open_regular.h"

#define DETS_LINE_MAX 4096
#define DETS_MAX_CLASS 100000

/* Splits the last k space-separated fields off line (cut in place): f[0..k) left to right;
 * returns the rest (the image name) or NULL when there are fewer fields or the name is empty. */
static char *split_tail(char *line, int k, char **f) {
  for (int i = k - 1; i >= 0; i--) {
    char *sp = strrchr(line, ' ');
    if (!sp || !sp[1]) return NULL;
    f[i] = sp + 1;
    *sp = '\0';
  }
  return *line ? line : NULL;
}

static int parse_float(const char *s, float *v) {
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !isfinite(x)) return 0;
  *v = (float)x;
  return isfinite(*v);
}

static int parse_int(const char *s, int lo, int hi, int *v) {
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (end == s || *end || errno || x < lo || x > hi) return 0;
  *v = (int)x;
  return 1;
}

/* p with room for one more element (n used of *cap): p itself, a larger copy, or NULL when out of
 * memory (p then still valid). */
static void *grow(void *p, int *cap, int n, size_t elem) {
  if (n < *cap) return p;
  int ncap = *cap ? *cap * 2 : 16;
  void *q = realloc(p, (size_t)ncap * elem);
  if (q) *cap = ncap;
  return q;
}

static yrt_status new_image(coco_dets *d, const char *name, int w, int h, yrt_error *err) {
  if (d->n == d->cap) {
    int ncap = d->cap ? d->cap * 2 : 64;
    coco_dets_image *ni = (coco_dets_image *)realloc(d->img, (size_t)ncap * sizeof *ni);
    if (!ni) return yrt_set_error(err, YRT_ERR_NOMEM, "coco_dets_read: out of memory for %d images", ncap);
    d->img = ni;
    d->cap = ncap;
  }
  coco_dets_image *im = &d->img[d->n];
  memset(im, 0, sizeof *im);
  size_t len = strlen(name);
  im->name = (char *)malloc(len + 1);
  if (!im->name) return yrt_set_error(err, YRT_ERR_NOMEM, "coco_dets_read: out of memory for an image name");
  memcpy(im->name, name, len + 1);
  im->w = w;
  im->h = h;
  im->file = d->files;
  d->n++;
  return YRT_OK;
}

/* "why" of a malformed line, or NULL after storing it. *st is set on allocation failure. */
static const char *parse_record(coco_dets *d, char *line, int *have_i, yrt_status *st, yrt_error *err) {
  char *f[7];
  const char kind = line[0];
  if ((kind != 'I' && kind != 'G' && kind != 'D') || line[1] != ' ')
    return "not a record (expected I, G or D and a space)";
  char *rest = line + 2;
  if (kind == 'I') {
    char *name = split_tail(rest, 2, f);
    int w, h;
    if (!name) return "expected I <image> <width> <height>";
    if (!parse_int(f[0], 1, 1 << 20, &w) || !parse_int(f[1], 1, 1 << 20, &h)) return "image size is not in 1..2^20";
    *have_i = 1;
    *st = new_image(d, name, w, h, err);
    return NULL;
  }
  const int k = kind == 'G' ? 5 : 6;
  char *name = split_tail(rest, k, f);
  if (!name) return kind == 'G' ? "expected G <image> <class> <x0> <y0> <x1> <y1>"
                                : "expected D <image> <class> <score> <x0> <y0> <x1> <y1>";
  int cls;
  float v[5];
  if (!parse_int(f[0], 0, DETS_MAX_CLASS - 1, &cls)) return "class id is not an integer in [0, 100000)";
  for (int i = 1; i < k; i++)
    if (!parse_float(f[i], &v[i - 1])) return "not a finite number";
  coco_dets_image *im = d->n && d->img[d->n - 1].file == d->files ? &d->img[d->n - 1] : NULL;
  if (!im || strcmp(im->name, name)) {
    if (*have_i) return "a record for another image than its I line's";
    /* a file without I lines: a new name starts an image */
    if ((*st = new_image(d, name, 0, 0, err)) != YRT_OK) return NULL;
    im = &d->img[d->n - 1];
  }
  if (cls > d->max_class) d->max_class = cls;
  if (kind == 'G') {
    coco_gt_box *g = (coco_gt_box *)grow(im->gts, &im->cap_gt, im->n_gt, sizeof *g);
    if (!g) {
      *st = yrt_set_error(err, YRT_ERR_NOMEM, "coco_dets_read: out of memory for %d boxes", im->n_gt + 1);
      return NULL;
    }
    im->gts = g;
    im->gts[im->n_gt++] = (coco_gt_box){v[0], v[1], v[2], v[3], cls};
  } else {
    yrt_detection *dd = (yrt_detection *)grow(im->dets, &im->cap_det, im->n_det, sizeof *dd);
    if (!dd) {
      *st = yrt_set_error(err, YRT_ERR_NOMEM, "coco_dets_read: out of memory for %d detections", im->n_det + 1);
      return NULL;
    }
    im->dets = dd;
    yrt_detection *x = &im->dets[im->n_det++];
    memset(x, 0, sizeof *x);
    x->score = v[0];
    x->x0 = v[1];
    x->y0 = v[2];
    x->x1 = v[3];
    x->y1 = v[4];
    x->class_id = cls;
  }
  return NULL;
}

yrt_status coco_dets_read(const char *path, coco_dets *d, yrt_error *err) {
  if (!path || !d) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_dets_read: bad arguments");
  if (!d->img) d->max_class = -1;
  FILE *f = yrt_fopen_regular(path, "detections file", "r", err);
  if (!f) return YRT_ERR_IO;
  char line[DETS_LINE_MAX];
  int line_no = 0, have_i = 0;
  yrt_status st = YRT_OK;
  while (!st && fgets(line, sizeof line, f)) {
    line_no++;
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
      st = yrt_set_error(err, YRT_ERR_FORMAT, "%s:%d: line longer than %d characters", path, line_no,
                         DETS_LINE_MAX - 2);
      break;
    }
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
    if (!len) continue;
    const char *why = parse_record(d, line, &have_i, &st, err);
    if (why) st = yrt_set_error(err, YRT_ERR_FORMAT, "%s:%d: %s", path, line_no, why);
  }
  if (!st && ferror(f)) st = yrt_set_error(err, YRT_ERR_IO, "%s: read error", path);
  fclose(f);
  d->files++;
  return st;
}

void coco_dets_free(coco_dets *d) {
  if (!d) return;
  for (int i = 0; i < d->n; i++) {
    free(d->img[i].name);
    free(d->img[i].gts);
    free(d->img[i].dets);
  }
  free(d->img);
  memset(d, 0, sizeof *d);
}

yrt_status coco_dets_check_paired(const coco_dets *a, const coco_dets *b, yrt_error *err) {
  if (a->n != b->n)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "not paired: %d images against %d", a->n, b->n);
  for (int i = 0; i < a->n; i++) {
    const coco_dets_image *x = &a->img[i], *y = &b->img[i];
    if (strcmp(x->name, y->name))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "not paired: image %d is %s on one side, %s on the other", i + 1,
                           x->name, y->name);
    if (x->w && y->w && (x->w != y->w || x->h != y->h))
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "not paired: image %s is %dx%d on one side, %dx%d on the other",
                           x->name, x->w, x->h, y->w, y->h);
    int same = x->n_gt == y->n_gt;
    for (int j = 0; same && j < x->n_gt; j++)
      same = x->gts[j].class_id == y->gts[j].class_id && x->gts[j].x0 == y->gts[j].x0 &&
             x->gts[j].y0 == y->gts[j].y0 && x->gts[j].x1 == y->gts[j].x1 && x->gts[j].y1 == y->gts[j].y1;
    if (!same)
      return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                           "not paired: image %s has different ground truth on the two sides (%d and %d boxes)",
                           x->name, x->n_gt, y->n_gt);
  }
  return YRT_OK;
}

yrt_status coco_dets_evaluate(const coco_dets *d, int num_classes, int max_dets_per_class, coco_eval **out,
                              yrt_error *err) {
  if (!d || !out || num_classes <= d->max_class)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_dets_evaluate: %d classes for class ids up to %d",
                         num_classes, d ? d->max_class : -1);
  *out = NULL;
  coco_eval *ev = NULL;
  yrt_status st = coco_eval_create(num_classes, max_dets_per_class, &ev, err);
  for (int i = 0; !st && i < d->n; i++)
    st = coco_eval_add_image(ev, d->img[i].dets, d->img[i].n_det, d->img[i].gts, d->img[i].n_gt, err);
  if (!st) st = coco_eval_finalize(ev, err);
  if (st) {
    coco_eval_free(ev);
    return st;
  }
  *out = ev;
  return YRT_OK;
}
