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

/* Runs one prepared node (op_def.h). */
typedef yrt_status (*yrt_exec_fn)(const yrt_session *s, const yrt_exec *e, yrt_error *err);

/* Work of the layer above done inside a run, before or after the nodes (prepost/: a camera frame
 * put back where the run reads it, the threshold-aware decode of yrt_session_detect). */
typedef yrt_status (*yrt_stage_fn)(yrt_session *s, void *ctx, yrt_error *err);

/* What one run does, in order: the input stage, the nodes, the output stage. The executor's own
 * plan (yrt_session.every) runs every node and no stage; a stage that does a node's work itself
 * (the frame the QUANTIZE of the float input, the detect stage the decode writing output0) runs a
 * plan made at session creation without that node (yrt_plan_leave_out). Nothing is skipped
 * inside a run: a plan lists what runs. */
typedef struct yrt_plan {
  yrt_stage_fn input;     /* before the first node, or NULL */
  void *input_ctx;
  const uint32_t *nodes;  /* node indices, in the order they run */
  uint32_t n_nodes;
  yrt_stage_fn output;    /* after the last node, or NULL */
  void *output_ctx;
  uint32_t *owned;        /* the node list when yrt_plan_leave_out made it (yrt_plan_free) */
} yrt_plan;

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
  yrt_plan every;           /* every node in order, no stage (its list: [n_exec], owned) */
  const yrt_plan *plan;     /* what yrt_session_run runs: every, or what an input stage chose
                               (yrt_session_set_frame); an input call writing the float input resets it */
  void *stages;             /* the pre/post stages' state (prepost/stages.h): made and freed by
                               yrt_session_create / yrt_session_free, never read by the executor */
  float detect_conf;        /* during yrt_session_detect's run its conf_threshold, else NaN: decodes of
                               per-detection rows (pose keypoints) may skip anchors that cannot pass */
  atomic_int cancel;        /* yrt_session_cancel: checked between nodes */
  int8_t *dynq;             /* input of the dynamically quantized conv running now (owned) */
  /* where every block of the session comes from (mem.h): &alloc_copy (the caller's
   * yrt_session_options.allocator, copied), or NULL for libc */
  const yrt_allocator *alloc;
  yrt_allocator alloc_copy;
  size_t packed_in_place;   /* conv weight bytes used in place from the model's PACKED section */
};

/* The executor alone (session.c), for isa (NULL: this CPU's): the arena, the pool and every node prepared; yrt_session_create
 * (prepost/pipeline.c) adds the stages. On failure nothing is left allocated and *out is NULL. */
yrt_status yrt_executor_create(const yrt_model *model, const yrt_session_options *opts, const yk_isa *isa,
                               yrt_session **out, yrt_error *err);
/* yrt_session_create with the kernels chosen for isa instead of this CPU's (NULL: this CPU's): the
 * converter's packing for a named target (model_prepack.c); such a session is never run. */
yrt_status yrt_session_create_isa(const yrt_model *model, const yrt_session_options *opts, const yk_isa *isa,
                                  yrt_session **out, yrt_error *err);
/* Releases every node and frees what yrt_executor_create made (the stages are freed before). */
void yrt_executor_free(yrt_session *s);
/* Runs plan p (made for s): its input stage, its nodes (the cancel flag checked before each), its
 * output stage. Never allocates. */
yrt_status yrt_session_run_plan(yrt_session *s, const yrt_plan *p, yrt_error *err);
/* *out = base without node `node` (its stages kept; the list allocated from s's allocator, yrt_plan_free). */
yrt_status yrt_plan_leave_out(const yrt_session *s, const yrt_plan *base, uint32_t node, yrt_plan *out,
                              yrt_error *err);
void yrt_plan_free(yrt_plan *p);
/* The pthreadpool XNNPACK operators of this session use: the caller's thread_pool, or for a
 * session with its own threads one made here on first use (NULL: XNNPACK runs single-threaded). */
pthreadpool_t yrt_session_xnn_pool(yrt_session *s);

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
