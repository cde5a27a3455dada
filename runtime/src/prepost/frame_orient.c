/* frame_orient.c — see frame_orient.h. The upright image is the stored one turned clockwise by
 * rot quarter turns, then mirrored left-right when mir. */
#include "frame_orient.h"

#include <math.h>
#include <stddef.h>

#include "caller_struct.h"

int yrt_orient_split(int orientation, int *rot, int *mir) {
  if (orientation < 0 || orientation > (YRT_ORIENT_270 | YRT_ORIENT_MIRROR)) return -1;
  *rot = orientation & 3;
  *mir = (orientation & YRT_ORIENT_MIRROR) != 0;
  return 0;
}

/* Stored point of upright point (u, v) of a w x h (stored) image, in continuous coordinates
 * (pixel i spans [i, i + 1]); `one` = 1 for pixel indices (whose last is w - 1), 0 for edges. */
static void stored_of_upright(int rot, int mir, double w, double h, double one, double u, double v, double *x,
                              double *y) {
  const double uw = rot & 1 ? h : w;
  if (mir) u = uw - one - u;
  switch (rot) {
  case 0: *x = u, *y = v; break;
  case 1: *x = v, *y = h - one - u; break; /* upright's top row: the stored left column, upwards */
  case 2: *x = w - one - u, *y = h - one - v; break;
  default: *x = w - one - v, *y = u; break;
  }
}

void yrt_orient_flips(int rot, int mir, int *flip_x, int *flip_y) {
  double x0, y0, x1, y1, x2, y2;
  stored_of_upright(rot, mir, 4, 4, 1, 0, 0, &x0, &y0);
  stored_of_upright(rot, mir, 4, 4, 1, 1, 0, &x1, &y1);
  stored_of_upright(rot, mir, 4, 4, 1, 0, 1, &x2, &y2);
  *flip_x = x1 < x0 || x2 < x0;
  *flip_y = y1 < y0 || y2 < y0;
}

void yrt_orient_plane(const uint8_t *crop0, size_t stride, int pb, int w, int h, int rot, int mir,
                      const uint8_t **origin, ptrdiff_t *step_x, ptrdiff_t *step_y) {
  double x0, y0, x1, y1, x2, y2;
  stored_of_upright(rot, mir, w, h, 1, 0, 0, &x0, &y0);
  stored_of_upright(rot, mir, w, h, 1, 1, 0, &x1, &y1);
  stored_of_upright(rot, mir, w, h, 1, 0, 1, &x2, &y2);
  const ptrdiff_t s = (ptrdiff_t)stride;
  *origin = crop0 + (ptrdiff_t)y0 * s + (ptrdiff_t)x0 * pb;
  *step_x = (ptrdiff_t)(y1 - y0) * s + (ptrdiff_t)(x1 - x0) * pb;
  *step_y = (ptrdiff_t)(y2 - y0) * s + (ptrdiff_t)(x2 - x0) * pb;
}

yrt_status yrt_orient_map_of(const yrt_frame *frame, yrt_orient_map *m, yrt_error *err) {
  yrt_frame f;
  const yrt_status st = yrt_struct_read(frame, frame->struct_size, offsetof(yrt_frame, struct_size), sizeof f, &f,
                                        "yrt_frame_map_detections: frame", err);
  if (st != YRT_OK) return st;
  if (yrt_orient_split(f.orientation, &m->rot, &m->mir) != 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_frame_map_detections: orientation %d (0..7)", f.orientation);
  const int whole = f.crop_w == 0 || f.crop_h == 0;
  m->cx = whole ? 0 : f.crop_x, m->cy = whole ? 0 : f.crop_y;
  m->w = whole ? f.width : f.crop_w, m->h = whole ? f.height : f.crop_h;
  return YRT_OK;
}

void yrt_orient_map_point(const yrt_orient_map *m, float *x, float *y) {
  if (!m->rot && !m->mir) return; /* lb already mapped it to frame pixels */
  double sx, sy;
  stored_of_upright(m->rot, m->mir, m->w, m->h, 0, *x, *y, &sx, &sy);
  *x = (float)(sx + m->cx), *y = (float)(sy + m->cy);
}

yrt_status yrt_frame_map_detections(const yrt_frame *frame, yrt_detection *dets, int n, yrt_error *err) {
  if (!frame || (!dets && n > 0) || n < 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_frame_map_detections: NULL argument or n = %d", n);
  yrt_orient_map m;
  const yrt_status st = yrt_orient_map_of(frame, &m, err);
  if (st != YRT_OK) return st;
  if (!m.rot && !m.mir) return YRT_OK; /* lb already mapped them to frame pixels */
  for (int i = 0; i < n; i++) {
    yrt_detection *d = &dets[i];
    float xa = d->x0, ya = d->y0, xb = d->x1, yb = d->y1;
    yrt_orient_map_point(&m, &xa, &ya);
    yrt_orient_map_point(&m, &xb, &yb);
    d->x0 = fminf(xa, xb), d->x1 = fmaxf(xa, xb);
    d->y0 = fminf(ya, yb), d->y1 = fmaxf(ya, yb);
  }
  return YRT_OK;
}
