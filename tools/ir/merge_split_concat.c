/* merge_split_concat.c — Concat(..., Split(X):0, Split(X):1, ..., Split(X):k-1, ...) along the
 * Split's axis, the Split's outputs consecutive and complete, is Concat(..., X, ...): C2f / C3k2
 * blocks (`cv1 -> Split -> Concat(a, b, m(b)...)`) copy X once instead of slicing it into halves
 * and concatenating them back. Only when every Split output carries X's quantization, so the
 * values the Concat reads (and requantizes) are exactly the same. Outputs left without readers
 * are not lowered (lower_split). */
#include <string.h>

#include "ir.h"
#include "onnx_ops.h"

static int same_quant(const ir_quant *a, const ir_quant *b) {
  if (a->on != b->on) return 0;
  if (!a->on) return 1;
  return a->dtype == b->dtype && a->scale == b->scale && a->zero_point == b->zero_point && !a->scales &&
         !b->scales;
}

static int norm_axis(int64_t axis, int rank) { return (int)(axis < 0 ? axis + rank : axis); }

/* Index in c->in where split s's outputs start, consecutive and in order; -1 if not. */
static int find_run(const ir_node *c, const ir_node *s) {
  for (int k = 0; k + s->n_out <= c->n_in; k++) {
    int j = 0;
    while (j < s->n_out && c->in[k + j] == s->out[j]) j++;
    if (j == s->n_out) return k;
  }
  return -1;
}

int ir_merge_split_concat(ir_graph *g) {
  int merged = 0;
  for (int ci = 0; ci < g->n_nodes; ci++) {
    ir_node *c = &g->nodes[ci];
    if (c->dead || !ir_node_is_op(c, ONNX_OP_CONCAT) || c->n_out != 1) continue;
    for (int k = 0; k < c->n_in; k++) {
      const int t = c->in[k];
      if (t < 0 || g->tensors[t].producer < 0) continue;
      const ir_node *s = &g->nodes[g->tensors[t].producer];
      if (s->dead || !ir_node_is_op(s, ONNX_OP_SPLIT) || s->n_out < 2 || s->n_in < 1 || s->out[0] != t) continue;
      const ir_tensor *x = &g->tensors[s->in[0]];
      const int rank = x->rank;
      if (rank < 1 || g->tensors[c->out[0]].rank != rank) continue;
      if (norm_axis(ir_attr_int(s, "axis", 0), rank) != norm_axis(ir_attr_int(c, "axis", 0), rank)) continue;
      if (find_run(c, s) != k) continue;
      int ok = 1;
      for (int j = 0; j < s->n_out && ok; j++) ok = same_quant(&g->tensors[s->out[j]].q, &x->q);
      if (!ok) continue;
      /* X replaces the run: shift the rest of the inputs down */
      const int drop = s->n_out - 1;
      c->in[k] = s->in[0];
      memmove(&c->in[k + 1], &c->in[k + 1 + drop], sizeof(int) * (size_t)(c->n_in - k - 1 - drop));
      c->n_in -= drop;
      merged++;
    }
  }
  return merged;
}
