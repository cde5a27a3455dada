/* bias_correct.h — empirical bias correction (Nagel et al. 2019, "Data-Free Quantization
 * through Weight Equalization and Bias Correction", empirical variant).
 *
 * Quantizing a conv's weights (and its output) shifts the mean of each output channel: the
 * rounding errors of one channel's weights do not cancel on real inputs. For every conv whose
 * weights are int8 in the QDQ model, we run the QDQ model itself (yolort int8 engine) on
 * calibration images and measure, per output channel c,
 *     shift[c] = E[y_q[c]] - E[(W_f * x_q)[c] + b_f[c]]
 * where x_q is the conv's (dequantized int8) input in the quantized network, y_q its
 * int8 accumulator (W_q * x_q + b_q, dequantized) and W_f, b_f its float weights and bias: the
 * same inputs, so only this conv's own error is measured, not what upstream layers pass on.
 * Because the conv is linear, both means need only the mean of each input-patch element (per
 * input channel and kernel offset, padding counted as 0), not a float run. The requantized
 * int8 output is not used by default: its rounding error is zero-mean on smooth inputs, and on
 * flat image regions (letterbox padding) it is a chaotic function of the exact value, which a
 * bias cannot follow (observed_output = 1 uses it anyway, for comparison).
 * The int32 bias becomes round((b_q - shift) / (s_x * s_w[c])). Upstream corrections change x_q
 * a little, so a second pass measures (against the same float reference) what is left.
 * float_reference = 1 instead matches E[y_q] to the float network's conv output mean (the shift
 * a conv inherits from activation quantization upstream included), conv level by conv level.
 * On yolo11n neither mode improves mAP beyond noise (docs/accuracy.md), so both are opt-in. */
#ifndef YOLORT_BIAS_CORRECT_H
#define YOLORT_BIAS_CORRECT_H

#include "onnx.pb-c.h"
#include "yolort.h"

typedef struct bias_correct_options {
  const char *images; /* folder of calibration JPEGs */
  int max_images;     /* 0: all */
  int threads;
  int quiet;
  int observed_output; /* 1: E[y_q] is the observed int8 output (adds its rounding/clipping) */
  int float_reference; /* 1: E[y_f] from the float network run end to end: also corrects the
                          shift a conv inherits from its inputs (activation rounding, SiLU of
                          noisy values), so convs are corrected in waves, upstream first */
  int wave_levels;     /* with float_reference: conv levels per wave (0: all at once) */
} bias_correct_options;

typedef struct bias_correct_stats {
  int convs;          /* convs corrected */
  int skipped;        /* int8 convs left alone (no bias, auto_pad) */
  int waves;          /* quantized-model runs over the images */
  int images;
  double mean_abs_shift; /* mean over convs of rms(shift[c]) / rms(std(y[c])) before this pass */
} bias_correct_stats;

/* Measure the shifts of the int8 convs of the QDQ model qdq (written by qdq_write from ref)
 * against the BN-folded float model ref (same node and tensor names), and subtract them from
 * those convs' int32 biases in qdq, in place (same scales). Calling it again measures and
 * corrects what is left. Convs without a bias or with auto_pad are left alone (counted). */
yrt_status bias_correct_apply(Onnx__ModelProto *qdq, const Onnx__ModelProto *ref,
                              const bias_correct_options *o, bias_correct_stats *stats,
                              yrt_error *err);

#endif
