/*
 * convert.h — the converter back end: ONNX / IR graph -> .yrt bytes.
 *
 *   onnx_read -> ir_fold_constants -> ir_recover_integer_ops -> ir_infer_shapes -> ir_fold_batchnorm -> ir_qdq_annotate
 *   -> Detect head fusion (fuse_detect_head.c, else fuse_obj_head.c) -> ir_mark_fp32_region(keep_fp32) -> Conv+SiLU
 *   fusion -> layout + int8 selection + lowering to yrt nodes -> memory plan -> .yrt writer.
 *
 * The result is one 64-byte aligned buffer in the format of yolort_format.h, ready for
 * yrt_model_load_memory. See docs/convert.md for the rules.
 */
#ifndef YOLORT_CONVERT_H
#define YOLORT_CONVERT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"
#include "yolort.h"
#include "yolort_format.h"

typedef struct yrt_convert_options {
  const char *const *keep_fp32; /* ONNX node names kept in float, NULL-terminated (may be NULL) */
  int verbose;                  /* 1: print every lowered node to stderr */
  int synthetic;                /* 1: force YRT_FLAG_SYNTHETIC */
  const char *source;           /* recorded in META (file name); NULL: "onnx" */
  int exact_qdq;                /* 1: keep the QDQ graph's own quantization in the head too, to
                                   reproduce onnxruntime (default 0: head in float) */
  int no_fuse_head;             /* 1: keep the Detect head's decode as separate nodes (default 0:
                                   one detect_decode node; never under exact_qdq) */
  int no_qat_propagate;         /* 1: keep a QAT-layout graph's float tensors float (default 0:
                                   quantization propagated as TensorRT does, qdq_propagate.c) */
  int no_views;                 /* 1: every Concat / Split copies (default 0: zero-copy views
                                   where the kernels allow, plan_views.c) */
  int no_ties;                   /* 1: keep a foreign QDQ file's own Concat / Split input ranges
                                   (default 0: tied to the Concat's, qdq_tie.c) */
  int float_add;                /* 1: int8 Adds compute as the float chain (dequantize, add, quantize:
                                   onnxruntime's; default 0: fixed point, yrt_binary_arith) */
  int input_h, input_w;         /* image input size for a model exported with dynamic axes
                                   (yolort-convert --size); 0: the metadata's imgsz. A model with a
                                   fixed size must be given that size or none. */
  const float *anchors;         /* an objectness head that holds no anchors (raw YOLOv5 maps): w, h
                                   per grid and anchor in pixels (yolort-convert --anchors); NULL:
                                   YOLOv5's defaults, said in the head note */
  int n_anchors;                /* floats in anchors */
  int kpt_shape[2];             /* keypoints x values each of a pose head whose file does not say
                                   (yolort-convert --kpt-shape; a YOLO-Pose export has no
                                   metadata); 0, 0: the metadata's kpt_shape, else read off the
                                   head's structure */
  int raw_outputs;              /* 1: outputs taken as they are, whatever their layout (internal
                                   conversions: a head's numeric check, the quantizer's observers);
                                   0: an output0 in a head layout no fusion recognised is refused */
  const ir_preprocess *preprocess; /* yolort-convert --preprocess (set = 1): replaces whatever the
                                   metadata or a recognised family decided (NULL: theirs) */
  const char *class_names;      /* yolort-convert --names: '\n'-separated class names stored in the
                                   .yrt in place of the metadata's (after the head fusion, which
                                   they do not steer); their count must be the model's class count
                                   (else an error). NULL: the metadata's, if any */
} yrt_convert_options;

#define YRT_CONVERT_MAX_NOTES 96

/* One ONNX node that runs in float, and why. */
typedef struct yrt_convert_fp32_note {
  char node[96];
  char reason[48]; /* "head region", "excluded", "no int8 kernel: MatMul", "inputs not quantized" */
} yrt_convert_fp32_note;

/* What the conversion produced. Fixed size, no heap: copy or discard freely. */
typedef struct yrt_convert_report {
  int n_int8[YRT_OP_COUNT_];  /* lowered nodes by yrt_op whose output is int8 */
  int n_fp32[YRT_OP_COUNT_];  /* ... whose output is float (or int32) */
  int n_nodes, n_tensors, n_int8_nodes;
  int n_onnx_nodes;           /* live ONNX nodes lowered (after folding) */
  int n_fused_silu;           /* Conv+Sigmoid+Mul fused into one CONV2D */
  int n_fused_act;            /* Conv+Relu / LeakyRelu fused into one CONV2D */
  int head_fused;             /* 1: the head's decode became one DETECT_DECODE or OBJ_DECODE node */
  int head_fused_nodes;       /* ONNX nodes it replaced */
  char head_note[640];        /* what the head fusion did, or why it left the graph alone */
  int n_layout_transposes;    /* TRANSPOSE nodes the layout pass inserted */
  int n_split_concat;         /* Split outputs re-joined by a Concat read as the Split input */
  int n_tied;                 /* tensors given their Concat's quantization (ir_qdq_tie_concat) */
  int n_qoperators;           /* onnxruntime QOperator nodes (QLinearConv...) rewritten as QDQ */
  int n_half;                 /* float16 / bfloat16 constants widened to float32 (an FP16 export) */
  int n_avgpool;              /* AveragePool / GlobalAveragePool run as depthwise convs */
  int n_qat_propagated;       /* tensors given a quantization in a QAT-layout graph */
  int n_views;                /* tensors made views (no copy) of a Concat's or Split's buffer */
  int e2e;                    /* 1: the end-to-end head's selection became one DETECT_TOPK node */
  int nms_cut;                /* 1: the graph's own NonMaxSuppression was cut off (cut_graph_nms.c) */
  char nms_note[256];
  char nms_node[96];          /* the NonMaxSuppression's name */
  char e2e_note[128];
  int n_dynamic;              /* ConvInteger / MatMulInteger recovered from a quantize_dynamic
                                 export (recover_integer_ops.c) */
  int n_dynconv;              /* of those, convs run int8 with per-run input ranges */
  int n_i8f32;                /* convs run int8 with a float output (input, weights int8) */
  int n_conv16;               /* convs reading int16 activations (W8A16: an int16 Q/DQ on the input) */
  int n_fp32_onnx;            /* ONNX nodes run in float (all of them, not only those listed) */
  int n_notes;                /* entries filled in fp32[] (<= YRT_CONVERT_MAX_NOTES) */
  yrt_convert_fp32_note fp32[YRT_CONVERT_MAX_NOTES];
  uint64_t weight_bytes, arena_bytes, file_bytes;
  int input_w, input_h, num_classes;
  int synthetic, int8;
  int n_gemm;                 /* Gemm nodes rewritten as MatMul (+ Add) (ir_gemm_as_matmul) */
  int n_linear_conv;          /* dynamic MatMul [1, K] x [K, N] run as a 1x1 conv (ir_dynamic_linear_as_conv) */
  int classify;               /* 1: an image classifier (task 'classify'): no detect decode */
  int class_logits;           /* 1: its output is logits (YRT_FLAG_CLASS_LOGITS), 0: probabilities */
  char classify_note[224];    /* what the classifier recognition found */
  char preprocess[160];       /* the preprocessing stored (ir_preprocess_describe) */
  char preprocess_why[96];    /* where it came from: "default", "--preprocess", the metadata, a family */
  char names_note[160];       /* non-empty: the metadata's class names did not fit the class count */
  int no_names;               /* 1: the .yrt carries no class names (classes print as class0, ...) */
} yrt_convert_report;

/* Run the pass pipeline on g (it is rewritten in place), lower it and write .yrt bytes.
 * *yrt is 64-byte aligned (posix_memalign); free() it. o and rep may be NULL. */
yrt_status yrt_convert_graph(ir_graph *g, const yrt_convert_options *o, void **yrt, size_t *size,
                             yrt_convert_report *rep, yrt_error *err);

/* The converter's structural passes up to shapes, for tools that analyse a float graph as the
 * converter will see it (yolort-quantize, yolort-inspect): constants folded, an end-to-end head's
 * TopK selection fused into one node (its ReduceMax / TopK / GatherElements have no shape rule),
 * shapes inferred, average pools made depthwise convs (as the converter runs them). */
yrt_status yrt_convert_prepare_float(ir_graph *g, yrt_error *err);

/* onnx_read_file + yrt_convert_graph. The META source is the file's base name unless
 * o->source is set. */
yrt_status yrt_convert_onnx_file(const char *onnx_path, const yrt_convert_options *o, void **yrt,
                                 size_t *size, yrt_convert_report *rep, yrt_error *err);

/* Human-readable summary: ops by kind int8/fp32, float nodes and why, bytes. */
void yrt_convert_report_print(const yrt_convert_report *r, FILE *f);

#endif /* YOLORT_CONVERT_H */
