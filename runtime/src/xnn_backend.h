/* xnn_backend.h — the XNNPACK convolutions the runtime falls back to, behind one interface that
 * compiles against each XNNPACK API (YOLORT_XNNPACK_API, detected by cmake/xnnpack_api.cmake)
 * or without XNNPACK at all (YOLORT_XNNPACK_API 0: every create returns NULL and the caller uses
 * our kernels or the scalar reference). Operators are created and set up once on fixed pointers. */
#ifndef YOLORT_XNN_BACKEND_H
#define YOLORT_XNN_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "pthreadpool_opt.h"

typedef struct yrt_xnn_conv yrt_xnn_conv;

typedef struct yrt_xnn_conv_desc {
  uint32_t pad_t, pad_r, pad_b, pad_l, kh, kw, sh, sw, dh, dw, groups;
  size_t group_cin, group_cout;
  size_t x_stride, y_stride; /* channels between pixels */
  size_t n, h, w;            /* input batch and size */
} yrt_xnn_conv_desc;

/* 1 when built with XNNPACK. */
int yrt_xnn_available(void);
/* xnn_initialize (idempotent); returns XNNPACK's status, 0 on success or without XNNPACK. */
int yrt_xnn_init(void);

/* NULL when XNNPACK is absent, refuses the shape or memory runs out: the caller falls back. */
yrt_xnn_conv *yrt_xnn_conv_f32(const yrt_xnn_conv_desc *d, const float *w, const float *b, float y_min,
                               float y_max, const float *x, float *y, pthreadpool_t pool);
/* Per-channel int8 weights (w_scales[group_cout * groups]). */
yrt_xnn_conv *yrt_xnn_conv_qs8(const yrt_xnn_conv_desc *d, int8_t x_zp, float x_scale, const float *w_scales,
                               const int8_t *w, const int32_t *b, int8_t y_zp, float y_scale, int8_t y_min,
                               int8_t y_max, const int8_t *x, int8_t *y, pthreadpool_t pool);
/* 0 on success, else XNNPACK's status. */
int yrt_xnn_conv_run(const yrt_xnn_conv *c, pthreadpool_t pool);
void yrt_xnn_conv_free(yrt_xnn_conv *c);

#endif
