/* model_validate_plan.c — graph-level checks: the PLAN's inputs and outputs, every activation
 * written once and before it is read, and the memory plan: no node's output overlaps, in the
 * arena, a tensor that is still needed (its own inputs included — kernels do not run in place). */
#include <stdlib.h>

#include "model_internal.h"

static int in_arena(const yrt_tensor_rec *t) { return t->kind != YRT_TENSOR_CONST; }

static int overlap(const yrt_tensor_rec *a, const yrt_tensor_rec *b) {
  return a->offset < b->offset + b->nbytes && b->offset < a->offset + a->nbytes;
}

static yrt_status check_io_lists(const yrt_model *m, yrt_error *err) {
  const yrt_plan_rec *p = m->plan;
  if (p->n_inputs < 1 || p->n_outputs < 1 || p->n_inputs > m->n_tensors || p->n_outputs > m->n_tensors)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan lists %u inputs and %u outputs", (unsigned)p->n_inputs,
                         (unsigned)p->n_outputs);
  for (uint32_t k = 0; k < p->n_inputs; k++) {
    uint32_t t = m->plan_inputs[k];
    if (t >= m->n_tensors || m->tensors[t].kind != YRT_TENSOR_INPUT)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan input %u is tensor %u, not an INPUT tensor", (unsigned)k,
                           (unsigned)t);
    if (m->tensors[t].dtype != YRT_F32)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: plan input %u is not float", (unsigned)k);
    for (uint32_t j = 0; j < k; j++)
      if (m->plan_inputs[j] == t)
        return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan lists input tensor %u twice", (unsigned)t);
  }
  for (uint32_t k = 0; k < p->n_outputs; k++) {
    uint32_t t = m->plan_outputs[k];
    if (t >= m->n_tensors || m->tensors[t].kind != YRT_TENSOR_OUTPUT)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan output %u is tensor %u, not an OUTPUT tensor",
                           (unsigned)k, (unsigned)t);
    if (m->tensors[t].dtype != YRT_F32 && m->tensors[t].dtype != YRT_I8)
      return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: plan output %u is neither f32 nor i8", (unsigned)k);
    for (uint32_t j = 0; j < k; j++)
      if (m->plan_outputs[j] == t)
        return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan lists output tensor %u twice", (unsigned)t);
  }
  /* Every INPUT tensor must be one the caller can fill. */
  for (uint32_t t = 0; t < m->n_tensors; t++) {
    if (m->tensors[t].kind != YRT_TENSOR_INPUT) continue;
    int listed = 0;
    for (uint32_t k = 0; k < p->n_inputs; k++) listed |= m->plan_inputs[k] == t;
    if (!listed) return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: INPUT tensor %u is not in the plan", (unsigned)t);
  }
  return YRT_OK;
}

/* def[t]: node writing t (-1 graph input, INT32_MIN never written); last[t]: last node reading t
 * (n_nodes for graph outputs, -1 never read). */
static yrt_status check_dataflow(const yrt_model *m, int32_t *def, int32_t *last, yrt_error *err) {
  const int32_t nn = (int32_t)m->n_nodes;
  for (uint32_t t = 0; t < m->n_tensors; t++) {
    def[t] = m->tensors[t].kind == YRT_TENSOR_INPUT ? -1 : INT32_MIN;
    last[t] = -1;
  }
  for (int32_t i = 0; i < nn; i++) {
    const yrt_node_rec *n = &m->nodes[i];
    for (uint32_t k = 0; k < n->n_in; k++) {
      uint32_t t = n->in[k];
      if (t == YRT_NONE || m->tensors[t].kind == YRT_TENSOR_CONST) continue;
      if (def[t] == INT32_MIN)
        return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: node %d reads tensor %u before any node writes it", (int)i,
                             (unsigned)t);
      last[t] = i;
    }
    uint32_t o = n->out[0];
    if (def[o] != INT32_MIN)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: node %d writes tensor %u, already written by node %d", (int)i,
                           (unsigned)o, (int)def[o]);
    def[o] = i;
  }
  for (uint32_t k = 0; k < m->plan->n_outputs; k++) {
    uint32_t t = m->plan_outputs[k];
    if (def[t] == INT32_MIN)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: graph output tensor %u is never written", (unsigned)t);
    last[t] = nn;
  }
  return YRT_OK;
}

static yrt_status check_memory_plan(const yrt_model *m, const int32_t *def, const int32_t *last, yrt_error *err) {
  for (int32_t i = 0; i < (int32_t)m->n_nodes; i++) {
    const uint32_t o = m->nodes[i].out[0];
    const yrt_tensor_rec *to = &m->tensors[o];
    for (uint32_t t = 0; t < m->n_tensors; t++) {
      const yrt_tensor_rec *tt = &m->tensors[t];
      if (t == o || !in_arena(tt) || def[t] == INT32_MIN || def[t] >= i || last[t] < i) continue;
      if (overlap(to, tt))
        return yrt_set_error(err, YRT_ERR_FORMAT,
                             "yrt: memory plan: node %d writes tensor %u over tensor %u, which is still needed "
                             "(until node %d)",
                             (int)i, (unsigned)o, (unsigned)t, (int)last[t]);
    }
  }
  return YRT_OK;
}

yrt_status yrt_validate_plan(const yrt_model *m, yrt_error *err) {
  yrt_status st = check_io_lists(m, err);
  if (st != YRT_OK) return st;
  const size_t n = m->n_tensors ? m->n_tensors : 1;
  int32_t *def = malloc(n * sizeof *def);
  int32_t *last = malloc(n * sizeof *last);
  if (!def || !last) {
    free(def);
    free(last);
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory checking %u tensors", (unsigned)m->n_tensors);
  }
  st = check_dataflow(m, def, last, err);
  if (st == YRT_OK) st = check_memory_plan(m, def, last, err);
  free(def);
  free(last);
  return st;
}
