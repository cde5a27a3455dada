/* fuse_detect_head.h — the Ultralytics Detect head's decode subgraph -> one DetectDecode node
 * (domain "yolort"), lowered to YRT_OP_DETECT_DECODE. An IR pass (tools/ir). */
#ifndef YOLORT_FUSE_DETECT_HEAD_H
#define YOLORT_FUSE_DETECT_HEAD_H

#include <stddef.h>

#include "ir.h"
#include "onnx_ops.h"
#include "yolort_format.h"

/* How the head check runs a float subgraph: lowered to a loadable .yrt (*yrt malloc'ed, *size
 * bytes), err saying why not. The converter passes its own lowering in (convert.c): the head
 * fusions are IR passes, below the converter that runs them, and never call up into it. */
typedef yrt_status (*lw_head_lower_fn)(ir_graph *sub, void **yrt, size_t *size, yrt_error *err);

/* Runs on the IR after ir_qdq_annotate (shapes known, Q/DQ folded into annotations) and before
 * ir_mark_fp32_region. Recognises the Detect head by what it computes, whatever ops the export
 * used (Slice or Split, softmax/transposition orders, opsets): walking back from a head output
 * [1, 4 + nc (+ extra), N] to the per-scale conv outputs [1, C, H, W] (H, W = the input / a
 * stride) it reads, it tries each assignment of those to box logits (4 * reg_max channels;
 * reg_max 1 = distances without DFL), class logits (nc, from the metadata names when present)
 * and pass-through channels (a segment head's mask coefficients), and keeps the first whose
 * detect_decode (xywh or xyxy boxes) gives the subgraph's own output on random logits; with one
 * 1-channel pass-through also the Ultralytics OBB head (dist2rbox boxes turned by the angle that
 * channel gives, the angle appended: DetectDecode then ObbDecode, see fuse_obb_head.h)
 * (lw_head_verify). Graph outputs are tried first, then other [1, C, N] tensors (the decode
 * before an end-to-end head's TopK). Anything else leaves the graph unchanged: *fused = 0 and
 * note says why. On success *fused = 1, *n_removed = nodes replaced, note summarises. Only
 * allocation failures return an error. */
yrt_status lw_fuse_detect_head(ir_graph *g, lw_head_lower_fn lower, int *fused, int *n_removed, char *note, size_t note_cap,
                               yrt_error *err);

#define LW_HEAD_MAX_SCALES 3  /* 2 * scales + 1 inputs in a yrt node's 8 slots */
#define LW_HEAD_MAX_IN 12     /* per-scale tensors the head reads */
#define LW_HEAD_MAX_EXTRA 2   /* pass-through tensors per scale */
#define LW_HEAD_MAX_NODES 512
#define LW_HEAD_MAX_REG 64

/* A candidate head: the subgraph and the decode it should compute. box / cls / extra are
 * indices into in[]. */
typedef struct lw_head {
  int y;                                   /* head output tensor */
  int y_more[LW_HEAD_MAX_SCALES + 1], n_y_more; /* further outputs of a head that writes one per
                                              grid (raw maps): run after y, values concatenated */
  int in[LW_HEAD_MAX_IN], n_in;            /* per-scale tensors read (graph tensor ids) */
  int nodes[LW_HEAD_MAX_NODES], n_nodes;   /* the subgraph from in[] to y */
  int ns, reg, nc, xyxy;
  int64_t n;                               /* anchors */
  int64_t h[LW_HEAD_MAX_SCALES], w[LW_HEAD_MAX_SCALES], stride[LW_HEAD_MAX_SCALES];
  int box[LW_HEAD_MAX_SCALES], cls[LW_HEAD_MAX_SCALES];
  int n_extra, extra[LW_HEAD_MAX_EXTRA][LW_HEAD_MAX_SCALES];
  int obb;                                 /* 1 / 2 (raw, YOLO26): the one 1-channel pass-through is an OBB head's angle
                                              logit: rows are dist2rbox boxes, then the angle
                                              (sigmoid(v) - 0.25) pi after the scores */
  int64_t extra_ch[LW_HEAD_MAX_EXTRA], n_extra_ch;
  float proj[LW_HEAD_MAX_REG];             /* DFL projection (the DFL conv's weights) */
  double q_abs, q_rel;                     /* half steps of quantized constants: absolute, relative */
  double max_box_dev, max_score_dev;       /* set by lw_head_verify */
  int n_removed;                           /* nodes the fusion removed (lw_head_remove) */
} lw_head;

/* Run the subgraph (converted on its own, in float) on random logits and compare it with the
 * decode h describes (head_verify.c). *ok = 1 when every output value agrees within float
 * rounding plus what quantized constants allow; otherwise why says what differs. Only
 * allocation failures return an error. */
yrt_status lw_head_verify(const ir_graph *g, lw_head_lower_fn lower, lw_head *h, int *ok, char *why, size_t why_cap, yrt_error *err);

/* The head subgraph (h->in[] -> h->nodes[] -> h->y) converted on its own, in float, once, and
 * run on given logits any number of times (head_verify.c). open: *ok = 0 with why set when it
 * does not convert or load; only allocation failures return an error. */
typedef struct lw_head_runner {
  void *buf;
  yrt_model *model;
  yrt_session *sess;
  float *cat;        /* y then y_more[] concatenated, when the head has several outputs */
  size_t cat_count;
} lw_head_runner;
yrt_status lw_head_runner_open(const ir_graph *g, lw_head_lower_fn lower, const lw_head *h, lw_head_runner *r, int *ok, char *why,
                               size_t why_cap, yrt_error *err);
/* One run on in_data[i] (h->in[i]'s NCHW values): *out = y's values, then y_more[]'s (valid until
 * the next run), *count of them. -1 with why set on failure. */
int lw_head_runner_run(lw_head_runner *r, const ir_graph *g, const lw_head *h, float *const *in_data,
                       const float **out, size_t *count, char *why, size_t why_cap);
void lw_head_runner_close(lw_head_runner *r);
/* An OBB head's angle of logit v: (sigmoid(v) - 0.25) pi (Ultralytics OBB.forward); raw: v
 * (YOLO26's OBB26.forward_head). */
double lw_obb_angle(double v, int raw);
/* Deterministic probe values (xorshift state s), uniform in [lo, hi). */
float lw_head_probe(uint32_t *s, float lo, float hi);
/* Writes the formatted reason a candidate head was not taken into note; returns -1. */
int lw_head_note(char *note, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The subgraph from y back to the per-scale tensors [1, C, H, W] (H, W the input over a stride)
 * it reads: h->y, in[], nodes[], q_abs / q_rel. through_act: a tensor an elementwise Sigmoid
 * made is walked through, not taken as a per-scale tensor (YOLOX's sigmoid on its objectness
 * and class convs). 0, or -1 with note set. */
int lw_head_walk(const ir_graph *g, int y, int64_t in_h, int64_t in_w, int through_act, lw_head *h, char *note,
                 size_t cap);

/* Mark h's subgraph dead, but for the nodes whose outputs are still needed (a graph output, or
 * read by a live node outside it: an export that lists its raw head maps as outputs too).
 * Returns the nodes removed. */
int lw_head_remove(ir_graph *g, const lw_head *h);

/* The --keep-fp32 names without those of nodes the fusion replaced (they run in float inside
 * detect_decode anyway); unknown names stay, so ir_mark_fp32_region still reports them.
 * NULL-terminated, malloc'ed (free()); NULL when out of memory. */
const char **lw_detect_keep_filter(const ir_graph *g, const char *const *keep);

/* 1 for the node lw_fuse_detect_head makes. */
int lw_is_detect_node(const ir_node *n);

#endif
