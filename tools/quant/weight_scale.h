/* weight_scale.h — the per-channel int8 weight scale of yolort-quantize (--weight-scale): max-abs
 * / 127 (default), the one minimising the squared rounding + clipping error (a max-abs scale
 * spends the int8 range on one outlier weight; a slightly smaller one rounds the many small
 * weights more finely), or the exact step of weights already on an int8 grid. */
#ifndef YOLORT_WEIGHT_SCALE_H
#define YOLORT_WEIGHT_SCALE_H

#include <stddef.h>

typedef enum weight_scale_kind {
  WEIGHT_SCALE_MAX = 0, /* max|w| / 127 */
  WEIGHT_SCALE_MSE,     /* weight_scale_mse */
  WEIGHT_SCALE_GRID     /* weight_scale_grid where the channel is on a grid, else max|w| / 127 */
} weight_scale_kind;

/* The scale of one channel of n weights by kind; 1 for an all-zero channel (any scale represents
 * it; 1 keeps its bias small in int32). */
float weight_scale_pick(weight_scale_kind kind, const float *w, size_t n);

/* weight_scale_mse: scale s = alpha * max|w| / 127 over alpha in [0.5, 1] (steps of 0.005) with the least
 * sum (w - s * clamp(round(w / s), -127, 127))^2; max|w| / 127 on ties, 0 for an all-zero w. */
float weight_scale_mse(const float *w, size_t n);

/* Exact scale for a channel whose weights already lie on an int8 grid (a model recovered from an
 * int8 export: w = k g with integer |k| <= 127). Re-quantizing such weights with max|w| / 127
 * rounds each of them a second time (e.g. max|k| = 57 gives the step 57 g / 127, and every
 * k * 127 / 57 rounds by up to half a step), an error against the very float model the int8 one
 * is compared with. The step g is looked for as min nonzero |w| / d, d = 1, 2, ... while
 * d max|w| / min|w| <= 127 (the smallest weight may be several steps: the coarsest such g is
 * taken); every w must equal k g to a relative 4e-6 (float
 * rounding of the recovered k * g). Returns g / floor(127 / max|k|): the finest step that keeps
 * every weight exact (the integers become k * floor(127 / max|k|)); 0 when the channel is not on
 * such a grid or is all zero (the caller then uses max|w| / 127). */
float weight_scale_grid(const float *w, size_t n);

#endif
