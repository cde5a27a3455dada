/* classify_task.c — see classify_task.h. A classifier's output is never given to the Detect
 * head fusion or the detection decode: its rows are class scores, not boxes. */
#include "classify_task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_ops.h"
#include "yolort_format.h"

/* The class count of a [1, nc] or [1, nc, 1, 1] float tensor, else 0. */
static int64_t class_dims(const ir_tensor *t) {
  if (t->dtype != IR_F32 || t->dims[0] != 1) return 0;
  if (t->rank == 2) return t->dims[1];
  if (t->rank == 4 && t->dims[2] == 1 && t->dims[3] == 1) return t->dims[1];
  return 0;
}

/* The producer of t, skipping data movement that keeps the values (Reshape / Flatten / ...);
 * *moved = 1 when it skipped any. */
static const ir_node *value_producer(const ir_graph *g, int t, int *moved) {
  *moved = 0;
  for (int hops = 0; hops < 8 && t >= 0; hops++, *moved = 1) {
    const int p = g->tensors[t].producer;
    if (p < 0 || g->nodes[p].dead) return NULL;
    const ir_node *n = &g->nodes[p];
    if (!ir_node_is_op(n, ONNX_OP_RESHAPE) && !ir_node_is_op(n, ONNX_OP_FLATTEN) &&
        !ir_node_is_op(n, ONNX_OP_SQUEEZE) && !ir_node_is_op(n, ONNX_OP_UNSQUEEZE) &&
        !ir_node_is_op(n, ONNX_OP_IDENTITY))
      return n;
    t = n->n_in > 0 ? n->in[0] : -1;
  }
  return NULL;
}

static int is_image_input(const ir_graph *g) {
  if (g->n_inputs != 1) return 0;
  const ir_tensor *x = &g->tensors[g->inputs[0]];
  return x->rank == 4 && x->dims[1] == 3 && x->dtype == IR_F32;
}

yrt_status lw_classify_recognise(ir_graph *g, int *is_cls, int *nc, int *logits, char *note, size_t note_cap,
                                 yrt_error *err) {
  *is_cls = 0;
  *nc = 0;
  *logits = 0;
  if (note_cap) note[0] = '\0';
  const int meta = g->task && strcmp(g->task, "classify") == 0;
  if (g->task && !meta) return YRT_OK; /* detect, segment: recorded as such */
  if (g->n_outputs < 1) return YRT_OK;
  const int out = g->outputs[0];
  const ir_tensor *y = &g->tensors[out];
  const int64_t n = class_dims(y);
  int moved = 0;
  const ir_node *p = value_producer(g, out, &moved);
  if (!meta) { /* by its shape: one image in, one row of class scores out */
    if (n < 2 || g->n_outputs != 1 || !is_image_input(g) || !p) return YRT_OK;
    static const onnx_op k_ops[] = {ONNX_OP_SOFTMAX, ONNX_OP_MATMUL, ONNX_OP_ADD};
    int ok = ir_node_is(p, "Gemm");
    for (size_t i = 0; i < sizeof k_ops / sizeof k_ops[0]; i++) ok |= ir_node_is_op(p, k_ops[i]);
    /* a conv's [1, nc, 1, 1] alone may be any feature map (a global pool): only once flattened */
    ok |= ir_node_is_op(p, ONNX_OP_CONV) && moved && y->rank == 2;
    if (!ok) return YRT_OK;
  } else if (n < 1) {
    char dims[96] = "";
    for (int d = 0, o = 0; d < y->rank && o < (int)sizeof dims - 24; d++)
      o += snprintf(dims + o, sizeof dims - (size_t)o, "%s%lld", d ? ", " : "", (long long)y->dims[d]);
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED,
                         "convert: the model's task is 'classify' (metadata_props) but output '%.120s' is [%s]%s, "
                         "not the class scores [1, nc] or [1, nc, 1, 1]",
                         y->name, dims, y->dtype == IR_F32 ? "" : " (not float)");
  }
  if (n > YRT_MAX_CLASSES)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "convert: classifier output '%.120s' has %lld classes, more than a "
                         ".yrt holds (%d)", y->name, (long long)n, YRT_MAX_CLASSES);
  /* probabilities when a Softmax over the class axis makes the output */
  int probs = 0;
  if (p && ir_node_is_op(p, ONNX_OP_SOFTMAX) && p->n_in > 0) {
    const ir_tensor *x = &g->tensors[p->in[0]];
    const int64_t a = ir_attr_int(p, "axis", -1); /* ir_infer_shapes made it explicit */
    probs = a >= 0 && a < x->rank && x->dims[a] == n && ir_numel(x) == n;
  }
  if (!meta) {
    free(g->task);
    if (!(g->task = ir_strdup("classify"))) return yrt_set_error(err, YRT_ERR_NOMEM, "convert: out of memory");
  }
  *is_cls = 1;
  *nc = (int)n;
  *logits = !probs;
  if (note_cap)
    snprintf(note, note_cap, "output '%.60s' [1, %lld] class %s (%s)%s", y->name, (long long)n,
             probs ? "probabilities" : "logits", probs ? "the graph ends in Softmax" : "no final Softmax: the runtime applies one",
             meta ? "" : "; recognised by its shape (no task in the metadata)");
  return YRT_OK;
}
