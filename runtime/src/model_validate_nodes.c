/* model_validate_nodes.c — every node checked against the tensors it touches, so that the kernel
 * it runs can never read or write outside its tensors: operand counts and indices for every kind
 * (from its row), then the row's own check — here for the kinds not yet in a room of their own
 * (conv, binary, unary, lut, concat, slice, quantize, dequantize); the others' checks live in
 * runtime/src/ops/<kind>.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model_internal.h"
#include "yk.h"
#include "node_kind.h"
#include "op_table.h"
#include "ops/op_check.h"


typedef yrt_node_check vctx;









yrt_status yrt_check_conv(const vctx *v) {
  const yrt_node_rec *n = v->n;
  const int32_t *p = n->p;
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *w = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  const yrt_tensor_rec *b = (n->n_in > 2 && n->in[2] != YRT_NONE) ? yrt_node_in(v, 2) : NULL;
  if (x->rank != 4 || w->rank != 4 || y->rank != 4)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "x, w, y must be rank 4 (got %u, %u, %u)", (unsigned)x->rank,
               (unsigned)w->rank, (unsigned)y->rank);
  if (w->kind != YRT_TENSOR_CONST || (b && b->kind != YRT_TENSOR_CONST))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weights and bias must be constants");
  /* int8 arithmetic (i8 x and w, i32 bias), output int8 or, groups 1 only, float (the float
   * head's last convs: (float)acc * s_x * s_w[c]) */
  const int is_i8 = x->dtype == YRT_I8;
  if (is_i8) {
    if (w->dtype != YRT_I8 || (b && b->dtype != YRT_I32) || (y->dtype != YRT_I8 && y->dtype != YRT_F32))
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 conv needs i8 x/w, i32 bias and an i8 or f32 output");
    if (y->dtype == YRT_F32 && p[YRT_CONV_P_GROUPS] != 1)
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "an int8 conv with float output must have groups 1");
    if (w->zero_point != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 weights must be symmetric (zp %d)", (int)w->zero_point);
    if (w->n_scales > 1 && w->q_axis != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weight scales must be on axis 0");
  } else if (y->dtype == YRT_F32 && x->dtype == YRT_F32 && w->dtype == YRT_I8) {
    /* dynamic quantization: x quantized on every run with its measured range, int8 weights,
     * f32 bias and output (groups 1: our conv kernel's float-output mode) */
    if ((b && b->dtype != YRT_F32) || p[YRT_CONV_P_GROUPS] != 1)
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "a dynamically quantized conv needs an f32 bias and groups 1");
    if (w->zero_point != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 weights must be symmetric (zp %d)", (int)w->zero_point);
    if (w->n_scales > 1 && w->q_axis != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weight scales must be on axis 0");
    const int64_t span = (int64_t)p[YRT_CONV_P_KH] * p[YRT_CONV_P_KW] * x->dims[3] * 255 * 128;
    if (span > INT32_MAX / 2)
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 window of %lld products can overflow int32", (long long)(span / (255 * 128)));
  } else if (y->dtype == YRT_F32) {
    if (x->dtype != YRT_F32 || w->dtype != YRT_F32 || (b && b->dtype != YRT_F32))
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "float conv needs f32 x/w/bias/y");
  } else {
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "output dtype %u", (unsigned)y->dtype);
  }
  for (int k = YRT_CONV_P_KH; k <= YRT_CONV_P_KW; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_KERNEL)) return yrt_node_fail(v, YRT_ERR_FORMAT, "kernel size p[%d] = %d", k, (int)p[k]);
  for (int k = YRT_CONV_P_SH; k <= YRT_CONV_P_SW; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_STRIDE)) return yrt_node_fail(v, YRT_ERR_FORMAT, "stride p[%d] = %d", k, (int)p[k]);
  for (int k = YRT_CONV_P_PAD_T; k <= YRT_CONV_P_PAD_R; k++)
    if (!yrt_range_ok(p[k], 0, YRT_MAX_PAD)) return yrt_node_fail(v, YRT_ERR_FORMAT, "padding p[%d] = %d", k, (int)p[k]);
  for (int k = YRT_CONV_P_DH; k <= YRT_CONV_P_DW; k++)
    if (!yrt_range_ok(p[k], 1, YRT_MAX_KERNEL)) return yrt_node_fail(v, YRT_ERR_FORMAT, "dilation p[%d] = %d", k, (int)p[k]);
  const int64_t g = p[YRT_CONV_P_GROUPS];
  const int64_t cin = x->dims[3], cout = y->dims[3];
  if (g < 1 || cin % g != 0 || cout % g != 0)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "groups %lld do not divide Cin %lld and Cout %lld", (long long)g,
               (long long)cin, (long long)cout);
  if (x->dims[0] != y->dims[0]) return yrt_node_fail(v, YRT_ERR_SHAPE, "batch %d -> %d", (int)x->dims[0], (int)y->dims[0]);
  if (w->dims[0] != cout || w->dims[1] != p[YRT_CONV_P_KH] || w->dims[2] != p[YRT_CONV_P_KW] || w->dims[3] != cin / g)
    return yrt_node_fail(v, YRT_ERR_SHAPE, "weight dims [%d,%d,%d,%d] disagree with Cout %lld, kernel %dx%d, Cin/g %lld",
               (int)w->dims[0], (int)w->dims[1], (int)w->dims[2], (int)w->dims[3], (long long)cout,
               (int)p[YRT_CONV_P_KH], (int)p[YRT_CONV_P_KW], (long long)(cin / g));
  if (b && (b->rank != 1 || b->dims[0] != cout))
    return yrt_node_fail(v, YRT_ERR_SHAPE, "bias must be [%lld]", (long long)cout);
  if (is_i8) {
    /* Kernels accumulate bias + sum((x - zp) * w) in int32: a hostile bias overflowed the scalar
     * ones (fuzz finding). |x - zp| <= 255, |w| <= 128. */
    const int64_t span = (int64_t)p[YRT_CONV_P_KH] * p[YRT_CONV_P_KW] * (cin / g) * 255 * 128;
    if (span > INT32_MAX)
      return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 window of %lld products can overflow int32",
                 (long long)(span / (255 * 128)));
    const int32_t *bd = b ? (const int32_t *)yrt_tensor_const_data(v->m, b) : NULL;
    for (int64_t c = 0; bd && c < cout; c++)
      if (bd[c] > INT32_MAX - span || bd[c] < INT32_MIN + span)
        return yrt_node_fail(v, YRT_ERR_FORMAT, "bias[%lld] = %d can overflow the int32 accumulator", (long long)c,
                   (int)bd[c]);
  }
  if (!yrt_window_ok(x->dims[1], p[YRT_CONV_P_KH], p[YRT_CONV_P_SH], p[YRT_CONV_P_PAD_T], p[YRT_CONV_P_PAD_B],
                 p[YRT_CONV_P_DH], y->dims[1]) ||
      !yrt_window_ok(x->dims[2], p[YRT_CONV_P_KW], p[YRT_CONV_P_SW], p[YRT_CONV_P_PAD_L], p[YRT_CONV_P_PAD_R],
                 p[YRT_CONV_P_DW], y->dims[2]))
    return yrt_node_fail(v, YRT_ERR_SHAPE, "output %dx%d does not follow from input %dx%d and the window",
               (int)y->dims[1], (int)y->dims[2], (int)x->dims[1], (int)x->dims[2]);
  const int32_t act = p[YRT_CONV_P_ACT];
  if (!yrt_range_ok(act, YRT_UNARY_NONE, YRT_UNARY_COUNT_ - 1)) return yrt_node_fail(v, YRT_ERR_FORMAT, "activation %d", (int)act);
  if (y->dtype == YRT_I8 && act != YRT_UNARY_NONE && act != YRT_UNARY_RELU && act != YRT_UNARY_IDENTITY)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 conv fuses only relu (act %d; use a LUT)", (int)act);
  const int32_t lut = p[YRT_CONV_P_LUT];
  if (lut != -1) {
    if (y->dtype != YRT_I8) return yrt_node_fail(v, YRT_ERR_FORMAT, "LUT on a float-output conv");
    if (lut < 0 || (uint32_t)lut >= v->m->n_tensors) return yrt_node_fail(v, YRT_ERR_FORMAT, "LUT tensor index %d", (int)lut);
    const yrt_tensor_rec *t = &v->m->tensors[lut];
    if (t->kind != YRT_TENSOR_CONST || t->dtype != YRT_I8 || yrt_tensor_numel(t) != 256)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "LUT tensor %d is not a constant of 256 int8", (int)lut);
  }
  return yrt_require_per_tensor(v);
}

yrt_status yrt_check_binary(const vctx *v) {
  const yrt_tensor_rec *a = yrt_node_in(v, 0), *b = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  const int32_t kind = v->n->p[0];
  if (a->dtype != y->dtype || b->dtype != y->dtype || (y->dtype != YRT_F32 && y->dtype != YRT_I8))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "operands must be all f32 or all i8");
  if (!yrt_range_ok(kind, YRT_BIN_ADD, YRT_BIN_DIV)) return yrt_node_fail(v, YRT_ERR_FORMAT, "binary kind %d", (int)kind);
  if (y->dtype == YRT_I8 && kind != YRT_BIN_ADD && kind != YRT_BIN_MUL)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 binary supports add and mul only (kind %d)", (int)kind);
  if (a->rank != y->rank || b->rank != y->rank) return yrt_node_fail(v, YRT_ERR_SHAPE, "operands differ in rank");
  const int32_t arith = v->n->p[1];
  if (!yrt_range_ok(arith, YRT_BIN_FLOAT_CHAIN, YRT_BIN_I8_FIXED)) return yrt_node_fail(v, YRT_ERR_FORMAT, "binary arithmetic p[1] = %d", (int)arith);
  if (arith == YRT_BIN_I8_FIXED) {
    yk_add_fixed fx;
    if (y->dtype != YRT_I8 || kind != YRT_BIN_ADD)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "fixed-point arithmetic (p[1] = 1) is for int8 add only");
    for (uint32_t d = 0; d < y->rank; d++)
      if (a->dims[d] != y->dims[d] || b->dims[d] != y->dims[d])
        return yrt_node_fail(v, YRT_ERR_SHAPE, "fixed-point add: axis %u broadcasts (same shapes only)", (unsigned)d);
    if (a->n_scales > 1 || b->n_scales > 1 || y->n_scales > 1 ||
        yk_add_fixed_params((yk_qparams){a->scale, a->zero_point}, (yk_qparams){b->scale, b->zero_point},
                            (yk_qparams){y->scale, y->zero_point}, &fx) != 0)
      return yrt_node_fail(v, YRT_ERR_FORMAT, "fixed-point add: scale ratios %g / %g past int16", (double)(a->scale / y->scale),
                 (double)(b->scale / y->scale));
  }
  for (uint32_t d = 0; d < y->rank; d++) {
    int32_t ad = a->dims[d], bd = b->dims[d], yd = y->dims[d];
    if ((ad != yd && ad != 1) || (bd != yd && bd != 1) || yd != (ad > bd ? ad : bd))
      return yrt_node_fail(v, YRT_ERR_SHAPE, "axis %u: %d (op) %d -> %d does not broadcast", (unsigned)d, (int)ad, (int)bd,
                 (int)yd);
  }
  return yrt_require_per_tensor(v);
}

yrt_status yrt_check_unary(const vctx *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (x->dtype != YRT_F32 || y->dtype != YRT_F32) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "unary ops are f32 only");
  if (!yrt_range_ok(v->n->p[0], YRT_UNARY_NONE, YRT_UNARY_COUNT_ - 1)) return yrt_node_fail(v, YRT_ERR_FORMAT, "unary kind %d", (int)v->n->p[0]);
  if (yrt_tensor_numel(x) != yrt_tensor_numel(y)) return yrt_node_fail(v, YRT_ERR_SHAPE, "element counts differ");
  return YRT_OK;
}

yrt_status yrt_check_lut(const vctx *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *t = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  if (x->dtype != YRT_I8 || y->dtype != YRT_I8) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "LUT is i8 -> i8");
  if (t->kind != YRT_TENSOR_CONST || t->dtype != YRT_I8 || yrt_tensor_numel(t) != 256)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "table is not a constant of 256 int8");
  if (yrt_tensor_numel(x) != yrt_tensor_numel(y)) return yrt_node_fail(v, YRT_ERR_SHAPE, "element counts differ");
  return yrt_require_per_tensor(v);
}

yrt_status yrt_check_concat(const vctx *v) {
  const yrt_tensor_rec *y = yrt_node_out(v, 0);
  const int32_t axis = v->n->p[0];
  if (y->dtype != YRT_F32 && y->dtype != YRT_I8) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "dtype %u", (unsigned)y->dtype);
  if (axis < 0 || (uint32_t)axis >= y->rank) return yrt_node_fail(v, YRT_ERR_FORMAT, "axis %d for rank %u", (int)axis, (unsigned)y->rank);
  int64_t sum = 0;
  for (uint32_t k = 0; k < v->n->n_in; k++) {
    const yrt_tensor_rec *x = yrt_node_in(v, (int)k);
    if (x->dtype != y->dtype || x->rank != y->rank) return yrt_node_fail(v, YRT_ERR_SHAPE, "input %u differs in dtype or rank", (unsigned)k);
    for (uint32_t d = 0; d < y->rank; d++)
      if ((int32_t)d != axis && x->dims[d] != y->dims[d])
        return yrt_node_fail(v, YRT_ERR_SHAPE, "input %u axis %u is %d, output %d", (unsigned)k, (unsigned)d, (int)x->dims[d],
                   (int)y->dims[d]);
    sum += x->dims[axis];
  }
  if (sum != y->dims[axis]) return yrt_node_fail(v, YRT_ERR_SHAPE, "inputs add up to %lld on axis %d, output has %d", (long long)sum, (int)axis, (int)y->dims[axis]);
  return yrt_require_per_tensor(v);
}

yrt_status yrt_check_slice(const vctx *v) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (x->dtype != y->dtype || !yrt_same_qparams(x, y)) return yrt_node_fail(v, YRT_ERR_FORMAT, "input and output differ in dtype or quantization");
  if (x->rank != y->rank) return yrt_node_fail(v, YRT_ERR_SHAPE, "rank %u -> %u", (unsigned)x->rank, (unsigned)y->rank);
  for (uint32_t d = 0; d < x->rank; d++) {
    const int64_t start = v->n->p[d], step = v->n->p[6 + d], len = x->dims[d];
    const int64_t last = start + (int64_t)(y->dims[d] - 1) * step;
    if (step == 0 || start < 0 || start >= len || last < 0 || last >= len)
      return yrt_node_fail(v, YRT_ERR_SHAPE, "axis %u: start %lld step %lld count %d leaves [0, %lld)", (unsigned)d,
                 (long long)start, (long long)step, (int)y->dims[d], (long long)len);
  }
  return yrt_require_per_tensor(v);
}









static yrt_status check_quant(const vctx *v, uint32_t from, uint32_t to) {
  const yrt_tensor_rec *x = yrt_node_in(v, 0), *y = yrt_node_out(v, 0);
  if (x->dtype != from || y->dtype != to) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "dtype %u -> %u", (unsigned)x->dtype, (unsigned)y->dtype);
  if (yrt_tensor_numel(x) != yrt_tensor_numel(y)) return yrt_node_fail(v, YRT_ERR_SHAPE, "element counts differ");
  return yrt_require_per_tensor(v);
}

yrt_status yrt_check_quantize(const vctx *v) { return check_quant(v, YRT_F32, YRT_I8); }
yrt_status yrt_check_dequantize(const vctx *v) { return check_quant(v, YRT_I8, YRT_F32); }


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
