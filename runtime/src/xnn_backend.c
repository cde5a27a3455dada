/* xnn_backend.c — see xnn_backend.h. One #if per XNNPACK API generation: 1 = Debian's 2022
 * snapshot (*_qc8, setup binds pointers and the pool), 2 = 2023 (*_qs8_qc8w, code + weights
 * caches, reshape reports workspace size and alignment), 3 = 2024+ (weights cache only, reshape
 * reports the size). 0 = built without XNNPACK. */
#include "mem.h"
#include "xnn_backend.h"

#include <stdlib.h>

#ifndef YOLORT_XNNPACK_API
#define YOLORT_XNNPACK_API 0
#endif

#if YOLORT_XNNPACK_API == 0

int yrt_xnn_available(void) { return 0; }
int yrt_xnn_init(void) { return 0; }
yrt_xnn_conv *yrt_xnn_conv_f32(const yrt_xnn_conv_desc *d, const float *w, const float *b, float y_min,
                               float y_max, const float *x, float *y, pthreadpool_t pool) {
  (void)d, (void)w, (void)b, (void)y_min, (void)y_max, (void)x, (void)y, (void)pool;
  return NULL;
}
yrt_xnn_conv *yrt_xnn_conv_qs8(const yrt_xnn_conv_desc *d, int8_t x_zp, float x_scale, const float *w_scales,
                               const int8_t *w, const int32_t *b, int8_t y_zp, float y_scale, int8_t y_min,
                               int8_t y_max, const int8_t *x, int8_t *y, pthreadpool_t pool) {
  (void)d, (void)x_zp, (void)x_scale, (void)w_scales, (void)w, (void)b, (void)y_zp, (void)y_scale;
  (void)y_min, (void)y_max, (void)x, (void)y, (void)pool;
  return NULL;
}
int yrt_xnn_conv_run(const yrt_xnn_conv *c, pthreadpool_t pool) {
  (void)c, (void)pool;
  return 0;
}
void yrt_xnn_conv_free(yrt_xnn_conv *c) { (void)c; }

#else

#include <xnnpack.h>

struct yrt_xnn_conv {
  xnn_operator_t op;
  void *workspace; /* API 2/3: scratch XNNPACK asks for at reshape (owned) */
};

int yrt_xnn_available(void) { return 1; }
int yrt_xnn_init(void) { return (int)xnn_initialize(NULL); }

#if YOLORT_XNNPACK_API == 1
#define CACHES
#elif YOLORT_XNNPACK_API == 2
#define CACHES NULL, NULL,
#else
#define CACHES NULL,
#endif

/* Reshape + setup on the fixed pointers (API 2/3), or the one-step setup (API 1). */
static yrt_xnn_conv *finish(xnn_operator_t op, enum xnn_status xs, const yrt_xnn_conv_desc *d, const void *x,
                            void *y, pthreadpool_t pool, int is_f32) {
  if (xs != xnn_status_success) return NULL;
  yrt_xnn_conv *c = yrt_zalloc(NULL, 1, sizeof *c);
  if (!c) {
    xnn_delete_operator(op);
    return NULL;
  }
  c->op = op;
#if YOLORT_XNNPACK_API == 1
  xs = is_f32 ? xnn_setup_convolution2d_nhwc_f32(op, d->n, d->h, d->w, x, y, pool)
              : xnn_setup_convolution2d_nhwc_qc8(op, d->n, d->h, d->w, x, y, pool);
#else
  size_t ws = 0;
#if YOLORT_XNNPACK_API == 2
  size_t align = 0;
  xs = is_f32 ? xnn_reshape_convolution2d_nhwc_f32(op, d->n, d->h, d->w, &ws, &align, NULL, NULL, pool)
              : xnn_reshape_convolution2d_nhwc_qs8_qc8w(op, d->n, d->h, d->w, &ws, &align, NULL, NULL, pool);
  if (align < 64) align = 64;
#else
  const size_t align = 64;
  xs = is_f32 ? xnn_reshape_convolution2d_nhwc_f32(op, d->n, d->h, d->w, &ws, NULL, NULL, pool)
              : xnn_reshape_convolution2d_nhwc_qs8_qc8w(op, d->n, d->h, d->w, &ws, NULL, NULL, pool);
#endif
  if (xs == xnn_status_success && ws) {
    c->workspace = aligned_alloc(align, (ws + align - 1) / align * align); /* XNNPACK only: never with a caller allocator */
    if (!c->workspace) xs = xnn_status_out_of_memory;
  }
  if (xs == xnn_status_success)
    xs = is_f32 ? xnn_setup_convolution2d_nhwc_f32(op, c->workspace, x, y)
                : xnn_setup_convolution2d_nhwc_qs8_qc8w(op, c->workspace, x, y);
#endif
  if (xs != xnn_status_success) {
    yrt_xnn_conv_free(c);
    return NULL;
  }
  return c;
}

yrt_xnn_conv *yrt_xnn_conv_f32(const yrt_xnn_conv_desc *d, const float *w, const float *b, float y_min,
                               float y_max, const float *x, float *y, pthreadpool_t pool) {
  xnn_operator_t op = NULL;
  enum xnn_status xs = xnn_create_convolution2d_nhwc_f32(
      d->pad_t, d->pad_r, d->pad_b, d->pad_l, d->kh, d->kw, d->sh, d->sw, d->dh, d->dw, d->groups, d->group_cin,
      d->group_cout, d->x_stride, d->y_stride, w, b, y_min, y_max, 0, CACHES & op);
  return finish(op, xs, d, x, y, pool, 1);
}

yrt_xnn_conv *yrt_xnn_conv_qs8(const yrt_xnn_conv_desc *d, int8_t x_zp, float x_scale, const float *w_scales,
                               const int8_t *w, const int32_t *b, int8_t y_zp, float y_scale, int8_t y_min,
                               int8_t y_max, const int8_t *x, int8_t *y, pthreadpool_t pool) {
  xnn_operator_t op = NULL;
#if YOLORT_XNNPACK_API == 1
  enum xnn_status xs = xnn_create_convolution2d_nhwc_qc8(
#else
  enum xnn_status xs = xnn_create_convolution2d_nhwc_qs8_qc8w(
#endif
      d->pad_t, d->pad_r, d->pad_b, d->pad_l, d->kh, d->kw, d->sh, d->sw, d->dh, d->dw, d->groups, d->group_cin,
      d->group_cout, d->x_stride, d->y_stride, x_zp, x_scale, w_scales, w, b, y_zp, y_scale, y_min, y_max, 0,
      CACHES & op);
  return finish(op, xs, d, x, y, pool, 0);
}

int yrt_xnn_conv_run(const yrt_xnn_conv *c, pthreadpool_t pool) { return (int)xnn_run_operator(c->op, pool); }

void yrt_xnn_conv_free(yrt_xnn_conv *c) {
  if (!c) return;
  if (c->op) xnn_delete_operator(c->op);
  free(c->workspace);
  yrt_free(c);
}

#endif
