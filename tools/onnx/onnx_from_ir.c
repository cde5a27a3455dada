/* onnx_from_ir.c — an IR graph back to an ONNX model (see onnx_model_from_ir in onnx_write.h). */
#include <stdlib.h>
#include <string.h>

#include "onnx_write.h"

/* Attributes the IR passes add for the lowering; not ONNX, so never written. */
static int internal_attr(const char *name) { return strncmp(name, "yolort.", 7) == 0; }

static int write_attr(const ir_graph *g, Onnx__NodeProto *nd, const ir_attr *a) {
  switch (a->type) {
    case IR_ATTR_INT: return onnx_node_attr_int(nd, a->name, a->i);
    case IR_ATTR_FLOAT: return onnx_node_attr_float(nd, a->name, a->f);
    case IR_ATTR_STRING: return onnx_node_attr_string(nd, a->name, a->s);
    case IR_ATTR_INTS: return onnx_node_attr_ints(nd, a->name, a->ints, a->n_ints);
    case IR_ATTR_FLOATS: return onnx_node_attr_floats(nd, a->name, a->floats, a->n_floats);
    case IR_ATTR_TENSOR: {
      if (a->tensor < 0 || a->tensor >= g->n_tensors || !g->tensors[a->tensor].data) return -1;
      const ir_tensor *t = &g->tensors[a->tensor];
      return onnx_node_attr_tensor(nd, a->name, onnx_tensor_new("", t->dtype, t->rank, t->dims, t->data, 1));
    }
  }
  return -1;
}

/* Everything of `like` that is not the graph: ir_version, opset imports, metadata. */
static int copy_model_info(Onnx__ModelProto *m, const Onnx__ModelProto *like) {
  if (like->has_ir_version) m->ir_version = like->ir_version;
  for (size_t i = 0; i < like->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = like->opset_import[i];
    if (o && o->has_version && onnx_model_set_opset_domain(m, o->domain, o->version)) return -1;
  }
  for (size_t i = 0; i < like->n_metadata_props; i++) {
    const Onnx__StringStringEntryProto *e = like->metadata_props[i];
    if (e && e->key && onnx_model_set_metadata(m, e->key, e->value)) return -1;
  }
  return 0;
}

yrt_status onnx_model_from_ir(const ir_graph *g, const Onnx__ModelProto *like, Onnx__ModelProto **out,
                              yrt_error *err) {
  *out = NULL;
  int *order = NULL, n_order = 0;
  yrt_status st = ir_topo_order(g, &order, &n_order, err);
  if (st) return st;
  Onnx__ModelProto *m = onnx_model_new(g->opset);
  char *written = calloc((size_t)g->n_tensors + 1, 1); /* constants already written */
  int bad = !m || !written || (like && copy_model_info(m, like));
  for (int k = 0; !bad && k < g->n_inputs; k++) {
    const ir_tensor *t = &g->tensors[g->inputs[k]];
    bad = onnx_model_add_input(m, t->name, t->dtype, t->rank, t->dims);
  }
  for (int k = 0; !bad && k < n_order; k++) {
    const ir_node *n = &g->nodes[order[k]];
    const char **in = calloc((size_t)n->n_in + 1, sizeof(char *));
    const char **outs = calloc((size_t)n->n_out + 1, sizeof(char *));
    bad = !in || !outs;
    for (int i = 0; !bad && i < n->n_in; i++) {
      const int t = n->in[i];
      in[i] = t < 0 ? "" : g->tensors[t].name;
      if (t >= 0 && g->tensors[t].data && !g->tensors[t].is_input && !written[t]) {
        const ir_tensor *c = &g->tensors[t];
        bad = onnx_model_add_initializer(m, c->name, c->dtype, c->rank, c->dims, c->data);
        written[t] = 1;
      }
    }
    for (int i = 0; !bad && i < n->n_out; i++) outs[i] = n->out[i] < 0 ? "" : g->tensors[n->out[i]].name;
    Onnx__NodeProto *nd = bad ? NULL : onnx_model_add_node(m, n->op_type, n->name, in, n->n_in, outs, n->n_out);
    bad = bad || !nd || (n->domain && n->domain[0] && onnx_node_set_domain(nd, n->domain));
    for (int a = 0; !bad && a < n->n_attrs; a++)
      if (!internal_attr(n->attrs[a].name)) bad = write_attr(g, nd, &n->attrs[a]);
    free(in);
    free(outs);
  }
  for (int k = 0; !bad && k < g->n_outputs; k++) {
    const int t = g->outputs[k];
    const ir_tensor *x = &g->tensors[t];
    if (x->data && !written[t]) {
      bad = onnx_model_add_initializer(m, x->name, x->dtype, x->rank, x->dims, x->data);
      written[t] = 1;
    }
    if (!bad) bad = onnx_model_add_output(m, x->name, x->dtype == IR_UNDEF ? IR_F32 : x->dtype, x->rank, x->dims);
  }
  free(order);
  free(written);
  if (bad) {
    onnx_model_free(m);
    return yrt_set_error(err, YRT_ERR_NOMEM, "onnx: cannot write the graph (out of memory or a malformed "
                         "constant attribute)");
  }
  *out = m;
  return YRT_OK;
}
