/* session_internal.h — a session: the arena, the thread pool and one prepared kernel per node.
 * Everything a node needs at run time (pointers into the arena, shapes, XNNPACK operators,
 * requantization tables) is computed once in yrt_session_create; running only calls kernels. */
#ifndef YOLORT_SESSION_INTERNAL_H
#define YOLORT_SESSION_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model_internal.h"
#include "pthreadpool_opt.h"
#include "session_par.h"
#include "xnn_backend.h"
#include "yk.h"

typedef struct yrt_session yrt_session;
typedef struct yrt_exec yrt_exec;

/* Each kind keeps its private state inline in its prepared node, as a struct of its own that only
 * its file names (ops/<kind>.c, or ops/<kind>.h when tests look at it): no allocation, and no
 * kind's state written here. YRT_EXEC_STATE(T, e) is e's state as a T; each kind asserts its T
 * fits (YRT_EXEC_STATE_FITS). 512: the conv's state on 64-bit targets. */
#define YRT_EXEC_STATE_BYTES 512
#define YRT_EXEC_STATE(T, e) ((T *)(void *)(e)->state.bytes)
#define YRT_EXEC_STATE_FITS(T) \
  _Static_assert(sizeof(T) <= YRT_EXEC_STATE_BYTES, #T " must fit yrt_exec's state (YRT_EXEC_STATE_BYTES)")

/* Runs one prepared node (op_table.h). */
typedef yrt_status (*yrt_exec_fn)(const yrt_session *s, const yrt_exec *e, yrt_error *err);



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
  /* the kind's private state, its own struct (ops/<kind>.c or .h): YRT_EXEC_STATE */
  union {
    max_align_t align;
    unsigned char bytes[YRT_EXEC_STATE_BYTES];
  } state;
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
  struct yrt_segment *segment; /* segment.c: masks of the last yrt_session_detect, NULL without masks */
  int32_t *detect_list;     /* frame_detect.c: anchors over the threshold, [anchors] */
  uint32_t detect_node;     /* the decode node writing output0 whose row has detect_over (threshold-aware
                               decode), else YRT_NONE */
  uint32_t skip_node;       /* node whose output a frame wrote directly (frame.c), else YRT_NONE */
  struct yrt_kpt_state *kpt; /* session_keypoints.c: a pose model's detections' columns, else NULL */
  float detect_conf;        /* during yrt_session_detect's run its conf_threshold, else NaN: decodes of
                               per-detection rows (pose keypoints) may skip anchors that cannot pass */
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
