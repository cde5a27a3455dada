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

/* Parses one line into class + 4 numbers, then (nk > 0) nk keypoints of x, y[, v] into kp (0 when
 * the line has none); returns NULL or the reason it is malformed. */
static const char *parse_line(char *line, int num_classes, int nk, int *cls, double v[4], float *kp) {
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
  *cls = (int)c;
  if (nk <= 0) return strtok_r(NULL, " \t\r\n", &save) ? "expected 5 fields: class cx cy w h (segments are not supported)" : NULL;
  double k[3 * COCO_MAX_KEYPOINTS];
  int n = 0;
  while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
    if (n == 3 * nk) return "more fields than class, box and the model's keypoints";
    k[n] = strtod(tok, &end);
    if (*end || !isfinite(k[n])) return "keypoint value is not a finite number";
    n++;
  }
  if (n != 0 && n != 2 * nk && n != 3 * nk) return "keypoints are not the model's count of x y v (or x y) triples";
  const int kd = n == 2 * nk ? 2 : 3;
  for (int i = 0; i < nk; i++) {
    const double x = n ? k[kd * i] : 0, y = n ? k[kd * i + 1] : 0, vis = !n ? 0 : kd == 3 ? k[kd * i + 2] : 1;
    if ((vis != 0 && (x < 0 || x > 1 + LABEL_TOLERANCE || y < 0 || y > 1 + LABEL_TOLERANCE)) || vis < 0 || vis > 2)
      return "keypoint outside [0,1] or visibility not 0, 1 or 2";
    kp[3 * i] = (float)x, kp[3 * i + 1] = (float)y, kp[3 * i + 2] = (float)vis;
  }
  return NULL;
}

/* An OBB line: class and 4 normalised corners into c[8]; NULL or why it is malformed. */
static const char *parse_obb_line(char *line, int num_classes, int *cls, double c[8]) {
  char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
  char *end;
  errno = 0;
  long k = strtol(tok, &end, 10);
  if (*end || errno) return "class id is not an integer";
  if (k < 0 || k >= num_classes) return "class id out of range";
  for (int i = 0; i < 8; i++) {
    tok = strtok_r(NULL, " \t\r\n", &save);
    if (!tok) return "expected 9 fields: class x1 y1 x2 y2 x3 y3 x4 y4 (an obb model's labels)";
    c[i] = strtod(tok, &end);
    if (*end || !isfinite(c[i])) return "coordinate is not a finite number";
    if (c[i] < 0.0 || c[i] > 1.0 + LABEL_TOLERANCE) return "coordinate outside [0,1] (labels must be normalised)";
  }
  if (strtok_r(NULL, " \t\r\n", &save)) return "expected 9 fields: class x1 y1 x2 y2 x3 y3 x4 y4 (an obb model's labels)";
  *cls = (int)k;
  return NULL;
}

/* The readers: nk 0 plain boxes, nk > 0 boxes and keypoints (*kpts [n][nk][3], image pixels),
 * nk -1 OBB corners (*kpts [n][COCO_RBOX_FLOATS], boxes their enclosing ones). */
static yrt_status load(const char *path, int img_w, int img_h, int num_classes, int nk, coco_gt_box **boxes,
                       float **kpts, int *n, yrt_error *err) {
  const int obb = nk == -1;
  const size_t per = obb ? COCO_RBOX_FLOATS : 3 * (size_t)(nk > 0 ? nk : 0); /* floats of *kpts per box */
  if (obb) nk = 0;
  if (!path || !boxes || !n || img_w <= 0 || img_h <= 0 || num_classes <= 0 || nk < 0 || nk > COCO_MAX_KEYPOINTS ||
      (per && !kpts))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_load_yolo_labels: bad arguments");
  *boxes = NULL;
  if (kpts) *kpts = NULL;
  *n = 0;
  float kp[3 * COCO_MAX_KEYPOINTS], *karr = NULL;
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
    double v[4], c[8];
    const char *why = obb ? parse_obb_line(line, num_classes, &cls, c) : parse_line(line, num_classes, nk, &cls, v, kp);
    float rb[COCO_RBOX_FLOATS];
    if (!why && obb) { /* the corners in pixels, their rotated box and enclosing box (v: cx cy w h) */
      double x0 = 1e30, y0 = 1e30, x1 = -1e30, y1 = -1e30;
      for (int i = 0; i < 4; i++) {
        rb[5 + 2 * i] = (float)(c[2 * i] * img_w), rb[6 + 2 * i] = (float)(c[2 * i + 1] * img_h);
        x0 = fmin(x0, c[2 * i]), x1 = fmax(x1, c[2 * i]), y0 = fmin(y0, c[2 * i + 1]), y1 = fmax(y1, c[2 * i + 1]);
      }
      coco_rbox_from_corners(rb);
      v[0] = (x0 + x1) / 2, v[1] = (y0 + y1) / 2, v[2] = x1 - x0, v[3] = y1 - y0;
      if (!(rb[2] > 0) || !(rb[3] > 0)) why = "degenerate quadrilateral (two corners coincide)";
    }
    if (why) {
      st = yrt_set_error(err, YRT_ERR_FORMAT, "%s:%d: %s", path, line_no, why);
      goto done;
    }
    if (count == cap) {
      int ncap = cap ? cap * 2 : 16;
      coco_gt_box *na = (coco_gt_box *)realloc(arr, (size_t)ncap * sizeof *na);
      if (na) arr = na;
      float *nkp = per && na ? (float *)realloc(karr, (size_t)ncap * per * sizeof *nkp) : NULL;
      if (nkp) karr = nkp;
      if (!na || (per && !nkp)) {
        st = yrt_set_error(err, YRT_ERR_NOMEM, "%s:%d: out of memory", path, line_no);
        goto done;
      }
      cap = ncap;
    }
    for (int k = 0; k < nk; k++) { /* to pixels, as the box */
      float *o = karr + ((size_t)count * (size_t)nk + (size_t)k) * 3;
      o[0] = kp[3 * k] * (float)img_w, o[1] = kp[3 * k + 1] * (float)img_h, o[2] = kp[3 * k + 2];
    }
    if (obb) memcpy(karr + (size_t)count * per, rb, sizeof rb);
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
    free(karr);
    return st;
  }
  *boxes = arr;
  if (kpts) *kpts = karr;
  *n = count;
  return YRT_OK;
}

yrt_status coco_load_yolo_labels(const char *path, int img_w, int img_h, int num_classes, coco_gt_box **boxes,
                                 int *n, yrt_error *err) {
  return load(path, img_w, img_h, num_classes, 0, boxes, NULL, n, err);
}

yrt_status coco_load_yolo_pose_labels(const char *path, int img_w, int img_h, int num_classes, int nk,
                                      coco_gt_box **boxes, float **kpts, int *n, yrt_error *err) {
  if (nk < 1) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "coco_load_yolo_pose_labels: %d keypoints", nk);
  return load(path, img_w, img_h, num_classes, nk, boxes, kpts, n, err);
}

yrt_status coco_load_yolo_obb_labels(const char *path, int img_w, int img_h, int num_classes, coco_gt_box **boxes,
                                     float **rboxes, int *n, yrt_error *err) {
  return load(path, img_w, img_h, num_classes, -1, boxes, rboxes, n, err);
}
