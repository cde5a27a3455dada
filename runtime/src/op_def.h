/* op_def.h — what a node kind is: the row type of the runtime's op registry (yrt_op_def), one row
 * per node kind (yrt_op), in the spirit of TensorFlow Lite Micro's TfLiteRegistration and ncnn's
 * layer registry. A row says what the kind is called, how many operands it takes, how its
 * parameters are validated, how a session prepares it (kernel creation, packing, tables), runs it
 * and releases it, and what other kinds may ask of it (the columns below).
 *
 * Every reader goes through a yrt_op_table: the validator (model_validate_nodes.c), the executor
 * (session.c: prepare, run, release), the names in messages and profiles. Nothing switches over
 * yrt_op to pick behaviour, so an op is added by writing its functions (ops/<kind>.c) and one row
 * in op_table.c (op_table.h: the built-in table); a model may be loaded with another table (tests
 * register a dummy kind that way, tests/runtime/test_runtime_op_table.c). This header names no
 * kind and no table: the kinds (ops/) and the executor include it, op_table.c includes them. */
#ifndef YOLORT_OP_DEF_H
#define YOLORT_OP_DEF_H

#include <stdint.h>

#include "model_internal.h"

typedef struct yrt_session yrt_session;
typedef struct yrt_exec yrt_exec;
typedef struct yrt_op_def yrt_op_def;

/* One node under validation: the model (tensors already validated), the node, its index and
 * its row. Operand counts, tensor indices and the output's kind are checked before the row's
 * check runs, so it may read in[0..n_in) (but an optional input may be YRT_NONE) and out[0]. */
typedef struct yrt_node_check {
  const yrt_model *m;
  uint32_t idx;
  const yrt_node_rec *n;
  const yrt_op_def *def;
  yrt_error *err;
} yrt_node_check;

/* Sets err to "yrt: node <idx> '<name>' (<op>): <what>" and returns s (ops/op_check.c). */
yrt_status yrt_node_fail(const yrt_node_check *v, yrt_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Validation of a kind's parameters and shapes: everything its prepare and run rely on. */
typedef yrt_status (*yrt_op_check_fn)(const yrt_node_check *v);
/* Session creation: e->in/out, shapes and quantization are filled and e->run is the row's run;
 * prepare works out the kind's parameters once (and may pick a specialised runner). */
typedef yrt_status (*yrt_op_prepare_fn)(yrt_session *s, yrt_exec *e, yrt_error *err);
/* Runs one prepared node. Only XNNPACK can fail at run time. */
typedef yrt_status (*yrt_op_run_fn)(const yrt_session *s, const yrt_exec *e, yrt_error *err);
/* Frees what prepare allocated; called once per node, also when prepare failed half way. */
typedef void (*yrt_op_release_fn)(yrt_exec *e);
/* A decode that writes output0's detection rows [1, 4 + nc, N], threshold-aware (the camera
 * path, prepost/detect.c): lists the anchors whose best score can pass conf (every one that does,
 * in increasing order; room for N in list) and writes them decoded, packed, into out[0] as
 * [4 + nc][n]; returns n. The detect stage's plan runs the graph without the node, then this. */
typedef size_t (*yrt_op_detect_over_fn)(const yrt_session *s, const yrt_exec *e, float conf, int32_t *list);
/* A keypoint decode (the pose head): its keypoints per anchor, *dims their values each (2 or 3);
 * its output is output0's rows after the boxes' (model_heads.c, prepost/keypoints.c). */
typedef int (*yrt_op_keypoints_fn)(const yrt_node_rec *n, int *dims);
/* The node's kind in profiles when "name.dtype" does not say enough, else NULL. */
typedef const char *(*yrt_op_kind_fn)(const yrt_model *m, const yrt_node_rec *n);

/* What kinds ask of each other at session creation, as row columns (never an op-id test):
 *
 * publish_range: asked by a dynamically quantized consumer of prepared node e's f32 output
 * (ops/conv_dynamic.c): 1 when e, as prepared, measures its output's range in its own pass on
 * every run (it then sets e->pub_range and publishes e->y_lo, e->y_hi), else 0. */
typedef int (*yrt_op_publish_range_fn)(yrt_exec *e);
/* Output pixels [lo, hi) of a prepared node run by pixels (ops/binary.c: the int8 Add). */
typedef void (*yrt_op_pixels_fn)(const yrt_session *s, const yrt_exec *e, size_t lo, size_t hi);
/* absorb_next: prepared node e takes over `next`, the node right after it, which reads e's output
 * (read by nothing else) and runs by pixels with fn: 1 when e runs fn on each range of output
 * pixels as soon as it wrote them (the caller then leaves `next` nothing to do), 0 when it cannot. */
typedef int (*yrt_op_absorb_next_fn)(const yrt_session *s, yrt_exec *e, const yrt_exec *next, yrt_op_pixels_fn fn);
/* pointwise: what prepared node e (its own runner, not fused) computes element by element, for a
 * consumer that folds such a chain into one table (ops/binary.c: DQ -> Sigmoid -> Mul) or a stage
 * that writes its output itself (prepost/frame.c: a camera frame quantized straight into the
 * int8 input): YRT_POINTWISE_NONE, _DEQUANTIZE (int8 -> f32 by e->q[0]), _UNARY (f32, *unary: the
 * kind) or _QUANTIZE (f32 -> int8 by e->q[2], as yk_quantize1). */
enum { YRT_POINTWISE_NONE = 0, YRT_POINTWISE_DEQUANTIZE = 1, YRT_POINTWISE_UNARY = 2, YRT_POINTWISE_QUANTIZE = 3 };
typedef int (*yrt_op_pointwise_fn)(const yrt_exec *e, int32_t *unary);
/* dynq: int8 elements of the session's one shared buffer for quantizing a float input on each
 * run (s->dynq; the nodes using it run one at a time) node n needs, 0 for none. */
typedef size_t (*yrt_op_dynq_fn)(const yrt_model *m, const yrt_node_rec *n);
/* Tensor views (yrt_tensor_rec.view_holder), of a validated node: view_in, may input k be a view
 * (the kind reads it with its pixel stride, or it is already in place); view_out, may the output
 * be one (the kind writes it with its pixel stride, or is a no-op); in_place, input k already lies
 * where the node would write it (a concat's slot, an in-place slice's whole output), so the node
 * writes nothing there. Read by model_validate_views.c, model_validate_plan.c and the kinds. */
typedef int (*yrt_op_view_in_fn)(const yrt_model *m, const yrt_node_rec *n, uint32_t k);
typedef int (*yrt_op_view_out_fn)(const yrt_model *m, const yrt_node_rec *n);

struct yrt_op_def {
  const char *name;          /* "conv2d" */
  const char *kind_names[3]; /* by out[0]'s dtype: "conv2d.f32", "conv2d.i8", "conv2d.i32" */
  uint8_t min_in, max_in;    /* input count range */
  uint8_t n_out;             /* output count */
  uint8_t optional_in;       /* bit k: input k may be YRT_NONE */
  uint8_t per_channel_in;    /* bit k: an int8 input k may have per-channel scales (weights) */
  yrt_op_check_fn check;     /* required */
  yrt_op_prepare_fn prepare; /* NULL: the run needs only the common yrt_exec fields */
  yrt_op_run_fn run;         /* required: the runner unless prepare picks another */
  yrt_op_release_fn release; /* NULL: prepare allocates nothing */
  yrt_op_kind_fn kind;       /* NULL: always kind_names */
  yrt_op_detect_over_fn detect_over; /* NULL: a node that is no detection decode */
  yrt_op_publish_range_fn publish_range; /* NULL: never publishes its output's range */
  yrt_op_absorb_next_fn absorb_next;     /* NULL: never takes over the next node */
  yrt_op_pointwise_fn pointwise;         /* NULL: no element-wise map a consumer may fold */
  yrt_op_dynq_fn dynq;                   /* NULL: never quantizes into s->dynq */
  yrt_op_view_in_fn view_in;             /* NULL: reads no views */
  yrt_op_view_out_fn view_out;           /* NULL: writes no views */
  yrt_op_view_in_fn in_place;            /* NULL: writes its whole output */
  yrt_op_keypoints_fn keypoints;     /* NULL: a node that decodes no keypoints */
  uint8_t rotated;                   /* 1: writes output0's rows with an angle row after the scores
                                        (OBB: rotated NMS, yrt_session_rbox) */
};

/* .name and .kind_names of a row. */
#define YRT_OP_NAMES(s) .name = s, .kind_names = {s ".f32", s ".i8", s ".i32"}

/* Rows indexed by op id; row 0 and rows without a check are not kinds. */
typedef struct yrt_op_table {
  const yrt_op_def *rows;
  uint32_t count;
} yrt_op_table;

/* The row of op, or NULL when the table has none. */
static inline const yrt_op_def *yrt_op_lookup(const yrt_op_table *t, uint32_t op) {
  if (!t || op < 1 || op >= t->count || !t->rows[op].check) return NULL;
  return &t->rows[op];
}

/* A kind's name and its profile name by output dtype ("conv2d", "conv2d.i8"), "unknown" for an op
 * the table has no row for. */
static inline const char *yrt_op_table_name(const yrt_op_table *t, uint32_t op) {
  const yrt_op_def *d = yrt_op_lookup(t, op);
  return d ? d->name : "unknown";
}

static inline const char *yrt_op_table_kind_name(const yrt_op_table *t, uint32_t op, uint32_t dtype) {
  const yrt_op_def *d = yrt_op_lookup(t, op);
  if (!d || dtype < YRT_F32 || dtype > YRT_I32) return "unknown";
  return d->kind_names[dtype - 1];
}

#endif
