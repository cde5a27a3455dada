/* letterbox_sized.c — the *_sized forms of the calls that fill or read a yrt_letterbox (yolort.h):
 * the caller's struct may be of an older or newer header than this library's, so each goes
 * through this library's own struct and caller_struct.h copies what the caller's size covers.
 * A wrong size is refused before any work (nothing written, no input consumed). */
#include "caller_struct.h"

#define LB_WHAT "yrt_letterbox"

/* Checks an output letterbox's size up front, so a refused size leaves the session untouched. */
static yrt_status out_size_ok(const yrt_letterbox *lb, size_t lb_size, yrt_error *err) {
  if (lb && (lb_size < YRT_LETTERBOX_V1_SIZE || lb_size > YRT_STRUCT_SIZE_MAX))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, LB_WHAT ": size %zu is outside [%zu, %u] (pass sizeof the struct)",
                         lb_size, (size_t)YRT_LETTERBOX_V1_SIZE, (unsigned)YRT_STRUCT_SIZE_MAX);
  return YRT_OK;
}

static yrt_status write_out(yrt_status st, yrt_letterbox *lb, size_t lb_size, const yrt_letterbox *full,
                            yrt_error *err) {
  if (st || !lb) return st;
  return yrt_struct_write(lb, lb_size, full, sizeof *full, YRT_LETTERBOX_V1_SIZE, LB_WHAT, err);
}

/* An input letterbox (NULL stays NULL) as this library's struct. */
static yrt_status read_in(const yrt_letterbox *lb, size_t lb_size, yrt_letterbox *full, const yrt_letterbox **use,
                          yrt_error *err) {
  *use = NULL;
  if (!lb) return YRT_OK;
  *use = full;
  return yrt_struct_read_sized(lb, lb_size, sizeof *full, YRT_LETTERBOX_V1_SIZE, full, LB_WHAT, err);
}

yrt_status yrt_letterbox_f32_sized(const yrt_image *img, int dst_w, int dst_h, float *dst_nhwc, size_t dst_count,
                                   void *scratch, yrt_letterbox *lb, size_t lb_size, yrt_error *err) {
  yrt_letterbox full;
  yrt_status st = out_size_ok(lb, lb_size, err);
  if (!st) st = yrt_letterbox_f32(img, dst_w, dst_h, dst_nhwc, dst_count, scratch, lb ? &full : NULL, err);
  return write_out(st, lb, lb_size, &full, err);
}

yrt_status yrt_preprocess_f32_sized(const yrt_image *img, const yrt_preprocess *pp, int dst_w, int dst_h,
                                    float *dst_nhwc, size_t dst_count, void *scratch, yrt_letterbox *lb,
                                    size_t lb_size, yrt_error *err) {
  yrt_letterbox full;
  yrt_status st = out_size_ok(lb, lb_size, err);
  if (!st) st = yrt_preprocess_f32(img, pp, dst_w, dst_h, dst_nhwc, dst_count, scratch, lb ? &full : NULL, err);
  return write_out(st, lb, lb_size, &full, err);
}

yrt_status yrt_session_set_frame_sized(yrt_session *s, const yrt_frame *frame, yrt_letterbox *lb, size_t lb_size,
                                       yrt_error *err) {
  yrt_letterbox full;
  yrt_status st = out_size_ok(lb, lb_size, err);
  if (!st) st = yrt_session_set_frame(s, frame, lb ? &full : NULL, err);
  return write_out(st, lb, lb_size, &full, err);
}

yrt_status yrt_postprocess_sized(const float *output0, int num_classes, int num_anchors, const yrt_letterbox *lb,
                                 size_t lb_size, const yrt_postprocess_params *params, void *scratch,
                                 yrt_detection *dets, int cap, int *n_dets, yrt_error *err) {
  yrt_letterbox full;
  const yrt_letterbox *use;
  const yrt_status st = read_in(lb, lb_size, &full, &use, err);
  return st ? st : yrt_postprocess(output0, num_classes, num_anchors, use, params, scratch, dets, cap, n_dets, err);
}

yrt_status yrt_postprocess_e2e_sized(const float *dets6, int k, int num_classes, const yrt_letterbox *lb,
                                     size_t lb_size, const yrt_postprocess_params *params, yrt_detection *dets,
                                     int cap, int *n_dets, yrt_error *err) {
  yrt_letterbox full;
  const yrt_letterbox *use;
  const yrt_status st = read_in(lb, lb_size, &full, &use, err);
  return st ? st : yrt_postprocess_e2e(dets6, k, num_classes, use, params, dets, cap, n_dets, err);
}

yrt_status yrt_session_postprocess_sized(yrt_session *s, const yrt_letterbox *lb, size_t lb_size,
                                         const yrt_postprocess_params *params, yrt_detection *dets, int cap,
                                         int *n_dets, yrt_error *err) {
  yrt_letterbox full;
  const yrt_letterbox *use;
  const yrt_status st = read_in(lb, lb_size, &full, &use, err);
  return st ? st : yrt_session_postprocess(s, use, params, dets, cap, n_dets, err);
}
