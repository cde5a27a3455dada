/*
 * yolort_format.h — the .yrt model file, field by field.
 *
 * A .yrt file is one flat little-endian image that can be mmap'ed or kept in
 * flash and used in place (ggml/gguf style). The runtime never trusts it:
 * every offset, size, index and enum is checked on load (runtime/src/model_load.c).
 *
 * Layout:
 *   yrt_file_header                      (at offset 0, 64 bytes)
 *   yrt_section_rec[n_sections]          (at header.section_table_offset)
 *   sections, each 64-byte aligned:
 *     YRT_SEC_STRINGS   NUL-terminated UTF-8 strings; "offset into this section" refs
 *     YRT_SEC_TENSORS   yrt_tensor_rec[]
 *     YRT_SEC_NODES     yrt_node_rec[]   (execution order)
 *     YRT_SEC_WEIGHTS   constant data; every constant tensor 64-byte aligned
 *     YRT_SEC_PLAN      yrt_plan_rec + uint32 input ids + uint32 output ids
 *     YRT_SEC_META      yrt_meta_rec
 *     YRT_SEC_PACKED    optional (header flag PACKED): conv weights already packed for a named
 *                       target, yrt_packed_hdr + yrt_packed_rec[n] + the blocks
 *   crc32 (IEEE, zlib polynomial) covers bytes [64, file_size).
 *
 * The one .yrt format module (gguf style): these records, and below them the functions that
 * frame an image (CRC, header, section map and layout, op names, dtype sizes), implemented in
 * runtime/src/yrt_format.c. The loader, the converter's writer, yolort-bench and the tests all
 * use it; none reads or writes the framing on its own. Plain C11.
 */
#ifndef YOLORT_FORMAT_H
#define YOLORT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "yolort.h"

#define YRT_MAGIC 0x31545259u /* "YRT1" read as little-endian uint32 */
#define YRT_VERSION 2u /* 2: tensor views (yrt_tensor_rec grew to 96 bytes) */
/* Oldest version this runtime loads (docs/compatibility.md). A version 1 file is version 2
 * without views: its 88-byte tensor records are widened on load (yrt_file_upgrade_tensors). */
#define YRT_VERSION_MIN 1u
#define YRT_TENSOR_REC_V1_BYTES 88u
#define YRT_ALIGN 64u
#define YRT_MAX_RANK 6
#define YRT_MAX_NODE_IO 8
/* The most nodes and tensors a .yrt holds. Real detectors lower to under 2000 nodes; the loader
 * and the converter refuse more, which keeps validation and memory planning bounded (an 80k-node
 * file took 28.5 s to load; issue 19). */
#define YRT_MAX_NODES 16384
#define YRT_MAX_TENSORS 65536
#define YRT_NODE_PARAMS 24
#define YRT_NODE_FPARAMS 4
#define YRT_NONE 0xFFFFFFFFu /* "no tensor" in an input slot */

typedef struct yrt_file_header {
  uint32_t magic;       /* YRT_MAGIC */
  uint32_t version;     /* YRT_VERSION */
  uint64_t file_size;   /* total bytes, must equal the buffer size */
  uint32_t crc32;       /* over [64, file_size) */
  uint32_t n_sections;  /* <= 16 */
  uint64_t section_table_offset;
  uint32_t flags;       /* YRT_FLAG_* */
  uint32_t reserved[7];
} yrt_file_header; /* 64 bytes */

enum yrt_file_flags {
  YRT_FLAG_SYNTHETIC = 1u << 0, /* weights are generated: detections meaningless */
  YRT_FLAG_INT8 = 1u << 1,      /* at least one int8 node */
  YRT_FLAG_END2END = 1u << 2,   /* output 0 is [1, K, 6 (+ extra)] final detections (DETECT_TOPK): no NMS */
  YRT_FLAG_CLASS_LOGITS = 1u << 3, /* task "classify": output 0 holds logits (the graph ends in no
                                      Softmax), yrt_session_classify applies one; without it the
                                      output already holds probabilities */
  YRT_FLAG_PACKED = 1u << 4,       /* the file has a PACKED section (yolort-convert --target): a
                                      runtime before it refuses the flag, naming it unknown */
  YRT_FLAG_OBB_RAW = 1u << 5,      /* an OBB_DECODE reads its angle raw (YRT_OBB_RAW): runtimes
                                      before the field would read it as the sigmoid form, so the
                                      bit makes them refuse the file instead of decode garbage */
  YRT_FLAG_KNOWN_ = 0x3Fu,         /* every bit above: others are refused on load (UNSUPPORTED) */
};

enum yrt_section_kind {
  YRT_SEC_STRINGS = 1,
  YRT_SEC_TENSORS = 2,
  YRT_SEC_NODES = 3,
  YRT_SEC_WEIGHTS = 4,
  YRT_SEC_PLAN = 5,
  YRT_SEC_META = 6,
  YRT_SEC_PACKED = 7, /* optional: present exactly when the header has YRT_FLAG_PACKED */
  YRT_SEC_COUNT_ /* kinds are 1..YRT_SEC_COUNT_-1, each present exactly once (PACKED: at most once) */
};

/* PACKED: weights of int8 convs in the layout our kernel for one target packs them into (the
 * runtime's own packer wrote them: yolort-convert --target), used in place by a session whose
 * kernel choice for the node has exactly that layout, else ignored (the weights are packed from
 * WEIGHTS as without the section). Targets by the CPU features they assume: */
enum yrt_pack_target {
  YRT_PACK_X86_AVX2 = 1,       /* "x86-avx2": AVX2 + FMA */
  YRT_PACK_X86_AVXVNNI = 2,    /* "x86-avxvnni": + AVX-VNNI (256-bit) */
  YRT_PACK_X86_AVX512VNNI = 3, /* "x86-avx512vnni": AVX-512 F/BW/VL + VNNI + VBMI */
  YRT_PACK_X86_AMX = 4,        /* "x86-amx": the above + AMX-INT8 */
  YRT_PACK_AARCH64_NEON = 5,   /* "aarch64-neon": ARMv8.0 */
  YRT_PACK_AARCH64_SDOT = 6,   /* "aarch64-sdot": ARMv8.2 dot product */
  YRT_PACK_TARGET_COUNT_
};

typedef struct yrt_packed_hdr {
  uint32_t target;    /* yrt_pack_target */
  uint32_t n_entries; /* records after this header, by strictly increasing node */
  uint32_t reserved[6];
} yrt_packed_hdr; /* 32 bytes */

/* One conv's packed weights: the layout fields of yk_qconv (kernels/include/yk_qconv.h) its
 * packing was made for, and where the block lies (offset from the section start, YRT_ALIGN-aligned). */
typedef struct yrt_packed_rec {
  uint32_t node;
  int32_t variant, mr, nz, seg_span, nseg, seg_bytes, w_sym, out_f32;
  uint32_t reserved[3];
  uint64_t offset, size;
} yrt_packed_rec; /* 64 bytes */
#define YRT_MAX_SECTIONS 16u

typedef struct yrt_section_rec {
  uint32_t kind;
  uint32_t reserved;
  uint64_t offset; /* from file start, multiple of YRT_ALIGN */
  uint64_t size;
} yrt_section_rec; /* 24 bytes */

enum yrt_dtype {
  YRT_F32 = 1,
  YRT_I8 = 2,  /* activations and weights; uint8 models are shifted by -128 at conversion */
  YRT_I32 = 3, /* conv bias (scale = s_x * s_w[c]), gather indices */
  YRT_I16 = 4, /* symmetric int16 activations (zero point 0, one scale, ACT only): the
                  output of a QUANTIZE, the input of a CONV2D with i8 weights and i8 output (W8A16).
                  YRT_VERSION unchanged: only files using it need it, and older runtimes refuse
                  those by the dtype ("unknown dtype 4") */
};

enum yrt_tensor_kind {
  YRT_TENSOR_CONST = 1,  /* data at offset into YRT_SEC_WEIGHTS */
  YRT_TENSOR_ACT = 2,    /* lives in the arena at offset */
  YRT_TENSOR_INPUT = 3,  /* graph input, in the arena */
  YRT_TENSOR_OUTPUT = 4, /* graph output, in the arena */
};

enum yrt_layout {
  YRT_LAYOUT_PLAIN = 0, /* physical dims == logical ONNX dims */
  YRT_LAYOUT_NHWC = 1,  /* rank 4, logical NCHW stored as dims {N,H,W,C} */
};

typedef struct yrt_tensor_rec {
  uint32_t name;        /* string offset */
  uint32_t dtype;       /* yrt_dtype */
  uint32_t kind;        /* yrt_tensor_kind */
  uint32_t layout;      /* yrt_layout */
  uint32_t rank;        /* 0..YRT_MAX_RANK */
  int32_t dims[YRT_MAX_RANK]; /* PHYSICAL dims, row-major, unused = 1 */
  uint64_t offset;      /* CONST: into weights section; ACT/INPUT/OUTPUT: into arena */
  uint64_t nbytes;      /* = product(dims) * sizeof(dtype) */
  /* quantization (I8, and I32 bias): per-tensor, or per-channel when n_scales > 1 */
  float scale;
  int32_t zero_point;
  uint32_t q_axis;      /* physical axis of per-channel scales */
  uint32_t n_scales;    /* 0/1 = per-tensor; else float[n_scales] at scales_offset in weights */
  uint64_t scales_offset;
  /* Views (version 2): an ACT tensor stored inside another one's buffer, as channels
   * [view_channel, view_channel + C) of that NHWC int8 tensor (the "holder": pixel stride = the
   * holder's C, offset = holder offset + view_channel, same quantization). A conv writes straight
   * into a Concat's buffer, a conv reads a Split half in place; the CONCAT / SLICE node that would
   * copy it then copies nothing. Only int8 CONV2D (groups 1) write views and only they, SLICE
   * and the holder's own CONCAT read them (model_validate_views.c). 0 = own buffer. */
  uint32_t view_holder;  /* 0, or 1 + index of the holding tensor (itself not a view) */
  uint32_t view_channel; /* first channel inside the holder */
} yrt_tensor_rec;

/* Operators. Activations are NHWC for rank 4; all axes/perms below are PHYSICAL.
 * dtype of a node = dtype of its out[0] (int8 kernels when I8). */
enum yrt_op {
  /* in: x, w, [bias], [woff]. f32 w: [Cout][kh][kw][Cin/g]; i8 w: same, per-channel scales
   * on axis 0; i32 bias. p: see YRT_CONV_P_*. i8: requant fp32, then optional LUT.
   * woff (in[YRT_CONV_IN_WOFFSET], dynamically quantized convs only: f32 x, i8 w, f32 y): I32
   * CONST [Cout], the export's integer weights are w + woff[c] (uint8 weights with a zero point
   * reach -255..255); the conv adds woff[c] * sum(x - x_zp) over the window. */
  YRT_OP_CONV2D = 1,
  /* in: a, b (same rank, broadcast where dim==1). p[0] = yrt_binary_kind. */
  YRT_OP_BINARY = 2,
  /* f32 only. p[0] = yrt_unary_kind, f[0] = alpha (leaky). */
  YRT_OP_UNARY = 3,
  /* i8 -> i8 through in[1] = CONST I8 tensor of 256 entries indexed by (uint8)(x + 128). */
  YRT_OP_LUT = 4,
  /* n inputs, p[0] = axis. i8: each input requantized to out's scale/zp. */
  YRT_OP_CONCAT = 5,
  /* out[i] = in[0][starts + k*steps]; p[0..5] starts, p[6..11] steps (per physical axis);
   * out dims give the counts. Covers Slice and each output of Split. */
  YRT_OP_SLICE = 6,
  /* p[0..5] = perm (physical in -> physical out). */
  YRT_OP_TRANSPOSE = 7,
  /* byte copy, same element count (Reshape/Flatten/Squeeze/Unsqueeze). */
  YRT_OP_RESHAPE = 8,
  /* NHWC. p: kh, kw, sh, sw, pad_t, pad_l, pad_b, pad_r, dh, dw. */
  YRT_OP_MAXPOOL = 9,
  /* NHWC nearest. in_y = min(floor(out_y / f[0]), H-1) etc.; p[0] = nearest mode (0 floor),
   * p[1] = coordinate mode (0 asymmetric). f[0] = scale_h, f[1] = scale_w. Optional in[1]: a
   * constant of 256 int8, the table each int8 value goes through (a requantization to the
   * output's grid; batch 1). */
  YRT_OP_RESIZE_NEAREST = 10,
  /* a [..., M, K] x b [..., K, N], batch dims broadcast; same rank. f32, or all three I8
   * per-tensor (ONNX QLinearMatMul: exact int32 sums of (a - za)(b - zb), requantized by
   * (sa * sb) / sy as the int8 conv's output stage; K at most YRT_MATMUL_I8_MAX_K).
   * p[0] = YRT_MATMUL_TOKENS (I8 only): heads of token-major tensors, a PLAIN [1, H, M, K], b NHWC
   * [1, h, w, H N] with h w = K, y NHWC [1, h', w', H N] with h' w' = M:
   * y[i][hd N + n] = sum_k a[hd][i][k] b[k][hd N + n] (the attention's P x V^T, written NHWC). */
  YRT_OP_MATMUL = 11,
  /* f32: p[0] = axis. i8 -> i8 (p[0] the last axis, at most YRT_SOFTMAX_I8_MAX_LEN long): each
   * row dequantized, softmax, times f[0] (onnxruntime's QLinearSoftmax rounding, see
   * docs/convert.md), quantized: the f32 chain DEQUANTIZE, SOFTMAX, BINARY MUL, QUANTIZE row by
   * row, bit for bit. An optional in[1] (i8 only), a constant of 256 int8, is a LUT the codes go
   * through first (the LUT node before it: the attention's Mul by 1 / sqrt(d)); its codes are
   * dequantized with scale f[1] and zero point p[1]. */
  YRT_OP_SOFTMAX = 12,
  /* f32 -> i8 with out's scale/zp: saturate(round_half_even(x / s) + zp). */
  YRT_OP_QUANTIZE = 13,
  /* i8 -> f32 with in's scale/zp. */
  YRT_OP_DEQUANTIZE = 14,
  /* in: data, indices (CONST I32). p[0] = axis. */
  YRT_OP_GATHER = 15,
  /* The Detect head's decode (DFL softmax + projection, dist2bbox with the anchor grid, strides,
   * class sigmoid) in one node. p: YRT_DETECT_P_*. in[0..S-1] box logits NHWC [1,H,W,4*reg_max],
   * in[S..2S-1] class logits NHWC [1,H,W,nc] (i8 per-tensor or f32), in[2S] CONST f32 [reg_max]
   * DFL projection. out: f32 PLAIN [1, 4+nc, N], N = sum H*W, anchors scale by scale, row-major;
   * rows cx, cy, w, h (pixels; x1, y1, x2, y2 with p[YRT_DETECT_P_XYXY]) then the scores. Anchor
   * (col + 0.5, row + 0.5) * stride. reg_max 1: no DFL, the box logits are the distances. */
  YRT_OP_DETECT_DECODE = 16,
  /* The end-to-end (NMS-free) head's selection (YOLOv10 / YOLO26 / YOLO11 end2end exports):
   * in[0] f32 PLAIN [1, 4+nc, N] (4 box rows, then class scores); out f32 PLAIN [1, K, 6]:
   * x1, y1, x2, y2, score, class of the K best (anchor, class) pairs among the K anchors with
   * the best class score, by score (ties: lower index first). p[0] = nc, p[1] = K (<= N).
   * p[2] = ne (0..YRT_TOPK_MAX_EXTRA; 0 in older files): in[0] has ne more rows after the scores
   * (keypoints, mask coefficients, angle), out is [1, K, 6 + ne], those rows of the chosen anchor
   * after the class (Ultralytics Pose / Segment / OBB end2end). See kernels/include/yk_topk.h. */
  YRT_OP_DETECT_TOPK = 17,
  /* The decode of objectness heads (YOLOv5 / YOLOv7 anchor heads, YOLOX) into the rows
   * DETECT_DECODE writes: out f32 PLAIN [1, 4 + nc, N], cx, cy, w, h (pixels), then
   * objectness x class score; N = sum na H W, scale by scale, anchor by anchor, cell by cell.
   * p: YRT_OBJ_P_*. Joint layout: in[0..S-1] NHWC [1, H, W, na per] (box 4, objectness,
   * classes per anchor, per = 5 + nc or p[YRT_OBJ_P_PER] with keypoints after them); split layout (na = 1): in[0..S-1] box [1, H, W, 4], in[S..2S-1] scores
   * [1, H, W, 1 + nc]; last input CONST f32 [S, na, 2] anchor sizes in pixels. i8 per-tensor
   * or f32 inputs. Formulas: kernels/include/yk_obj_decode.h. */
  YRT_OP_OBJ_DECODE = 18,
  /* Transposed convolution (ONNX ConvTranspose), float: in[0] f32 NHWC [1, H, W, Ci], in[1] CONST
   * f32 PLAIN [Ci, Co / group, kh, kw] (ONNX order), in[2] CONST f32 [Co] bias or YRT_NONE; out f32
   * NHWC [1, OH, OW, Co]. p: YRT_CONVT_P_*; OH = (H - 1) sh - pad_t - pad_b + (kh - 1) dh + 1 +
   * output_padding_h, OW likewise. See kernels/include/yk_conv_transpose.h. */
  YRT_OP_CONV_TRANSPOSE = 19,
  /* The Ultralytics Pose head's keypoint decode (Pose.kpts_decode as exported). in[0..S-1] the
   * keypoint conv's maps NHWC [1, H, W, nk kd] (i8 per-tensor or f32), grids as DETECT_DECODE's;
   * optional in[S]: the detection rows f32 PLAIN [1, 4 + nc, N] (DETECT_DECODE's output): under
   * yrt_session_detect only anchors whose best score there passes its conf_threshold are decoded.
   * out f32 PLAIN [1, nk kd, N], the anchors in DETECT_DECODE's order. p: YRT_POSE_P_*.
   * x = (2 v + col) stride, y = (2 v + row) stride, visibility = sigmoid(v) (kd 3); formulas:
   * kernels/include/yk_pose.h. p[YRT_POSE_P_FORM] = YRT_POSE_ANCHOR: the keypoints of an
   * objectness head (YOLO-Pose), read from OBJ_DECODE's joint maps [1, H, W, na per], anchors in
   * OBJ_DECODE's order, x = (2 v - 0.5 + col) stride (older runtimes refuse it on its shapes). */
  YRT_OP_POSE_DECODE = 20,
  /* The Ultralytics OBB head's rotated boxes (dist2rbox as exported). in[0..S-1] the angle conv's
   * maps NHWC [1, H, W, 1] (i8 per-tensor or f32), grids as DETECT_DECODE's; in[S] the detection
   * rows f32 PLAIN [1, 4 + nc, N] DETECT_DECODE wrote from the same head (axis-aligned: centre
   * (anchor + (r - l) / 2) stride). out f32 PLAIN [1, 4 + nc + 1, N]: the centre's offset from its
   * anchor turned by angle = (sigmoid(v) - 0.25) pi, w, h, the scores, then the angle (radians).
   * Under yrt_session_detect only anchors whose best score passes its conf_threshold are turned
   * (the scores are copied for all). p: YRT_OBB_P_*; formulas: kernels/include/yk_obb.h.
   * p[YRT_OBB_P_FORM] = YRT_OBB_RAW: the angle is v (YOLO26 OBB26), not (sigmoid(v) - 0.25) pi. */
  YRT_OP_OBB_DECODE = 21,
  YRT_OP_COUNT_
};

/* MATMUL p[0]: 0 plain operands, YRT_MATMUL_TOKENS the token-major heads form. */
#define YRT_MATMUL_TOKENS 1
/* The longest K an int8 MATMUL takes (its int32 sums cannot overflow: 255^2 K < 2^31). */
#define YRT_MATMUL_I8_MAX_K 32768

/* The longest row an int8 SOFTMAX takes (its row is dequantized into a stack buffer). */
#define YRT_SOFTMAX_I8_MAX_LEN 4096

enum yrt_conv_params {
  YRT_CONV_P_KH = 0, YRT_CONV_P_KW, YRT_CONV_P_SH, YRT_CONV_P_SW,
  YRT_CONV_P_PAD_T, YRT_CONV_P_PAD_L, YRT_CONV_P_PAD_B, YRT_CONV_P_PAD_R,
  YRT_CONV_P_DH, YRT_CONV_P_DW, YRT_CONV_P_GROUPS,
  YRT_CONV_P_ACT,     /* yrt_unary_kind applied to the output, YRT_UNARY_NONE for none (f32) */
  YRT_CONV_P_LUT,     /* i8: tensor index of a 256-entry I8 LUT applied after requant, or -1 */
};
#define YRT_CONV_IN_WOFFSET 3 /* CONV2D's optional 4th input: per-channel weight offsets */
#define YRT_CONV_WOFFSET_MAX 255 /* |woff[c]| at most this */

enum yrt_detect_params {
  YRT_DETECT_P_SCALES = 0, /* S, 1..3 */
  YRT_DETECT_P_REG_MAX,    /* DFL bins per side, 1..64 */
  YRT_DETECT_P_CLASSES,    /* nc, 1..YRT_MAX_CLASSES */
  YRT_DETECT_P_STRIDE0,    /* p[3 + s] = stride of scale s in pixels, 1..4096 */
  YRT_DETECT_P_XYXY = 6,   /* 0: rows cx, cy, w, h; 1: x1, y1, x2, y2 (end-to-end heads) */
};

enum yrt_pose_params {
  YRT_POSE_P_SCALES = 0, /* S, 1..3 (anchor form: 1..4) */
  YRT_POSE_P_KPTS,       /* nk keypoints per anchor, 1..1024 */
  YRT_POSE_P_DIMS,       /* kd values per keypoint: 2 (x, y) or 3 (x, y, visibility) */
  YRT_POSE_P_STRIDE0,    /* p[3 + s] = stride of scale s in pixels, 1..4096 */
  YRT_POSE_P_FORM = 7,   /* yrt_pose_form; 0 in files written before it */
  YRT_POSE_P_ANCHORS,    /* anchor form: na anchors per cell, 1..9 */
  YRT_POSE_P_PER,        /* anchor form: values per anchor vector in the map */
  YRT_POSE_P_FIRST,      /* anchor form: the first keypoint value in an anchor's vector */
};

/* POSE_DECODE p[YRT_POSE_P_FORM]. */
enum yrt_pose_form {
  YRT_POSE_ULTRALYTICS = 0, /* maps [1, H, W, nk kd], x = (2 v + col) stride */
  YRT_POSE_ANCHOR = 1,      /* YOLO-Pose (TI edgeai-yolov5): maps [1, H, W, na per], an objectness
                               head's anchor vectors, x = (2 v - 0.5 + col) stride */
};

enum yrt_obb_params {
  YRT_OBB_P_SCALES = 0, /* S, 1..3 */
  YRT_OBB_P_STRIDE0,    /* p[1 + s] = stride of scale s in pixels, 1..4096 */
  YRT_OBB_P_FORM = 4,   /* yrt_obb_form; 0 in files written before it */
};

/* OBB_DECODE p[YRT_OBB_P_FORM]: how the angle map's value v becomes the angle. */
enum yrt_obb_form {
  YRT_OBB_SIGMOID = 0, /* Ultralytics OBB: (sigmoid(v) - 0.25) pi */
  YRT_OBB_RAW = 1,     /* YOLO26's OBB26: v itself; the file then has YRT_FLAG_OBB_RAW (runtimes
                          before the field would read it as the sigmoid form) */
};

#define YRT_OBJ_MAX_SCALES 4
#define YRT_OBJ_MAX_ANCHORS 9
enum yrt_obj_params {
  YRT_OBJ_P_SCALES = 0,  /* S, 1..4 (split layout: 1..3) */
  YRT_OBJ_P_ANCHORS,     /* na per cell, 1..9 (split layout: 1) */
  YRT_OBJ_P_CLASSES,     /* nc, 1..YRT_MAX_CLASSES */
  YRT_OBJ_P_MODE,        /* yrt_obj_mode */
  YRT_OBJ_P_SPLIT,       /* 0 joint, 1 split layout */
  YRT_OBJ_P_STRIDE0,     /* p[5 + s] = stride of scale s in pixels, 1..4096 */
  YRT_OBJ_P_PER = 9,     /* joint layout: values per anchor vector (> 5 + nc: keypoints follow the
                            classes, skipped here); 0 (files written before it): 5 + nc */
};
/* CONV_TRANSPOSE p[]: the geometry (as CONV2D's first ten), the groups and the output padding. */
enum {
  YRT_CONVT_P_KH = 0, YRT_CONVT_P_KW, YRT_CONVT_P_SH, YRT_CONVT_P_SW, YRT_CONVT_P_PAD_T, YRT_CONVT_P_PAD_L,
  YRT_CONVT_P_PAD_B, YRT_CONVT_P_PAD_R, YRT_CONVT_P_DH, YRT_CONVT_P_DW, YRT_CONVT_P_GROUP, YRT_CONVT_P_OUT_PAD_H,
  YRT_CONVT_P_OUT_PAD_W
};

/* OBJ_DECODE p[YRT_OBJ_P_MODE]: how box logits become pixels. */
enum yrt_obj_mode {
  YRT_OBJ_SIGMOID = 0, /* YOLOv5 / v7: (2 sig - 0.5 + grid) stride, (2 sig)^2 anchor */
  YRT_OBJ_EXP = 1,     /* YOLOX: (t + grid) stride, exp(t) anchor (anchor = stride) */
};

enum yrt_binary_kind { YRT_BIN_ADD = 0, YRT_BIN_SUB = 1, YRT_BIN_MUL = 2, YRT_BIN_DIV = 3 };
/* BINARY p[1]: how an int8 ADD computes. 0: the float chain (dequantize, add, quantize with true
 * division, as onnxruntime); 1: fixed point (yk_add_fixed in kernels/include/yk.h: one step apart
 * where the sum falls within ~2^-14 steps of a half), same shapes only. */
enum yrt_binary_arith { YRT_BIN_FLOAT_CHAIN = 0, YRT_BIN_I8_FIXED = 1 };

enum yrt_unary_kind {
  YRT_UNARY_NONE = 0, YRT_UNARY_RELU = 1, YRT_UNARY_SIGMOID = 2, YRT_UNARY_SILU = 3,
  YRT_UNARY_LEAKY_RELU = 4, YRT_UNARY_TANH = 5, YRT_UNARY_EXP = 6, YRT_UNARY_IDENTITY = 7,
  YRT_UNARY_COS = 8, YRT_UNARY_SIN = 9, /* libm; an OBB head's dist2rbox (the head check's runner) */
  YRT_UNARY_COUNT_ /* valid kinds are 0..YRT_UNARY_COUNT_-1 (the validator's bound) */
};

typedef struct yrt_node_rec {
  uint32_t op;          /* yrt_op */
  uint32_t name;        /* string offset (the ONNX node name it came from) */
  uint32_t n_in, n_out; /* <= YRT_MAX_NODE_IO */
  uint32_t in[YRT_MAX_NODE_IO];  /* tensor indices, YRT_NONE for an absent optional input */
  uint32_t out[YRT_MAX_NODE_IO];
  int32_t p[YRT_NODE_PARAMS];
  float f[YRT_NODE_FPARAMS];
} yrt_node_rec;

typedef struct yrt_plan_rec {
  uint64_t arena_bytes; /* peak activation memory; every ACT/INPUT/OUTPUT fits inside */
  uint32_t n_inputs, n_outputs; /* followed by uint32 tensor ids */
} yrt_plan_rec;

#define YRT_MAX_CLASSES 1024
#define YRT_TOPK_MAX_EXTRA 1024 /* DETECT_TOPK p[2]: extra rows carried per detection */
typedef struct yrt_meta_rec {
  uint32_t input_w, input_h; /* letterbox target */
  uint32_t num_classes;
  uint32_t class_names;      /* string offset of '\n'-separated names ("" = numbered) */
  float pad_value;           /* 114 */
  float norm_scale;          /* 1/255 */
  uint32_t strides[4];       /* 8,16,32,0 */
  uint32_t source;           /* string offset: what it was converted from */
  uint32_t task;             /* string offset: the Ultralytics task, "detect", "segment" (output0
                                rows 4 + nc .. are mask coefficients, output1 the prototypes) or
                                "classify" (output0 holds num_classes scores: [1, nc] or
                                [1, nc, 1, 1], see YRT_FLAG_CLASS_LOGITS);
                                "" = not recorded (files before it: this word was reserved, 0) */
  uint32_t preprocess;       /* YRT_PRE_* flags: how an image becomes the input (files before it:
                                this word was reserved, 0 = RGB, centred letterbox) */
  float nms_iou;             /* the NMS the export did itself (Ultralytics nms=True, cut off by the
                                converter), the model's postprocess defaults: IoU threshold in
                                (0, 1], 0 = not recorded (files before it: a reserved word, 0) */
  float nms_conf;            /* its score threshold in [0, 1), 0 = not recorded */
  uint32_t nms_flags;        /* bits 0-15 its detection count (0 = not recorded), YRT_NMS_* */
} yrt_meta_rec;

/* yrt_meta_rec.nms_flags above bit 15. */
enum yrt_meta_nms {
  YRT_NMS_MAX_DET_MASK = 0xFFFFu,
  YRT_NMS_SET = 1u << 16,           /* the fields above hold the export's NMS */
  YRT_NMS_CLASS_AGNOSTIC = 1u << 17, /* its NMS was class-agnostic (else per class) */
  YRT_NMS_KNOWN_ = 0x3FFFFu
};

/* yrt_meta_rec.preprocess. pad_value (an integer 0..255) and norm_scale (finite, > 0) say the
 * padding and the pixel multiplier; these flags the rest. A bit this runtime does not know is
 * refused on load (YRT_ERR_UNSUPPORTED), and runtimes older than the field refuse any non-zero
 * value (it was a reserved word), so a file is never run with a preprocessing it does not get. */
enum yrt_meta_preprocess {
  YRT_PRE_BGR = 1u << 0,         /* network channels B, G, R (else R, G, B) */
  YRT_PRE_TOP_LEFT = 1u << 1,    /* letterbox: the image at the top-left, padding right and bottom */
  YRT_PRE_RESIZE_SHIFT = 2,      /* bits 2-3: yrt_resize_mode (0 letterbox, 1 stretch, 2 crop) */
  YRT_PRE_RESIZE_MASK = 3u << 2,
  YRT_PRE_MEAN_STD = 1u << 4,    /* META is followed by a yrt_meta_norm_rec (META 96 bytes) */
  YRT_PRE_KNOWN_ = 0x1Fu
};

/* Per-channel normalisation, after META when YRT_PRE_MEAN_STD: network channel c's value is
 * (level * norm_scale - mean[c]) / std[c] (channel c in network order, after the BGR swap).
 * mean finite, std finite > 0. Without it mean 0, std 1. */
typedef struct yrt_meta_norm_rec {
  float mean[3];
  float std[3];
  uint32_t reserved[2]; /* 0 */
} yrt_meta_norm_rec; /* 32 bytes */

/* ---------------------------------------------------------------- the format module */

/* Bytes per element of a yrt_dtype, 0 for an unknown one. */
static inline size_t yrt_dtype_size(uint32_t dtype) {
  switch (dtype) {
    case YRT_F32: return 4;
    case YRT_I8: return 1;
    case YRT_I32: return 4;
    case YRT_I16: return 2;
    default: return 0;
  }
}

/* "conv2d", ..., "unknown" for an op this runtime has no kind for (names are the runtime op
 * table's, runtime/src/op_table.c). */
const char *yrt_op_name(uint32_t op);
/* "STRINGS", ..., "?" for an unknown kind. */
const char *yrt_section_name(uint32_t kind);

/* IEEE CRC-32 (zlib polynomial). Continue a CRC: start with crc = 0;
 * yrt_crc32(0, "123456789", 9) == 0xCBF43926. */
uint32_t yrt_crc32(uint32_t crc, const void *data, size_t n);
/* The CRC an image's header carries: over bytes [64, size). */
uint32_t yrt_file_crc(const void *image, size_t size);
/* Store yrt_file_crc in the header (writers; tests after editing an image). size >= 64. */
void yrt_file_seal(void *image, size_t size);

/* An image's sections, in place (pointers into the image). */
typedef struct yrt_file_view {
  const yrt_file_header *hdr;
  const yrt_section_rec *sec[YRT_SEC_COUNT_]; /* by kind; [0] unused */
  const char *strings;
  size_t strings_size;
  const yrt_tensor_rec *tensors; /* NULL for an older version's records: see tensor_rec_bytes */
  uint32_t n_tensors;
  uint32_t tensor_rec_bytes;     /* sizeof(yrt_tensor_rec), or YRT_TENSOR_REC_V1_BYTES (version 1) */
  const uint8_t *tensor_recs;    /* the TENSORS section as stored, whatever its record size */
  const yrt_node_rec *nodes;
  uint32_t n_nodes;
  const uint8_t *weights;
  size_t weights_size;
  const yrt_plan_rec *plan;
  const uint32_t *plan_inputs, *plan_outputs;
  const yrt_meta_rec *meta;
  const yrt_meta_norm_rec *meta_norm; /* after META when META is 96 bytes, else NULL */
  const yrt_packed_hdr *packed;       /* PACKED's header, or NULL (no such section) */
  const yrt_packed_rec *packed_recs;  /* [packed->n_entries] */
  const uint8_t *packed_base;         /* the section's first byte (records' offsets from here) */
} yrt_file_view;

/* "x86-avx2", ... for a yrt_pack_target, NULL for another value. */
const char *yrt_pack_target_name(uint32_t target);
/* The target named name, 0 for none ("portable" is 0 too: no PACKED section). */
uint32_t yrt_pack_target_parse(const char *name);

/* The header: size, magic, version, file_size == size, CRC. data 8-byte aligned. */
yrt_status yrt_file_check_header(const void *data, size_t size, yrt_error *err);
/* The section table of an image whose header was checked (or that a writer just made): table
 * and sections inside the file, 64-aligned, no overlaps, each kind exactly once, record
 * sections a whole number of records, PLAN and META their sizes; fills im. The records are not
 * looked at (the runtime's validation passes do that). */
yrt_status yrt_file_map(const void *data, size_t size, yrt_file_view *im, yrt_error *err);
/* Widen im's n_tensors stored records (any version this runtime loads) into out[n_tensors]
 * current records: the fields a version lacks are 0 (version 1: no views). */
void yrt_file_upgrade_tensors(const yrt_file_view *im, yrt_tensor_rec *out);
/* The same for record i < im->n_tensors alone. */
void yrt_file_tensor(const yrt_file_view *im, uint32_t i, yrt_tensor_rec *out);
/* Both. */
yrt_status yrt_file_open(const void *data, size_t size, yrt_file_view *im, yrt_error *err);

/* Writing: sections of the given sizes (indexed by kind) laid out after the header and the
 * section table, in kind order, each YRT_ALIGN-aligned; total is a multiple of YRT_ALIGN. */
typedef struct yrt_file_layout {
  uint64_t offset[YRT_SEC_COUNT_], size[YRT_SEC_COUNT_]; /* by kind; [0] unused */
  uint64_t total;
} yrt_file_layout;
void yrt_file_plan(const uint64_t size[YRT_SEC_COUNT_], yrt_file_layout *l);
/* With the sections written into image (total bytes, zero elsewhere): writes the section table
 * and the header (flags = YRT_FLAG_*, PACKED added when that section has bytes; a PACKED of size 0
 * is left out) and seals the CRC. */
void yrt_file_finish(void *image, const yrt_file_layout *l, uint32_t flags);

#endif /* YOLORT_FORMAT_H */
