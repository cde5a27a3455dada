/* weight_scale.h — per-channel int8 weight scale that minimises the squared rounding + clipping
 * error of the channel's weights (instead of max-abs / 127). A max-abs scale spends the int8 range
 * on one outlier weight; a slightly smaller one rounds the many small weights more finely. */
#ifndef YOLORT_WEIGHT_SCALE_H
#define YOLORT_WEIGHT_SCALE_H

#include <stddef.h>

/* Scale s = alpha * max|w| / 127 over alpha in [0.5, 1] (steps of 0.005) with the least
 * sum (w - s * clamp(round(w / s), -127, 127))^2; max|w| / 127 on ties, 0 for an all-zero w. */
float weight_scale_mse(const float *w, size_t n);

#endif
