/* model_validate_nodes.c — every node checked against the tensors it touches, so that the kernel
 * it runs can never read or write outside its tensors: operand counts and indices for every kind
 * (from its row), then the row's own check (each kind's in runtime/src/ops/<kind>.c). */
#include "model_internal.h"
#include "op_def.h"
#include "ops/op_check.h"


typedef yrt_node_check vctx;

/* What holds for every kind, from its row: operand counts and indices, the output an
 * activation; then the row's own check. */
static yrt_status check_node(vctx *v) {
  const yrt_node_rec *n = v->n;
  const yrt_model *m = v->m;
  const yrt_op_def *d = yrt_op_lookup(m->ops, n->op);
  if (!d) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "unknown op %u", (unsigned)n->op);
  v->def = d;
  if (!yrt_model_string_ok(m, n->name)) return yrt_node_fail(v, YRT_ERR_FORMAT, "name offset %u outside the string table", (unsigned)n->name);
  if (n->n_in < d->min_in || n->n_in > d->max_in) return yrt_node_fail(v, YRT_ERR_FORMAT, "%u inputs (want %u..%u)", (unsigned)n->n_in, d->min_in, d->max_in);
  if (n->n_out != d->n_out) return yrt_node_fail(v, YRT_ERR_FORMAT, "%u outputs (want %u)", (unsigned)n->n_out, d->n_out);
  for (uint32_t k = 0; k < n->n_in; k++) {
    const int optional = (d->optional_in >> k) & 1u;
    if (n->in[k] == YRT_NONE && optional) continue;
    if (n->in[k] >= m->n_tensors) return yrt_node_fail(v, YRT_ERR_FORMAT, "input %u is tensor %u of %u", (unsigned)k, (unsigned)n->in[k], (unsigned)m->n_tensors);
  }
  for (uint32_t k = 0; k < n->n_out; k++) {
    if (n->out[k] >= m->n_tensors) return yrt_node_fail(v, YRT_ERR_FORMAT, "output is tensor %u of %u", (unsigned)n->out[k], (unsigned)m->n_tensors);
    const uint32_t ok = m->tensors[n->out[k]].kind;
    if (ok != YRT_TENSOR_ACT && ok != YRT_TENSOR_OUTPUT) return yrt_node_fail(v, YRT_ERR_FORMAT, "writes tensor %u of kind %u (not an activation)", (unsigned)n->out[k], (unsigned)ok);
  }
  return d->check(v);
}

yrt_status yrt_validate_nodes(const yrt_model *m, yrt_error *err) {
  for (uint32_t i = 0; i < m->n_nodes; i++) {
    vctx v = {m, i, &m->nodes[i], NULL, err};
    yrt_status st = check_node(&v);
    if (st != YRT_OK) return st;
  }
  return YRT_OK;
}
