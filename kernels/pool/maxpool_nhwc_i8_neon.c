/* maxpool_nhwc_i8_neon.c — NHWC int8 max pooling, 16 then 8 channels per vector (AArch64 and
 * ARMv7; the template maxpool_nhwc_i8_simd.h). */
#include <arm_neon.h>

#define POOL_FN yk_maxpool_nhwc_i8__neon
#define POOL_STEPS                                              \
  POOL_STEP(int8x16_t, 16, vdupq_n_s8, vmaxq_s8, vld1q_s8, vst1q_s8) \
  POOL_STEP(int8x8_t, 8, vdup_n_s8, vmax_s8, vld1_s8, vst1_s8)
#include "maxpool_nhwc_i8_simd.h"
