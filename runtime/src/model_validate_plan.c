/* model_validate_plan.c — graph-level checks: the PLAN's inputs and outputs, every activation
 * written once and before it is read, and the memory plan: nothing a node writes overlaps, in the
 * arena, a tensor that is still needed (its own inputs included — kernels do not run in place;
 * views of one holder are told apart by their channels). */
#include <stdlib.h>

#include "model_internal.h"
#include "mem.h"
#include "op_def.h"

static int in_arena(const yrt_tensor_rec *t) { return t->kind != YRT_TENSOR_CONST; }

/* Where a tensor's elements are: its root's bytes (the holder's for a view) and, inside them, a
 * channel range (all of them for a dense tensor). Two views of one holder overlap only when
 * their channels do. */
typedef struct region {
  uint32_t root;
  uint64_t lo, hi;
  uint64_t c0, c1;
} region;

static region region_of(const yrt_model *m, uint32_t t) {
  const uint32_t r = yrt_view_root(m, t);
  const yrt_tensor_rec *rt = &m->tensors[r], *tt = &m->tensors[t];
  region g = {r, rt->offset, rt->offset + rt->nbytes, 0, UINT64_MAX};
  if (yrt_is_view(tt)) g.c0 = tt->view_channel, g.c1 = (uint64_t)tt->view_channel + (uint64_t)tt->dims[3];
  return g;
}

static int overlap(region a, region b) {
  if (!(a.lo < b.hi && b.lo < a.hi)) return 0;
  return a.root != b.root || (a.c0 < b.c1 && b.c0 < a.c1);
}

/* The regions node i writes: its output, but when inputs already lie in place (its row's
 * in_place: an in-place slice's one input, a concat's views at their slots) only the channel
 * slots of the others (none for the slice). Returns the count. */
static int written_regions(const yrt_model *m, uint32_t i, region *w) {
  const yrt_node_rec *n = &m->nodes[i];
  const yrt_op_def *d = yrt_op_lookup(m->ops, n->op);
  const region out = region_of(m, n->out[0]);
  int nw = 0, in_place = 0;
  uint64_t c = 0;
  for (uint32_t k = 0; d && d->in_place && k < n->n_in; k++) {
    const uint64_t ck = (uint64_t)m->tensors[n->in[k]].dims[3];
    if (d->in_place(m, n, k)) {
      in_place = 1;
    } else {
      w[nw] = out;
      w[nw].c0 = c, w[nw].c1 = c + ck;
      nw++;
    }
    c += ck;
  }
  if (in_place) return nw;
  w[0] = out; /* no view among the inputs: the whole output */
  return 1;
}

/* mark: n_tensors bytes of scratch (zero on entry and on return): duplicates and unlisted INPUT
 * tensors in one pass each (a file may list thousands of outputs: no pairwise loops). */
static yrt_status check_io_lists(const yrt_model *m, uint8_t *mark, yrt_error *err) {
  const yrt_plan_rec *p = m->plan;
  if (p->n_inputs < 1 || p->n_outputs < 1 || p->n_inputs > m->n_tensors || p->n_outputs > m->n_tensors)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan lists %u inputs and %u outputs", (unsigned)p->n_inputs,
                         (unsigned)p->n_outputs);
  yrt_status st = YRT_OK;
  for (uint32_t k = 0; k < p->n_inputs && st == YRT_OK; k++) {
    uint32_t t = m->plan_inputs[k];
    if (t >= m->n_tensors || m->tensors[t].kind != YRT_TENSOR_INPUT)
      st = yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan input %u is tensor %u, not an INPUT tensor", (unsigned)k,
                         (unsigned)t);
    else if (m->tensors[t].dtype != YRT_F32)
      st = yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: plan input %u is not float", (unsigned)k);
    else if (mark[t])
      st = yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan lists input tensor %u twice", (unsigned)t);
    else
      mark[t] = 1;
  }
  /* Every INPUT tensor must be one the caller can fill. */
  for (uint32_t t = 0; t < m->n_tensors && st == YRT_OK; t++)
    if (m->tensors[t].kind == YRT_TENSOR_INPUT && !mark[t])
      st = yrt_set_error(err, YRT_ERR_FORMAT, "yrt: INPUT tensor %u is not in the plan", (unsigned)t);
  for (uint32_t k = 0; k < p->n_inputs; k++)
    if (m->plan_inputs[k] < m->n_tensors) mark[m->plan_inputs[k]] = 0;
  for (uint32_t k = 0; k < p->n_outputs && st == YRT_OK; k++) {
    uint32_t t = m->plan_outputs[k];
    if (t >= m->n_tensors || m->tensors[t].kind != YRT_TENSOR_OUTPUT)
      st = yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan output %u is tensor %u, not an OUTPUT tensor",
                         (unsigned)k, (unsigned)t);
    else if (m->tensors[t].dtype != YRT_F32 && m->tensors[t].dtype != YRT_I8)
      st = yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: plan output %u is neither f32 nor i8", (unsigned)k);
    else if (mark[t])
      st = yrt_set_error(err, YRT_ERR_FORMAT, "yrt: plan lists output tensor %u twice", (unsigned)t);
    else
      mark[t] = 1;
  }
  for (uint32_t k = 0; k < p->n_outputs; k++)
    if (m->plan_outputs[k] < m->n_tensors) mark[m->plan_outputs[k]] = 0;
  return st;
}

/* def[t]: node writing t (-1 graph input, INT32_MIN never written); last[t]: last node reading t
 * (n_nodes for graph inputs and outputs, -1 never read). */
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
  /* Graph inputs live the whole run too (as the converter plans them): a second run without a
   * new input reads the same input, never what the first run wrote over it. */
  for (uint32_t k = 0; k < m->plan->n_inputs; k++) last[m->plan_inputs[k]] = nn;
  return YRT_OK;
}

/* Node i must not write over a tensor still needed: def[t] < i <= last[t]. The tensors live at
 * node i are kept in a linked list (joining at def + 1, leaving after last), so the check costs
 * the sum of the live-set sizes, not nodes x tensors (an 80k-node file took 28.5 s to load;
 * issue 19). `scratch` holds 3 * n_tensors + 2 * (n_nodes + 1) int32. */
static yrt_status check_memory_plan(const yrt_model *m, const int32_t *def, const int32_t *last, int32_t *scratch,
                                    yrt_error *err) {
  const int32_t nt = (int32_t)m->n_tensors, nn = (int32_t)m->n_nodes;
  int32_t *next = scratch, *prev = next + nt, *chain = prev + nt; /* live list; start/end buckets */
  int32_t *start = chain + nt, *end = start + nn + 1;
  for (int32_t i = 0; i <= nn; i++) start[i] = end[i] = -1;
  for (int32_t t = 0; t < nt; t++) {
    chain[t] = -1;
    if (!in_arena(&m->tensors[t]) || def[t] == INT32_MIN || last[t] <= def[t] || def[t] + 1 >= nn) continue;
    chain[t] = start[def[t] + 1];
    start[def[t] + 1] = t;
  }
  int32_t head = -1;
  yrt_status st = YRT_OK;
  for (int32_t i = 0; i < nn && st == YRT_OK; i++) {
    for (int32_t t = start[i]; t >= 0; t = chain[t]) { /* join the live list */
      next[t] = head;
      prev[t] = -1;
      if (head >= 0) prev[head] = t;
      head = t;
    }
    /* a tensor's end bucket is its last reader (graph outputs: never leave) */
    for (int32_t t = start[i]; t >= 0;) {
      const int32_t c = chain[t];
      if (last[t] < nn) {
        chain[t] = end[last[t]];
        end[last[t]] = t;
      }
      t = c;
    }
    const uint32_t o = m->nodes[i].out[0];
    region w[YRT_MAX_NODE_IO];
    const int nw = written_regions(m, (uint32_t)i, w);
    for (int32_t t = head; t >= 0 && nw > 0; t = next[t]) {
      if ((uint32_t)t == o) continue;
      const region rt = region_of(m, (uint32_t)t);
      int hit = 0;
      for (int k = 0; k < nw; k++) hit |= overlap(w[k], rt);
      if (hit) {
        st = yrt_set_error(err, YRT_ERR_FORMAT,
                           "yrt: memory plan: node %d writes tensor %u over tensor %u, which is still needed "
                           "(until node %d)",
                           (int)i, (unsigned)o, (unsigned)t, (int)last[t]);
        break;
      }
    }
    for (int32_t t = end[i]; t >= 0; t = chain[t]) { /* leave after their last reader */
      if (prev[t] >= 0) next[prev[t]] = next[t];
      else head = next[t];
      if (next[t] >= 0) prev[next[t]] = prev[t];
    }
  }
  return st;
}

yrt_status yrt_validate_plan(const yrt_model *m, yrt_error *err) {
  const size_t n = m->n_tensors ? m->n_tensors : 1;
  int32_t *def = yrt_alloc(&m->alloc, n * sizeof *def);
  int32_t *last = yrt_alloc(&m->alloc, n * sizeof *last);
  int32_t *scratch = yrt_alloc(&m->alloc, (3 * n + 2 * ((size_t)m->n_nodes + 1)) * sizeof *scratch);
  uint8_t *mark = yrt_zalloc(&m->alloc, n, 1);
  yrt_status st = YRT_OK;
  if (!def || !last || !scratch || !mark)
    st = yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory checking %u tensors", (unsigned)m->n_tensors);
  if (st == YRT_OK) st = check_io_lists(m, mark, err);
  if (st == YRT_OK) st = check_dataflow(m, def, last, err);
  if (st == YRT_OK) st = check_memory_plan(m, def, last, scratch, err);
  yrt_free(def);
  yrt_free(last);
  yrt_free(scratch);
  yrt_free(mark);
  return st;
}
