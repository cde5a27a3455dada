/* frame_orient.h — a rotated or mirrored frame (yrt_frame.orientation) as its upright image: the
 * upright crop's size, each plane's origin and pixel steps for the kernel (yk_frame_job.oriented),
 * and boxes mapped back to the stored frame. */
#ifndef YOLORT_FRAME_ORIENT_H
#define YOLORT_FRAME_ORIENT_H

#include <stddef.h>
#include <stdint.h>

#include "yolort.h"

/* The orientation's turn (0..3 quarter turns clockwise) and mirror bit; -1 when not 0..7. */
int yrt_orient_split(int orientation, int *rot, int *mir);

/* Which stored axes the upright image reads backwards: *flip_x, *flip_y (0 / 1). */
void yrt_orient_flips(int rot, int mir, int *flip_x, int *flip_y);

/* A plane whose crop starts at crop0 (w x h pixels of pb bytes, rows stride apart) read upright:
 * where upright pixel (0, 0) is stored and the byte steps along the upright x and y. */
void yrt_orient_plane(const uint8_t *crop0, size_t stride, int pb, int w, int h, int rot, int mir,
                      const uint8_t **origin, ptrdiff_t *step_x, ptrdiff_t *step_y);

/* How yrt_frame_map_detections maps an oriented frame's upright points (frame pixels as the
 * letterbox gave them) back to the stored frame: set once per frame, applied per point (a pose
 * model's keypoints, read after the detections). */
typedef struct yrt_orient_map {
  int rot, mir;     /* 0, 0: points stay as they are */
  double w, h;      /* the stored crop's size */
  double cx, cy;    /* its origin in the frame */
} yrt_orient_map;
yrt_status yrt_orient_map_of(const yrt_frame *frame, yrt_orient_map *m, yrt_error *err);
void yrt_orient_map_point(const yrt_orient_map *m, float *x, float *y);

#endif
