/* segment.c — instance masks of segment models (see segment.h). A mask is Ultralytics'
 * process_mask_native (what predict does with retina_masks=True, and its upsample-then-crop
 * variant): mask logits = coefficients x prototypes on the prototype grid, the letterbox's
 * padding cut off that grid, bilinear resize of the rest to the image (PyTorch interpolate,
 * align_corners=False), crop to the box (pixel x kept when x0 <= x < x1, as crop_mask), then
 * logit > 0, i.e. sigmoid > 0.5. Only the prototype cells a box's pixels read are computed, and
 * only for the detections the caller asks for (kept after NMS); nothing is allocated per frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "model_heads.h"
#include "segment.h"
#include "stages.h"

struct yrt_segment {
  int nc, nm, n_anchors;
  int ph, pw, in_w, in_h;
  int n_kept, full;   /* detections recorded; 0 before any yrt_session_detect */
  int32_t *anchor;    /* [n_anchors]: output0 column of each kept detection */
  float *box;         /* [n_anchors][4]: its box, image pixels from the letterbox's origin */
  float *logit;       /* [ph * pw]: mask logits on the prototype grid */
  yrt_letterbox lb;
};

static void input_dims(const yrt_model *m, int *w, int *h) {
  yrt_model_info info;
  yrt_model_get_info(m, &info);
  *w = info.input_w, *h = info.input_h;
}

yrt_status yrt_segment_create(const yrt_model *m, const yrt_allocator *alloc, int n_anchors, yrt_segment **out, yrt_error *err) {
  *out = NULL;
  const int nm = yrt_segment_channels(m);
  if (!nm || n_anchors < 1) return YRT_OK;
  yrt_segment *g = yrt_zalloc(alloc, 1, sizeof *g);
  if (!g) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the segment state");
  *out = g;
  g->nm = nm;
  g->nc = (int)m->meta->num_classes;
  g->n_anchors = n_anchors;
  int nm2;
  yrt_segment_proto_dims(&m->tensors[m->plan_outputs[1]], &nm2, &g->ph, &g->pw);
  input_dims(m, &g->in_w, &g->in_h);
  const size_t cells = (size_t)g->ph * (size_t)g->pw;
  g->anchor = yrt_alloc(alloc, (size_t)n_anchors * sizeof *g->anchor);
  g->box = yrt_alloc(alloc, (size_t)n_anchors * 4 * sizeof *g->box);
  g->logit = yrt_alloc(alloc, cells * sizeof *g->logit);
  if (!g->anchor || !g->box || !g->logit)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the segment state (%d anchors, %dx%d prototypes)",
                         n_anchors, g->pw, g->ph);
  return YRT_OK;
}

void yrt_segment_free(yrt_segment *g) {
  if (!g) return;
  yrt_free(g->anchor);
  yrt_free(g->box);
  yrt_free(g->logit);
  yrt_free(g);
}

void yrt_segment_forget(yrt_segment *g) {
  if (g) g->n_kept = 0, g->full = 0;
}

void yrt_segment_record(yrt_segment *g, const yrt_detection *dets, int n, const int *anchors, const yrt_letterbox *lb,
                        int full) {
  if (!g) return;
  g->n_kept = n < 0 ? 0 : n > g->n_anchors ? g->n_anchors : n;
  g->full = full;
  g->lb = *lb;
  for (int i = 0; i < g->n_kept; i++) {
    g->anchor[i] = anchors[i];
    g->box[4 * i + 0] = dets[i].x0 - lb->offset_x;
    g->box[4 * i + 1] = dets[i].y0 - lb->offset_y;
    g->box[4 * i + 2] = dets[i].x1 - lb->offset_x;
    g->box[4 * i + 3] = dets[i].y1 - lb->offset_y;
  }
}

/* The mask logit of prototype cell (y, x): coefficients . prototypes[:, y, x]. */
static float cell_logit(const yrt_tensor_rec *p, const void *data, const float *coef, size_t coef_step, int nm, int ph,
                        int pw, int y, int x) {
  const int nhwc = p->layout == YRT_LAYOUT_NHWC;
  const size_t cell = (size_t)y * (size_t)pw + (size_t)x;
  const size_t first = nhwc ? cell * (size_t)nm : cell, step = nhwc ? 1 : (size_t)ph * (size_t)pw;
  float acc = 0.0f;
  if (p->dtype == YRT_F32) {
    const float *v = (const float *)data + first;
    for (int k = 0; k < nm; k++) acc += coef[(size_t)k * coef_step] * v[(size_t)k * step];
  } else {
    const int8_t *q = (const int8_t *)data + first;
    for (int k = 0; k < nm; k++)
      acc += coef[(size_t)k * coef_step] * (((float)q[(size_t)k * step] - (float)p->zero_point) * p->scale);
  }
  return acc;
}

/* PyTorch's bilinear source index (align_corners=False): the two cells and the weight of the second. */
static void tap(int dst, float scale, int in, int *i0, int *i1, float *l) {
  float src = ((float)dst + 0.5f) * scale - 0.5f;
  if (src < 0.0f) src = 0.0f;
  int a = (int)src;
  if (a > in - 1) a = in - 1;
  *i0 = a;
  *i1 = a + 1 < in ? a + 1 : in - 1;
  *l = src - (float)a;
}

yrt_status yrt_session_mask(yrt_session *s, int det_index, uint8_t *out, int width, int height, size_t stride,
                                    yrt_error *err) {
  if (!s || !out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_mask: NULL argument");
  yrt_segment *g = yrt_stages_of(s)->segment;
  if (!g)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "yrt_session_mask: the model has no masks (task '%s', %u outputs): a segment model's output0 "
                         "carries mask coefficients and output1 the prototypes",
                         yrt_model_task(s->model), (unsigned)s->model->plan->n_outputs);
  if (!g->full)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "yrt_session_mask: no detections recorded (call yrt_session_detect first, or it failed), or "
                         "output0 was decoded threshold-aware without its coefficient rows");
  if (det_index < 0 || det_index >= g->n_kept)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_mask: detection %d of %d", det_index, g->n_kept);
  if (width != g->lb.src_w || height != g->lb.src_h || stride < (size_t)width)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_session_mask: a %dx%d mask (stride %zu) for a %dx%d image: the mask is the size of the "
                         "image (the frame's crop) yrt_session_detect ran on",
                         width, height, stride, g->lb.src_w, g->lb.src_h);
  const yrt_model *m = s->model;
  const yrt_tensor_rec *o = &m->tensors[m->plan_outputs[0]], *p = &m->tensors[m->plan_outputs[1]];
  /* the detection's coefficients: rows 4 + nc.. of its output0 column, or on an end-to-end model
   * columns 6.. of its row ([K, 6 + nm]) */
  const int e2e = (m->hdr->flags & YRT_FLAG_END2END) != 0;
  const size_t n_anchors = (size_t)o->dims[2], a = (size_t)g->anchor[det_index];
  const float *o0 = (const float *)(const void *)(s->arena + o->offset);
  const float *coef = e2e ? o0 + a * n_anchors + 6 : o0 + (size_t)(4 + g->nc) * n_anchors + a;
  const size_t coef_step = e2e ? 1 : n_anchors;
  const void *proto = s->arena + p->offset;
  /* the letterboxed image on the prototype grid (the padding cut off, as scale_masks) */
  const float sx = (float)g->pw / (float)g->in_w, sy = (float)g->ph / (float)g->in_h;
  const float ry = g->lb.ratio_y > 0.0f ? g->lb.ratio_y : g->lb.ratio;
  const float pl = g->lb.pad_left * sx, pt = g->lb.pad_top * sy;
  int left = (int)pl, top = (int)pt;
  int right = (int)(pl + (float)g->lb.src_w * g->lb.ratio * sx), bottom = (int)(pt + (float)g->lb.src_h * ry * sy);
  if (left > g->pw - 1) left = g->pw - 1;
  if (top > g->ph - 1) top = g->ph - 1;
  if (right > g->pw) right = g->pw;
  if (bottom > g->ph) bottom = g->ph;
  if (right <= left) right = left + 1;
  if (bottom <= top) bottom = top + 1;
  const int cw = right - left, ch = bottom - top;
  const float scale_x = (float)cw / (float)width, scale_y = (float)ch / (float)height;
  /* crop_mask: pixels x with x0 <= x < x1 */
  const float *b = &g->box[4 * det_index];
  /* clamped as floats first: a non-finite box gives an empty mask, never an undefined cast */
  const int xa = (int)ceilf(fminf(fmaxf(b[0], 0.0f), (float)width)), xb = (int)ceilf(fminf(fmaxf(b[2], 0.0f), (float)width));
  const int ya = (int)ceilf(fminf(fmaxf(b[1], 0.0f), (float)height)), yb = (int)ceilf(fminf(fmaxf(b[3], 0.0f), (float)height));
  for (int y = 0; y < height; y++) memset(out + (size_t)y * stride, 0, (size_t)width);
  if (xa >= xb || ya >= yb) return YRT_OK;
  /* only the cells the box's pixels read, each once */
  int cx0, cx1, cy0, cy1, dummy;
  float l;
  tap(xa, scale_x, cw, &cx0, &dummy, &l);
  tap(xb - 1, scale_x, cw, &dummy, &cx1, &l);
  tap(ya, scale_y, ch, &cy0, &dummy, &l);
  tap(yb - 1, scale_y, ch, &dummy, &cy1, &l);
  for (int cy = cy0; cy <= cy1; cy++)
    for (int cx = cx0; cx <= cx1; cx++)
      g->logit[(size_t)cy * (size_t)cw + (size_t)cx] =
          cell_logit(p, proto, coef, coef_step, g->nm, g->ph, g->pw, top + cy, left + cx);
  for (int y = ya; y < yb; y++) {
    int y0, y1;
    float ly;
    tap(y, scale_y, ch, &y0, &y1, &ly);
    const float *r0 = g->logit + (size_t)y0 * (size_t)cw, *r1 = g->logit + (size_t)y1 * (size_t)cw;
    uint8_t *row = out + (size_t)y * stride;
    for (int x = xa; x < xb; x++) {
      int x0, x1;
      float lx;
      tap(x, scale_x, cw, &x0, &x1, &lx);
      const float top_v = r0[x0] + (r0[x1] - r0[x0]) * lx, bot_v = r1[x0] + (r1[x1] - r1[x0]) * lx;
      row[x] = top_v + (bot_v - top_v) * ly > 0.0f;
    }
  }
  return YRT_OK;
}
