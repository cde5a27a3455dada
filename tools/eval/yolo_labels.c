/* yolo_labels.c — read Ultralytics/YOLO txt labels into pixel boxes, with strict validation:
 * a silently skipped label would inflate mAP, so every bad line is an error naming file:line. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coco_map.h"
#include "open_regular.h"

#define LABEL_LINE_MAX 4096
/* Labels written with rounding can exceed 1 by a hair. */
#define LABEL_TOLERANCE 1e-4

static int is_blank(const char *s) {
  for (; *s; s++)
    if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') return 0;
  return 1;
}

/* Parses one line into class + 4 numbers; returns NULL or the reason it is malformed. */
static const char *parse_line(char *line, int num_classes, int *cls, double v[4]) {
  char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
  char *end;
  errno = 0;
  long c = strtol(tok, &end, 10);
  if (*end || errno) return "class id is not an integer";
  if (c < 0 || c >= num_classes) return "class id out of range";
  for (int i = 0; i < 4; i++) {
    tok = strtok_r(NULL, " \t\r\n", &save);
    if (!tok) return "expected 5 fields: class cx cy w h";
    v[i] = strtod(tok, &end);
    if (*end || !isfinite(v[i])) return "coordinate is not a finite number";
    if (v[i] < 0.0 || v[i] > 1.0 + LABEL_TOLERANCE) return "coordinate outside [0,1] (labels must be normalised)";
  }
  if (strtok_r(NULL, " \t\r\n", &save)) return "expected 5 fields: class cx cy w h (segments are not supported)";
  *cls = (int)c;
  return NULL;
}

yrt_status coco_load_yolo_labels(const char *path, int img_w, int img_h, int num_classes, coco_gt_box **boxes,
                                 int *n, yrt_error *err) {
  if (!path || !boxes || !n || img_w <= 0 || img_h <= 0 || num_classes <= 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_load_yolo_labels: bad arguments");
  *boxes = NULL;
  *n = 0;
  if (access(path, F_OK) != 0 && errno == ENOENT) return YRT_OK; /* no label file = no objects (Ultralytics) */
  FILE *f = yrt_fopen_regular(path, "labels", "r", err); /* never blocks on a FIFO */
  if (!f) return YRT_ERR_IO;
  yrt_status st = YRT_OK;
  coco_gt_box *arr = NULL;
  int count = 0, cap = 0, line_no = 0;
  char line[LABEL_LINE_MAX];
  while (fgets(line, sizeof line, f)) {
    line_no++;
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
      st = yrt_set_error(err, YRT_ERR_FORMAT, "%s:%d: line longer than %d characters", path, line_no,
                         LABEL_LINE_MAX - 2);
      goto done;
    }
    if (is_blank(line)) continue;
    int cls = 0;
    double v[4];
    const char *why = parse_line(line, num_classes, &cls, v);
    if (why) {
      st = yrt_set_error(err, YRT_ERR_FORMAT, "%s:%d: %s", path, line_no, why);
      goto done;
    }
    if (count == cap) {
      int ncap = cap ? cap * 2 : 16;
      coco_gt_box *na = (coco_gt_box *)realloc(arr, (size_t)ncap * sizeof *na);
      if (!na) {
        st = yrt_set_error(err, YRT_ERR_NOMEM, "%s:%d: out of memory", path, line_no);
        goto done;
      }
      arr = na;
      cap = ncap;
    }
    coco_gt_box *b = &arr[count++];
    b->x0 = (float)((v[0] - v[2] / 2) * img_w);
    b->y0 = (float)((v[1] - v[3] / 2) * img_h);
    b->x1 = (float)((v[0] + v[2] / 2) * img_w);
    b->y1 = (float)((v[1] + v[3] / 2) * img_h);
    b->class_id = cls;
  }
  if (ferror(f)) st = yrt_set_error(err, YRT_ERR_IO, "%s: read error", path);
done:
  fclose(f);
  if (st != YRT_OK) {
    free(arr);
    return st;
  }
  *boxes = arr;
  *n = count;
  return YRT_OK;
}
