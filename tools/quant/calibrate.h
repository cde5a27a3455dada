/* calibrate.h — post-training quantization of a float ONNX model: choose which activations to
 * quantize, observe them on calibration images with our own FP32 engine, pick ranges, and write
 * the QDQ model (qdq_writer.h).
 *
 * Which tensors: the inputs and outputs of every node that yolort runs in int8 (Conv, Add, Mul,
 * Sigmoid, Concat, Split, MaxPool, Resize, outside the FP32 head region and the excluded nodes).
 * The Sigmoid output of a SiLU is left float: the converter folds Conv+SiLU into one lookup table
 * from the conv's int8 output, so quantizing it would only add error. Likewise the outputs that
 * only the float head reads (the last convs' DFL and class logits) stay float.
 * How they are observed: the float model is converted with every such tensor added as a graph
 * output (which also keeps them from being fused away), and run on each letterboxed image. */
#ifndef YOLORT_CALIBRATE_H
#define YOLORT_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "calib_stats.h"
#include "onnx.pb-c.h"
#include "qdq_writer.h"
#include "yolort.h"

typedef struct calib_options {
  yrt_calib_method method;
  double percentile;          /* for PERCENTILE, e.g. 99.99 */
  int uint8_acts;             /* write uint8 activations */
  const char *const *exclude; /* node names kept float (NULL-terminated) */
  int max_images;             /* 0: all */
  int threads;
  int quiet;                  /* no progress bar */
  int weight_scale;           /* per-channel weight scale: a weight_scale_kind (weight_scale.h) */
  int no_concat_ties;         /* keep a Concat-only input's own parameters (--no-concat-ties) */
  int float_head_weights;     /* convs whose output stays float keep float weights (run in float) */
  const char *const *int16_acts; /* activations written int16 (symmetric, MinMax; NULL-terminated,
                                    may be NULL): --int16-stem / --int16 (calib_int16_inputs) */
} calib_options;

typedef struct calib_tensor {
  char *name;
  calib_hist hist;
  float scale;
  int32_t zero_point;
} calib_tensor;

typedef struct calib_result {
  calib_tensor *t;
  int n;
  int images;
  int *tie; /* [n]: index whose parameters t[i] shares (data movement: MaxPool, Resize, Split,
               Reshape, Transpose, Slice output = its input, so no requantization), or -1 */
  int *silu_out;  /* [n]: for a conv output only a SiLU reads, the index of the SiLU's output, or -1 */
  int silu_range; /* calib_choose narrows those conv outputs to what the SiLU table can use
                     (silu_range.h); on by default (calib_collect), --no-silu-range clears it */
  float *factor;  /* [n] or NULL (all 1): calib_choose scales each tensor's own range by it
                     (range_search.h); a tied tensor follows its root's */
} calib_result;

/* Which activations to quantize in the (BatchNorm-folded) float model m. */
/* *ties (may be NULL) gets n entries: for a data-movement output, the index of its input;
 * *silu_outs (may be NULL) n entries: for a conv output read only by a SiLU (Sigmoid + Mul), the
 * index of the Mul's output when that is selected too, else -1. concat_ties: a Concat input that
 * only the Concat reads and that a compute op makes is tied to the Concat output. */
yrt_status calib_select_tensors(const Onnx__ModelProto *m, const char *const *exclude, char ***names,
                                int *n, int **ties, int **silu_outs, int concat_ties, yrt_error *err);

/* W8A16: the input tensors of the first `first_n` Convs (topological order) and of the Convs whose
 * names match a pattern (NULL-terminated, may be NULL; ir_name_matches), excluded ones skipped:
 * the activations yolort-quantize writes int16 (--int16-stem N, --int16 PATTERN). *names owned
 * (free each, then the array). */
yrt_status calib_int16_inputs(const Onnx__ModelProto *m, int first_n, const char *const *patterns,
                              const char *const *exclude, char ***names, int *n, yrt_error *err);

/* The nodes of the (BatchNorm-folded) float model m computed only from feature maps at stride
 * <= max_stride (ir_stem_nodes): names to keep in float with --float-stem. */
yrt_status calib_stem_nodes(const Onnx__ModelProto *m, int max_stride, char ***names, int *n,
                            yrt_error *err);

/* Observe the selected tensors on the images of calib_dir and choose their int8 parameters. */
yrt_status calib_collect(const Onnx__ModelProto *m, const char *calib_dir, const calib_options *o,
                         calib_result *out, yrt_error *err);

/* Re-choose parameters from the collected histograms with another method (cheap). */
void calib_choose(calib_result *r, yrt_calib_method method, double percentile);

void calib_result_free(calib_result *r);

/* Insert the Q/DQ pairs with r's current parameters into the BN-folded m (in place). */
yrt_status calib_write_qdq(Onnx__ModelProto *m, const calib_result *r, const calib_options *o,
                           yrt_error *err);

/* The QDQ model of r's current parameters, from the serialised BN-folded float model `folded`
 * (loaded afresh, so the caller's copy stays float). *out is NULL on error. */
yrt_status calib_qdq_from_folded(const uint8_t *folded, size_t folded_size, const calib_result *r,
                                 const calib_options *o, Onnx__ModelProto **out, yrt_error *err);

#endif
