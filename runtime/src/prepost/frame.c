/* frame.c — the input stage, yrt_session_set_frame: a camera frame letterboxed straight into the
 * session's input by the yk_frame kernel (kernels/frame), threaded over output rows. The tap
 * tables live in the stage (sized for the input at creation), so setting a frame never
 * allocates. When the float input's only reader is a node whose row says it quantizes it element
 * by element (pointwise: YRT_POINTWISE_QUANTIZE; every int8 model whose first conv is int8), the
 * frame goes straight into that node's int8 output — the tables hold quantize(value of v), the
 * values the node would compute — and the next runs follow this stage's plan, made at creation
 * without the node (yrt_frame_plan), until another input call writes the float input again.
 * The model's preprocessing (yrt_preprocess) is parameters of the same pass: its scale, mean and
 * std are in the tables (one per network channel, the values yrt_preprocess_f32 writes), BGR is
 * the kernel's channel order, the placement its geometry. The memory plan reuses that int8
 * tensor's bytes once its readers are done, so when another tensor shares them the frame is also
 * kept in a copy made at creation (keep), written row by row with the frame, and put back before
 * every run after the first (restore_frame, the input stage of this stage's plan): a second run,
 * or a run after yrt_session_detect, computes on the same frame as the first, never on what the
 * previous run left there. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "frame_orient.h"
#include "letterbox_geometry.h"
#include "op_def.h"
#include "stages.h"
#include "caller_struct.h"
#include "yk_frame.h"
#include "yk_inline.h"

#define FRAME_MAX_SIDE 16384
/* Largest row stride taken (1 GiB): a garbage stride (2^62 was accepted) made plane + row * stride
 * wrap; with this bound and FRAME_MAX_SIDE rows, stride * rows fits in 64 bits, and it is also
 * checked against PTRDIFF_MAX for narrower targets. */
#define FRAME_MAX_STRIDE ((size_t)1 << 30)

struct yrt_frame_state {
  int dst_w, dst_h;
  int32_t *ofs;  /* 2 * (dst_w + dst_h) entries: x, cx, y, cy */
  int16_t *wt;
  int out_i8;
  void *dst;
  uint32_t quant_node;  /* quantizing node the int8 path replaces, YRT_NONE if none */
  yrt_plan plan;        /* the session's plan without quant_node (its list owned), when there is one */
  int8_t *keep;         /* copy of the quantized frame when a run reuses dst's bytes (owned), else NULL */
  size_t dst_bytes;     /* bytes of dst */
  int consumed;         /* a run has read dst since the frame was set: restore it from keep first */
  yrt_preprocess pre; /* the model's */
  float lut_f32[3 * 256];
  int8_t lut_i8[3 * 256];
  int lut_shift; /* yk_frame_lut_shift of lut_i8: the table as a byte add, else -1 */
};

/* 1 when another arena tensor shares bytes with tensor q (the plan reuses them during a run). A
 * view lives inside its holder, so holders stand for their views; a view held by q writes q. */
static int reused_by_run(const yrt_model *m, uint32_t q) {
  const yrt_tensor_rec *tq = &m->tensors[q];
  const uint64_t q0 = tq->offset, q1 = tq->offset + tq->nbytes;
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    const yrt_tensor_rec *t = &m->tensors[i];
    if (i == q || t->kind == YRT_TENSOR_CONST) continue;
    if (t->view_holder) {
      if (t->view_holder - 1 == q) return 1;
      continue;
    }
    if (t->offset < q1 && q0 < t->offset + t->nbytes) return 1;
  }
  return 0;
}

/* The input stage of the frame's plan when the run reuses the quantized frame's bytes: a run after
 * the first since the frame was set puts it back first. */
static yrt_status restore_frame(yrt_session *s, void *ctx, yrt_error *err) {
  (void)s, (void)err;
  struct yrt_frame_state *f = ctx;
  if (f->consumed) memcpy(f->dst, f->keep, f->dst_bytes);
  f->consumed = 1;
  return YRT_OK;
}

/* 1 when prepared node i quantizes its f32 input element by element into its int8 output (its row). */
static int quantizes(const yrt_session *s, uint32_t i) {
  const yrt_op_def *d = yrt_op_lookup(s->model->ops, s->model->nodes[i].op);
  int32_t unary;
  return d && d->pointwise && d->pointwise(&s->exec[i], &unary) == YRT_POINTWISE_QUANTIZE;
}

yrt_status yrt_frame_state_create(yrt_session *s, yrt_error *err) {
  const yrt_model *m = s->model;
  if (m->plan->n_inputs < 1) return YRT_OK;
  const yrt_tensor_rec *t = &m->tensors[m->plan_inputs[0]];
  /* only an image input takes frames: NHWC [1, H, W, 3] */
  if (t->layout != YRT_LAYOUT_NHWC || t->rank != 4 || t->dims[0] != 1 || t->dims[3] != 3 ||
      (t->dtype != YRT_F32 && t->dtype != YRT_I8))
    return YRT_OK;
  struct yrt_frame_state *f = yrt_zalloc(s->alloc, 1, sizeof *f);
  if (!f) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the frame tables");
  f->dst_h = (int)t->dims[1];
  f->dst_w = (int)t->dims[2];
  const size_t n = 2 * ((size_t)f->dst_w + (size_t)f->dst_h);
  f->ofs = yrt_alloc(s->alloc, n * sizeof *f->ofs);
  f->wt = yrt_alloc(s->alloc, n * sizeof *f->wt);
  yrt_stages_of(s)->frame = f;
  if (!f->ofs || !f->wt) return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the frame tables");
  f->out_i8 = t->dtype == YRT_I8;
  f->dst = s->arena + t->offset;
  f->quant_node = YRT_NONE;
  const yrt_tensor_rec *q = t;
  if (!f->out_i8) { /* a float input read only by one quantizing node to an int8 tensor of its shape */
    const uint32_t in_id = m->plan_inputs[0];
    uint32_t readers = 0, qn = YRT_NONE;
    for (uint32_t i = 0; i < m->n_nodes; i++)
      for (uint32_t k = 0; k < m->nodes[i].n_in; k++)
        if (m->nodes[i].in[k] == in_id) readers++, qn = i;
    const yrt_tensor_rec *o = readers == 1 ? &m->tensors[m->nodes[qn].out[0]] : NULL;
    if (o && quantizes(s, qn) && o->dtype == YRT_I8 && o->layout == YRT_LAYOUT_NHWC &&
        o->kind != YRT_TENSOR_CONST && yrt_tensor_numel(o) == yrt_tensor_numel(t)) {
      f->quant_node = qn;
      f->out_i8 = 1;
      f->dst = s->arena + o->offset;
      f->dst_bytes = yrt_tensor_numel(o);
      q = o;
      if (reused_by_run(m, m->nodes[qn].out[0]) && !(f->keep = yrt_alloc(s->alloc, f->dst_bytes)))
        return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the %zu-byte frame copy", f->dst_bytes);
      const yrt_status st = yrt_plan_leave_out(s, &s->every, qn, &f->plan, err);
      if (st != YRT_OK) return st;
      f->plan.input = f->keep ? restore_frame : NULL;
      f->plan.input_ctx = f;
    }
  }
  f->pre = m->pre;
  yrt_preprocess_lut_f32(&f->pre, f->lut_f32); /* as yrt_preprocess_f32 */
  for (int v = 0; v < 3 * 256; v++)
    f->lut_i8[v] = f->out_i8 ? yk_quantize1(f->lut_f32[v], q->scale, q->zero_point) : 0;
  f->lut_shift = yk_frame_lut_shift(f->lut_i8);
  return YRT_OK;
}

void yrt_frame_state_free(struct yrt_frame_state *f) {
  if (!f) return;
  yrt_plan_free(&f->plan);
  yrt_free(f->ofs);
  yrt_free(f->wt);
  yrt_free(f->keep);
  yrt_free(f);
}

const yrt_plan *yrt_frame_plan(const yrt_session *s) {
  const struct yrt_frame_state *f = yrt_stages_of(s)->frame;
  return f && f->quant_node != YRT_NONE ? &f->plan : &s->every;
}

static int is_yuv420(yrt_pixel_format p) { return p == YRT_PIX_NV12 || p == YRT_PIX_NV21 || p == YRT_PIX_I420; }

static const char *pix_name(yrt_pixel_format p) {
  static const char *const names[] = {"?", "RGB888", "BGR888", "RGBA8888", "BGRA8888", "NV12", "NV21", "I420", "GRAY8"};
  return p >= YRT_PIX_RGB888 && p <= YRT_PIX_GRAY8 ? names[p] : names[0];
}

/* Everything about the frame that can be wrong, with the field named. */
static yrt_status check_frame(const yrt_frame *fr, int *cx, int *cy, int *cw, int *ch, yrt_error *err) {
  static const int bpp[] = {0, 3, 3, 4, 4, 1, 1, 1, 1};
  if (fr->format < YRT_PIX_RGB888 || fr->format > YRT_PIX_GRAY8)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_frame: unknown pixel format %d", (int)fr->format);
  if (fr->width < 1 || fr->height < 1 || fr->width > FRAME_MAX_SIDE || fr->height > FRAME_MAX_SIDE)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_frame: frame size %dx%d (1..%d per side)",
                         fr->width, fr->height, FRAME_MAX_SIDE);
  if (fr->color != YRT_COLOR_BT601_LIMITED && fr->color != YRT_COLOR_BT601_FULL)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_frame: unknown colour range %d", (int)fr->color);
  const int yuv = is_yuv420(fr->format);
  const int planes = fr->format == YRT_PIX_I420 ? 3 : yuv ? 2 : 1;
  const size_t cwid = ((size_t)fr->width + 1) / 2;
  const size_t need[3] = {(size_t)fr->width * (size_t)bpp[fr->format], fr->format == YRT_PIX_I420 ? cwid : 2 * cwid,
                          cwid};
  for (int p = 0; p < planes; p++) {
    if (!fr->plane[p]) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_frame: plane[%d] is NULL", p);
    if (fr->stride[p] < need[p])
      return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_frame: stride[%d] = %zu < %zu bytes of a row",
                           p, fr->stride[p], need[p]);
    const size_t rows = p == 0 || !yuv ? (size_t)fr->height : ((size_t)fr->height + 1) / 2;
    if (fr->stride[p] > FRAME_MAX_STRIDE || fr->stride[p] > (size_t)PTRDIFF_MAX / rows)
      return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                           "yrt_session_set_frame: stride[%d] = %zu is over %zu bytes (or stride x %zu rows "
                           "overflows)",
                           p, fr->stride[p], FRAME_MAX_STRIDE, rows);
    /* what the rows reach: the last one needs only its own bytes, not a whole stride */
    const size_t reach = fr->stride[p] * (rows - 1) + need[p];
    if (fr->plane_bytes[p] && fr->plane_bytes[p] < reach)
      return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                           "yrt_session_set_frame: plane[%d] holds %zu bytes, %zu needed (%zu rows of stride %zu, "
                           "%zu bytes in the last; %dx%d %s)",
                           p, fr->plane_bytes[p], reach, rows, fr->stride[p], need[p], fr->width, fr->height,
                           pix_name(fr->format));
  }
  *cx = fr->crop_x, *cy = fr->crop_y, *cw = fr->crop_w, *ch = fr->crop_h;
  if (*cw == 0 || *ch == 0) *cx = *cy = 0, *cw = fr->width, *ch = fr->height;
  if (*cx < 0 || *cy < 0 || *cw < 1 || *ch < 1 || *cx > fr->width - *cw || *cy > fr->height - *ch)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_frame: crop %d,%d %dx%d outside the %dx%d frame",
                         fr->crop_x, fr->crop_y, fr->crop_w, fr->crop_h, fr->width, fr->height);
  if (yuv && ((*cx | *cy) & 1))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_frame: a 4:2:0 crop starts on even coordinates (%d,%d)",
                         *cx, *cy);
  return YRT_OK;
}

typedef struct frame_task {
  const yrt_session *s;
  const yk_frame_job *job;
  int8_t *keep; /* rows copied here too, or NULL */
} frame_task;

static void frame_range(const void *ctx, size_t r0, size_t r1) {
  const frame_task *t = ctx;
  yk_frame_rows(&t->s->isa, t->job, (int)r0, (int)r1);
  if (t->keep) { /* the int8 rows just written, while in cache */
    const size_t row = (size_t)t->job->dst_w * 3;
    memcpy(t->keep + r0 * row, (const int8_t *)t->job->dst + r0 * row, (r1 - r0) * row);
  }
}

yrt_status yrt_session_set_frame(yrt_session *s, const yrt_frame *fr, yrt_letterbox *lb, yrt_error *err) {
  if (!s || !fr) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_session_set_frame: NULL argument");
  struct yrt_frame_state *f = yrt_stages_of(s)->frame;
  if (!f)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt_session_set_frame: the model's input 0 is not an NHWC image");
  yrt_frame known; /* the caller's frame as this library knows it (struct_size) */
  yrt_status st = yrt_struct_read(fr, fr->struct_size, offsetof(yrt_frame, struct_size), sizeof known, &known,
                                  "yrt_session_set_frame: frame", err);
  if (st != YRT_OK) return st;
  fr = &known;
  int cx = 0, cy = 0, cw = 0, ch = 0;
  st = check_frame(fr, &cx, &cy, &cw, &ch, err);
  if (st != YRT_OK) return st;
  int rot = 0, mir = 0, flip_x = 0, flip_y = 0;
  if (yrt_orient_split(fr->orientation, &rot, &mir) != 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_session_set_frame: orientation %d (a yrt_orientation: 0..3 quarter turns, | 4 mirror)",
                         fr->orientation);
  yrt_orient_flips(rot, mir, &flip_x, &flip_y);
  if (is_yuv420(fr->format) && ((flip_x && (cw & 1)) || (flip_y && (ch & 1))))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG,
                         "yrt_session_set_frame: orientation %d reverses an odd side of the %dx%d 4:2:0 %s (chroma "
                         "would sit half a sample off): crop it to even sides",
                         fr->orientation, cw, ch, fr->crop_w && fr->crop_h ? "crop" : "frame");
  const int uw = rot & 1 ? ch : cw, uh = rot & 1 ? cw : ch; /* the upright crop the network sees */
  lb_geometry g;
  yrt_preprocess_geometry(&f->pre, uw, uh, f->dst_w, f->dst_h, &g);
  yk_frame_job j;
  memset(&j, 0, sizeof j);
  j.fmt = fr->format; /* yrt_pixel_format and YK_PIX_* share their numbering */
  j.full_range = fr->color == YRT_COLOR_BT601_FULL;
  static const int bpp[] = {0, 3, 3, 4, 4, 1, 1, 1, 1};
  j.plane[0] = fr->plane[0] + (size_t)cy * fr->stride[0] + (size_t)cx * (size_t)bpp[fr->format];
  j.stride[0] = fr->stride[0];
  if (is_yuv420(fr->format)) {
    const size_t cbpp = fr->format == YRT_PIX_I420 ? 1 : 2;
    for (int p = 1; p < (fr->format == YRT_PIX_I420 ? 3 : 2); p++) {
      j.plane[p] = fr->plane[p] + (size_t)(cy / 2) * fr->stride[p] + (size_t)(cx / 2) * cbpp;
      j.stride[p] = fr->stride[p];
    }
  }
  if (rot || mir) { /* the kernel reads each plane's crop upright through signed pixel steps */
    const int yuv = is_yuv420(fr->format), planes = fr->format == YRT_PIX_I420 ? 3 : yuv ? 2 : 1;
    for (int p = 0; p < planes; p++) {
      const int pb = p == 0 ? bpp[fr->format] : fr->format == YRT_PIX_I420 ? 1 : 2;
      const int pw = p == 0 ? cw : (cw + 1) / 2, ph = p == 0 ? ch : (ch + 1) / 2;
      yrt_orient_plane(j.plane[p], j.stride[p], pb, pw, ph, rot, mir, &j.plane[p], &j.step_x[p], &j.step_y[p]);
    }
    j.oriented = 1;
  }
  j.src_w = uw, j.src_h = uh;
  j.dst_w = f->dst_w, j.dst_h = f->dst_h;
  /* the part of the resized image written (a crop: its centre window), and where */
  j.new_w = g.win_w, j.new_h = g.win_h, j.pad_l = g.pad_left, j.pad_t = g.pad_top;
  j.x = (yk_frame_axis){f->ofs, f->wt};
  j.cx = (yk_frame_axis){f->ofs + f->dst_w, f->wt + f->dst_w};
  j.y = (yk_frame_axis){f->ofs + 2 * f->dst_w, f->wt + 2 * f->dst_w};
  j.cy = (yk_frame_axis){f->ofs + 2 * f->dst_w + f->dst_h, f->wt + 2 * f->dst_w + f->dst_h};
  yk_frame_plan_axis_window(uw, g.new_w, g.win_x, g.win_w, 1, &j.x);
  yk_frame_plan_axis_window(uh, g.new_h, g.win_y, g.win_h, 1, &j.y);
  if (is_yuv420(fr->format)) {
    yk_frame_plan_axis_window(uw, g.new_w, g.win_x, g.win_w, 2, &j.cx);
    yk_frame_plan_axis_window(uh, g.new_h, g.win_y, g.win_h, 2, &j.cy);
  }
  j.out_i8 = f->out_i8;
  j.lut_i8 = f->lut_i8;
  j.lut_shift = f->lut_shift;
  j.lut_is_shift = f->lut_shift >= 0;
  j.lut_f32 = f->lut_f32;
  j.dst = f->dst;
  j.bgr = f->pre.bgr;
  j.pad = (int)f->pre.pad;
  const frame_task t = {s, &j, f->quant_node != YRT_NONE ? f->keep : NULL};
  const size_t h = (size_t)j.dst_h;
  yrt_par_ranges(&s->par, h, yrt_par_chunk(h, 4 * yrt_par_threads(&s->par), 1, 1), frame_range, &t);
  s->plan = yrt_frame_plan(s); /* without the quantizing node when the frame holds its output */
  f->consumed = 0;
  /* an oriented frame's lb maps to the upright crop (yrt_frame_map_detections does the rest) */
  const int up = !rot && !mir;
  if (lb) yrt_letterbox_record(&g, uw, uh, f->dst_w, f->dst_h, up ? (float)cx : 0.0f, up ? (float)cy : 0.0f, lb);
  return YRT_OK;
}
