/* op_check.h — what a kind's check (its row's .check, op_table.h) shares with the others: its
 * operands, range and shape tests, per-tensor quantization. Inline: the validator and every
 * ops/<kind>.c read them. */
#ifndef YOLORT_OPS_OP_CHECK_H
#define YOLORT_OPS_OP_CHECK_H

#include <stdint.h>

#include "op_table.h"

static inline const yrt_tensor_rec *yrt_node_in(const yrt_node_check *v, int k) { return &v->m->tensors[v->n->in[k]]; }
static inline const yrt_tensor_rec *yrt_node_out(const yrt_node_check *v, int k) { return &v->m->tensors[v->n->out[k]]; }
static inline int yrt_range_ok(int32_t v, int32_t lo, int32_t hi) { return v >= lo && v <= hi; }
static inline int yrt_per_tensor(const yrt_tensor_rec *t) { return t->n_scales <= 1; }

static inline int yrt_same_dims(const yrt_tensor_rec *a, const yrt_tensor_rec *b) {
  if (a->rank != b->rank) return 0;
  for (uint32_t d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return 0;
  return 1;
}

/* Int8 operands per-tensor, but those the row allows per-channel scales (weights), and the output. */
static inline yrt_status yrt_require_per_tensor(const yrt_node_check *v) {
  for (uint32_t k = 0; k < v->n->n_in; k++)
    if (v->n->in[k] != YRT_NONE && yrt_node_in(v, (int)k)->dtype == YRT_I8 && !yrt_per_tensor(yrt_node_in(v, (int)k)) &&
        !(v->def->per_channel_in & (1u << k)))
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "input %u has per-channel scales", (unsigned)k);
  if (!yrt_per_tensor(yrt_node_out(v, 0))) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "output has per-channel scales");
  return YRT_OK;
}

#endif
