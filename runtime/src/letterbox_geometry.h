/* letterbox_geometry.h — where a letterboxed image lands in the network input (Ultralytics'
 * rules: r = min(dw/w, dh/h), new size = round-half-even(w*r), the odd padding pixel on the
 * right/bottom); shared by the JPEG letterbox (letterbox.c) and the frame path (frame.c). */
#ifndef YOLORT_LETTERBOX_GEOMETRY_H
#define YOLORT_LETTERBOX_GEOMETRY_H

#include "yolort.h"

typedef struct lb_geometry {
  double ratio;
  int new_w, new_h;
  int pad_left, pad_top;
} lb_geometry;

void yrt_letterbox_geometry(int src_w, int src_h, int dst_w, int dst_h, lb_geometry *g);

/* The public record of a letterbox (what yrt_postprocess needs to map boxes back) from its
 * geometry; offset_x / offset_y: where a crop of the source starts (0 for a whole image). */
void yrt_letterbox_record(const lb_geometry *g, int src_w, int src_h, int dst_w, int dst_h, float offset_x,
                          float offset_y, yrt_letterbox *lb);

#endif
