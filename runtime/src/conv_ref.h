/* conv_ref.h — scalar reference 2-D convolution, NHWC, grouped, float and int8.
 * Used when XNNPACK cannot create an operator for a shape, and as the test oracle. */
#ifndef YOLORT_CONV_REF_H
#define YOLORT_CONV_REF_H

#include <stdint.h>

typedef struct yrt_conv_geom {
  int n, h, w, cin;    /* input [n][h][w][cin] */
  int oh, ow, cout;    /* output [n][oh][ow][cout] */
  int kh, kw, sh, sw, pad_t, pad_l, dh, dw, groups;
  int xs, ys;          /* pixel strides of x and y in elements; 0 = dense (cin, cout) */
} yrt_conv_geom; /* weights [cout][kh][kw][cin/groups] */

/* y = clamp(conv(x, w) + bias, out_min, out_max). bias may be NULL. */
void yrt_conv_ref_f32(const yrt_conv_geom *g, const float *x, const float *w, const float *bias,
                      float out_min, float out_max, float *y);

/* acc = bias[c] + sum (x - x_zp) * w (padding contributes 0);
 * y = clamp(round_half_even(acc * requant_scale[c]) + y_zp, out_min, out_max),
 * the fp32 requantization XNNPACK's qc8 kernels do (requant_scale[c] = sx * sw[c] / sy). */
void yrt_conv_ref_i8(const yrt_conv_geom *g, const int8_t *x, int32_t x_zp, const int8_t *w,
                     const int32_t *bias, const float *requant_scale, int32_t y_zp, int8_t out_min,
                     int8_t out_max, int8_t *y);

/* onnxruntime's ConvInteger, Cast, Mul, Add (a dynamically quantized conv, any groups):
 * acc = sum (x - x_zp) * (w + woff[c]) exactly in integers (woff may be NULL: 0),
 * y = (float)acc * scale[c] + bias[c] (bias may be NULL). No clamp, no activation. */
void yrt_conv_ref_dyn(const yrt_conv_geom *g, const int8_t *x, int32_t x_zp, const int8_t *w,
                      const int32_t *woff, const float *scale, const float *bias, float *y);

#endif
