/* session_internal.h — a session: the arena, the thread pool and one prepared kernel per node.
 * Everything a node needs at run time (pointers into the arena, shapes, XNNPACK operators,
 * requantization tables) is computed once in yrt_session_create; running only calls kernels. */
#ifndef YOLORT_SESSION_INTERNAL_H
#define YOLORT_SESSION_INTERNAL_H

#include <pthreadpool.h>
#include <stdatomic.h>
#include <stdint.h>

#include "conv_ref.h"
#include "model_internal.h"
#include "session_par.h"
#include "xnn_backend.h"
#include "yk.h"
#include "yk_dwconv.h"
#include "yk_qconv.h"

typedef struct yrt_session yrt_session;
typedef struct yrt_exec yrt_exec;

/* Runs one prepared node (op_table.h). */
typedef yrt_status (*yrt_exec_fn)(const yrt_session *s, const yrt_exec *e, yrt_error *err);

typedef struct yrt_exec_conv {
  yrt_xnn_conv *op;         /* NULL: our kernels or the scalar reference */
  yrt_conv_geom g;
  int act;                  /* unary kind applied after the conv (f32), NONE if fused/none */
  float f_min, f_max;       /* f32 clamp */
  int8_t i_min, i_max;      /* i8 clamp */
  int32_t x_zp, y_zp;
  float *requant;           /* i8: [cout] sx * sw[c] / sy (owned) */
  float *kscale;            /* i8: [cout] weight scales given to XNNPACK (owned) */
  int32_t *zero_bias;       /* i8/f32 without bias: zeros (owned) */
  const int8_t *lut;        /* i8: table applied after requantization, or NULL */
  size_t out_numel;
  /* i8, our own kernels (chosen over XNNPACK when available): */
  int own;                  /* 1: yk_qconv (groups 1), 2: yk_dwconv (depthwise 3x3) */
  yk_qconv qc;              /* packed weights in qc.packed (owned unless packed_shared) */
  int packed_shared;        /* 1: qc.packed is the model's copy (model_packs.h), not freed here */
  yk_dwconv dw;             /* dw.packed points inside the dw_w block */
  int8_t *dw_w;             /* depthwise weights re-laid as [3][3][C], then dw.packed (owned) */
  size_t rows_per_task;     /* output rows per thread-pool task */
  const struct yrt_exec *post_add; /* the node after this conv, reading its output, run on each
                                      task's rows right after them (absorb_next), or NULL */
  void (*post_fn)(const struct yrt_session *s, const struct yrt_exec *e, size_t lo, size_t hi); /* its pixels */
  /* dynamic quantization (f32 x, i8 w, f32 bias and y): x is quantized into the session's
   * dynq buffer with the range measured on each run; the kernel's packed head follows it */
  int dyn;
  const float *fbias;       /* f32 bias or NULL */
  int32_t *wsum;            /* [cout] sum of each channel's int8 weights (owned) */
  int32_t bias_lim;         /* |bias in accumulator units| kept below this (no int32 overflow) */
  size_t x_numel;
  const struct yrt_exec *x_src; /* dyn: the node whose published range is x's, or NULL */
} yrt_exec_conv;

typedef struct yrt_exec_concat {
  size_t outer;
  size_t inner[YRT_MAX_NODE_IO];
  yk_qparams qx[YRT_MAX_NODE_IO];
  uint8_t in_place[YRT_MAX_NODE_IO]; /* slot already written by its producer (a view) */
  int n;
} yrt_exec_concat;
typedef struct yrt_exec_pool {
  yk_pool_params p;
  int n, h, w, c, oh, ow;
} yrt_exec_pool;
typedef struct yrt_exec_resize {
  int n, h, w, c, oh, ow;
  float sh, sw;
  size_t ys;          /* output pixel stride in elements (a Concat's view: its holder's C) */
  const int8_t *lut;  /* int8 with a second input: the requantization table folded in, else NULL */
} yrt_exec_resize;
typedef struct yrt_exec_matmul {
  size_t batch, a_stride, b_stride, y_stride, m, k, n;
  size_t ldb, ldy;       /* row strides of b and y (n, or H n for the token-major form) */
  size_t rows_per_unit;  /* rows per unit of work: 1 (f32), YK_QMATMUL_ROWS (i8, its row blocks) */
  size_t units_per_batch;
  yk_qmatmul_params q; /* i8: zero points and (sa * sb) / sy */
} yrt_exec_matmul;

struct yrt_exec {
  const yrt_node_rec *node;
  yrt_exec_fn run;
  const void *in[YRT_MAX_NODE_IO]; /* NULL for an absent optional input */
  void *out;
  size_t esize;             /* element size of out */
  size_t numel;             /* element count of out */
  yk_shape sh[3];           /* in0, in1, out shapes */
  yk_qparams q[3];          /* in0, in1, out quantization */
  /* f32 out: a dynamically quantized consumer asked (pub_range, yrt_publish_range) for the range
   * [min(0, min out), max(0, max out)], measured on each run in the node's own pass over out,
   * block by block while in cache (a pass of its own over the tensor otherwise) */
  int pub_range;
  float y_lo, y_hi;
  union {
    yrt_exec_conv conv;
    yrt_exec_concat concat;
    struct { int64_t starts[YK_MAX_RANK], steps[YK_MAX_RANK]; } slice;
    struct yrt_exec_transpose {
      int perm[YK_MAX_RANK];
      /* the leading axes the perm leaves in place, as `outer` independent slabs of `inner`
       * elements, each transposed as slab (shape [1, rest], perm sub_perm): threaded over slabs */
      size_t outer, inner;
      yk_shape slab;
      int sub_perm[YK_MAX_RANK];
    } transpose;
    yrt_exec_pool pool;
    yrt_exec_resize resize;
    yrt_exec_matmul matmul;
    struct { /* k, x_scale, x_zp, lut: i8 -> i8 only (yolort_format.h) */
      size_t outer, len, inner;
      float k, x_scale;
      int32_t x_zp;
      const int8_t *lut; /* NULL, or the table the codes go through first */
    } softmax;
    struct { int axis; const int32_t *idx; size_t n_idx; } gather;
    struct yrt_exec_detect *detect; /* session_detect.c (owned) */
    struct yrt_exec_obj *obj;       /* ops/obj_decode.c (owned) */
    struct { int nc, n, k; void *scratch; } topk; /* scratch owned */
    struct { const int8_t *x; float *lut; } silu; /* a Mul run as DQ -> Sigmoid -> Mul (lut owned) */
    struct { size_t as, bs, ys, c; int fixed; yk_add_fixed fx; } binview; /* int8 binary by pixels of c
                                                   (views: strides), fixed-point Add or the float chain */
  } u;
};

struct yrt_session {
  const yrt_model *model;
  uint8_t *arena;
  void *arena_owned;
  yrt_par par;              /* the threads our kernels run on (session_par.h) */
  int threads;              /* threads chosen at creation (yrt_session_num_threads) */
  pthreadpool_t pool;       /* XNNPACK's: the caller's thread_pool, or made on first use (yrt_session_xnn_pool) */
  int pool_owned;           /* 1: pool made for this session (destroyed with it) */
  yk_isa isa;
  yrt_exec *exec;
  uint32_t n_exec;
  int profiling;
  uint64_t *times;          /* [n_nodes] ns of the last run */
  float **out_buf;          /* [n_outputs] converted output, NULL when the arena copy is used */
  struct yrt_frame_state *frame; /* frame.c: tap tables and input tables, NULL without an image input */
  void *pp_scratch;         /* frame_detect.c: NMS scratch, NULL when output0 is not a detection tensor */
  int32_t *detect_list;     /* frame_detect.c: anchors over the threshold, [anchors] */
  uint32_t detect_node;     /* the decode node writing output0 whose row has detect_over (threshold-aware
                               decode), else YRT_NONE */
  uint32_t skip_node;       /* node whose output a frame wrote directly (frame.c), else YRT_NONE */
  atomic_int cancel;        /* yrt_session_cancel: checked between nodes */
  int8_t *dynq;             /* input of the dynamically quantized conv running now (owned) */
};

/* frame.c: built at creation when input 0 is an NHWC image, freed with the session. */
yrt_status yrt_frame_state_create(yrt_session *s, yrt_error *err);
void yrt_frame_state_free(struct yrt_frame_state *f);
/* frame.c: before a run that skips the QUANTIZE node a frame replaced, puts the frame back into
 * its output when an earlier run has reused those bytes (a no-op otherwise). */
void yrt_frame_restore(yrt_session *s);
/* frame_detect.c: the NMS scratch of yrt_session_detect (freed with the session). */
yrt_status yrt_detect_scratch_create(yrt_session *s, yrt_error *err);
/* The pthreadpool XNNPACK operators of this session use: the caller's thread_pool, or for a
 * session with its own threads one made here on first use (NULL: XNNPACK runs single-threaded). */
pthreadpool_t yrt_session_xnn_pool(yrt_session *s);
/* yrt_session_run leaving node `skip` (YRT_NONE: none) to the caller. */
yrt_status yrt_session_run_except(yrt_session *s, uint32_t skip, yrt_error *err);
/* session_detect.c: the threshold-aware decode of a DETECT_DECODE node. Anchors whose best class
 * score cannot exceed conf are skipped (no DFL, no sigmoid); the others are listed in increasing
 * order and decoded exactly as the full decode does, packed: the node's output then starts with a
 * [4 + nc][count] tensor, listed anchor j in column j. Returns the count. */

/* Physical shape of a tensor as a yk_shape. */
static inline void yrt_shape_of(const yrt_tensor_rec *t, yk_shape *s) {
  s->rank = (int)t->rank;
  for (int d = 0; d < YK_MAX_RANK; d++) s->d[d] = d < (int)t->rank ? t->dims[d] : 1;
}

static inline yk_qparams yrt_qparams_of(const yrt_tensor_rec *t) {
  yk_qparams q = {t->scale, t->zero_point};
  return q;
}

/* Element-wise passes (flat ops, concat, conv activations) are split over the thread pool in
 * ranges of at least this many elements (below it, waking threads costs more than it saves).
 * 8192 since each thread keeps its rows (thread_pool.c): a small node run on the caller alone
 * read half its input from the other core's cache (yolo11n 2 threads, SPR: 320 1.64-1.69 ->
 * 1.55-1.64 ms, 640 5.60-6.00 -> 5.41-5.63 against 32768; 4096 no better). */
#define YRT_PAR_MIN_ELEMS 8192

#endif
