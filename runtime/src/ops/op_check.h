/* op_check.h — what a kind's check (its row's .check, op_def.h) shares with the others: its
 * operands, range and shape tests, per-tensor quantization. Inline: the validator and every
 * ops/<kind>.c read them. */
#ifndef YOLORT_OPS_OP_CHECK_H
#define YOLORT_OPS_OP_CHECK_H

#include <stdint.h>

#include "op_def.h"

/* Bounds on kernel parameters: generous for any CNN, small enough that no arithmetic overflows. */
#define YRT_MAX_KERNEL 1024
#define YRT_MAX_STRIDE 1024
#define YRT_MAX_PAD 1024

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

/* Same int8 quantization (or not int8): a data move that copies bytes. */
static inline int yrt_same_qparams(const yrt_tensor_rec *a, const yrt_tensor_rec *b) {
  if (a->dtype != YRT_I8) return 1;
  return a->scale == b->scale && a->zero_point == b->zero_point && a->n_scales <= 1 && b->n_scales <= 1;
}

/* Window arithmetic shared by conv and maxpool: out == (in + pads - eff_k) / s + 1. */
static inline int yrt_window_ok(int64_t in, int64_t k, int64_t s, int64_t pa, int64_t pb, int64_t dil, int64_t out) {
  const int64_t eff = dil * (k - 1) + 1;
  const int64_t span = in + pa + pb - eff;
  if (span < 0) return 0;
  return out == span / s + 1;
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

/* An element-wise dtype conversion from -> to (quantize, dequantize): same element count. */
static inline yrt_status yrt_check_cast(const yrt_node_check *v, uint32_t from, uint32_t to) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (x->dtype != from || y->dtype != to) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "dtype %u -> %u", (unsigned)x->dtype, (unsigned)y->dtype);
  if (yrt_tensor_numel(x) != yrt_tensor_numel(y)) return yrt_node_fail(v, YRT_ERR_SHAPE, "element counts differ");
  return yrt_require_per_tensor(v);
}

#endif
