/* letterbox_geometry.h — where an image lands in the network input (letterbox_geometry.c), shared
 * by the JPEG path (prepost/letterbox.c) and the frame path (prepost/frame.c) so both place, scale
 * and normalise alike, and by the loader's check of META's preprocessing.
 * Letterbox (Ultralytics' rules): r = min(dw/w, dh/h), new size = round-half-even(w*r), the odd
 * padding pixel on the right/bottom (centred) or all padding right/bottom (top-left). Stretch:
 * both axes to the input. Crop: r = max(dw/w, dh/h) (the shorter side fits), the centre window. */
#ifndef YOLORT_LETTERBOX_GEOMETRY_H
#define YOLORT_LETTERBOX_GEOMETRY_H

#include "yolort.h"

typedef struct lb_geometry {
  double ratio, ratio_y;          /* scale along x and y */
  int new_w, new_h;               /* the resized image */
  int win_x, win_y, win_w, win_h; /* the part of it written (all of it but for a crop) */
  int pad_left, pad_top;          /* where that part lands in the input */
} lb_geometry;

/* The default: a centred letterbox. */
void yrt_letterbox_geometry(int src_w, int src_h, int dst_w, int dst_h, lb_geometry *g);
/* pp's placement (NULL: the default); pp already checked. */
void yrt_preprocess_geometry(const yrt_preprocess *pp, int src_w, int src_h, int dst_w, int dst_h, lb_geometry *g);

/* The public record of a placement (what yrt_postprocess needs to map boxes back) from its
 * geometry; offset_x / offset_y: where a crop of the source starts (0 for a whole image). */
void yrt_letterbox_record(const lb_geometry *g, int src_w, int src_h, int dst_w, int dst_h, float offset_x,
                          float offset_y, yrt_letterbox *lb);

/* pp (loaded or a caller's) is one this runtime applies: flags 0/1, a known resize mode, pad an
 * integer in 0..255, scale finite > 0, mean finite, std finite > 0. where prefixes the message. */
yrt_status yrt_preprocess_check(const yrt_preprocess *pp, const char *where, yrt_error *err);

/* The input value of every 8-bit level for each network channel: lut[256 * c + v] =
 * (v * scale - mean[c]) / std[c], v * scale computed as v / 255 when scale is 1/255 (the values
 * the JPEG path has always written). The JPEG and the frame paths both read this table. */
void yrt_preprocess_lut_f32(const yrt_preprocess *pp, float lut[3 * 256]);

#endif
