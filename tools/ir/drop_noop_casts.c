/* drop_noop_casts.c — ir_drop_noop_casts (ir.h): a Cast to the type its input already has. FP16
 * exports read as float32 leave float -> float Casts (onnxconverter's keep_io_types wraps the
 * graph in them; mixed exports put them around ops kept in float32); they compute nothing here. */
#include "ir.h"
#include "onnx_ops.h"

int ir_drop_noop_casts(ir_graph *g) {
  int dropped = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    ir_node *n = &g->nodes[i];
    if (n->dead || n->op != ONNX_OP_CAST || n->n_in < 1 || n->n_out != 1 || n->in[0] < 0) continue;
    int x = n->in[0], y = n->out[0];
    ir_tensor *tx = &g->tensors[x], *ty = &g->tensors[y];
    if (tx->dtype != ty->dtype || tx->dtype == IR_UNDEF || tx->data) continue;
    int p = tx->producer;
    if (p >= 0 && !tx->is_output) {
      /* the producer writes y (which keeps its name, e.g. a graph output's); x's other readers
       * read y */
      ir_node *pn = &g->nodes[p];
      for (int k = 0; k < pn->n_out; k++)
        if (pn->out[k] == x) pn->out[k] = y;
      n->dead = 1;
      ty->producer = p;
      tx->producer = -1;
      ir_replace_uses(g, x, y);
    } else if (!ty->is_output) {
      n->dead = 1; /* x is a graph input (or an output itself): y's readers read x */
      ir_replace_uses(g, y, x);
    } else {
      continue; /* input -> Cast -> output: nothing to gain */
    }
    dropped++;
  }
  return dropped;
}
