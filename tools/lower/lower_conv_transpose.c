/* lower_conv_transpose.c — ONNX ConvTranspose -> one YRT_OP_CONV_TRANSPOSE (NHWC). The
 * weights stay in ONNX order [ci, co / group, kh, kw] (the runtime packs them once). Between
 * QDQ pairs with int8 symmetric weights (per tensor, or per output channel on axis 1 with group
 * 1: onnxruntime's and yolort-quantize's form) it runs int8: x and y int8, an int32 bias at
 * s_x s_w[o] (lw_node_int8 decides). Otherwise float: an int8 input is dequantized before it and
 * a quantized output rounded after it as the QDQ graph says (lw_fake_quant_outputs).
 * quantize_dynamic leaves ConvTranspose float (it has no integer form), so a dynamically
 * quantized export's prototype upsample arrives here with float weights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lower_internal.h"

static const ir_tensor *T(const lw_ctx *c, int t) { return &c->g->tensors[t]; }

/* The node's geometry into p[] (made explicit by ir_shape_conv_transpose). */
static void set_params(lw_node *nd, const ir_node *n, const ir_tensor *W, const ir_attr *s, const ir_attr *d,
                       const ir_attr *p, const ir_attr *op) {
  nd->p[YRT_CONVT_P_KH] = (int32_t)W->dims[2];
  nd->p[YRT_CONVT_P_KW] = (int32_t)W->dims[3];
  nd->p[YRT_CONVT_P_SH] = (int32_t)s->ints[0];
  nd->p[YRT_CONVT_P_SW] = (int32_t)s->ints[1];
  nd->p[YRT_CONVT_P_PAD_T] = (int32_t)p->ints[0];
  nd->p[YRT_CONVT_P_PAD_L] = (int32_t)p->ints[1];
  nd->p[YRT_CONVT_P_PAD_B] = (int32_t)p->ints[2];
  nd->p[YRT_CONVT_P_PAD_R] = (int32_t)p->ints[3];
  nd->p[YRT_CONVT_P_DH] = (int32_t)d->ints[0];
  nd->p[YRT_CONVT_P_DW] = (int32_t)d->ints[1];
  nd->p[YRT_CONVT_P_GROUP] = (int32_t)ir_attr_int(n, "group", 1);
  nd->p[YRT_CONVT_P_OUT_PAD_H] = (int32_t)op->ints[0];
  nd->p[YRT_CONVT_P_OUT_PAD_W] = (int32_t)op->ints[1];
}

/* int8: x and y int8 NHWC, the export's int8 weights with their scales (per output channel on
 * axis 1, or one), the bias requantized to s_x s_w[o] and kept inside int32 with the window's
 * largest sum (as the int8 conv's; the runtime refuses more). */
static yrt_status lower_i8(lw_ctx *c, const ir_node *n, const ir_attr *s, const ir_attr *d, const ir_attr *p,
                           const ir_attr *op) {
  const ir_tensor *X = T(c, n->in[0]), *W = T(c, n->in[1]);
  const int64_t ci = W->dims[0], co = W->dims[1], kh = W->dims[2], kw = W->dims[3];
  const int64_t span = kh * kw * ci * 255 * 128; /* group 1 (lw_node_int8) */
  if (span > INT32_MAX)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': int8 ConvTranspose window of %lld products can overflow int32",
                  n->name, (long long)(kh * kw * ci));
  const ir_tensor *B = n->n_in > 2 && n->in[2] >= 0 ? T(c, n->in[2]) : NULL;
  if (B && (B->dtype != IR_F32 || !B->data || B->nbytes < (size_t)co * 4))
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': ConvTranspose bias '%s' must be a float constant of %lld", n->name,
                  B->name, (long long)co);
  const int64_t wd[4] = {ci, co, kh, kw};
  const int wt = lw_const_raw(c, W->name, YRT_I8, 4, wd, W->qdata, (size_t)(ci * co * kh * kw));
  if (wt < 0) return c->status;
  float *ws = malloc(sizeof(float) * (size_t)co), *bs = malloc(sizeof(float) * (size_t)co);
  int32_t *bq = calloc((size_t)co, sizeof(int32_t));
  if (!ws || !bs || !bq) {
    free(ws), free(bs), free(bq);
    return lw_err(c, YRT_ERR_NOMEM, "convert: out of memory for ConvTranspose '%s'", n->name);
  }
  for (int64_t k = 0; k < co; k++) {
    ws[k] = W->q.scales && W->q.n_scales > 1 ? W->q.scales[k] : W->q.scale;
    bs[k] = X->q.scale * ws[k];
    if (!B) continue;
    float bf;
    memcpy(&bf, (const char *)B->data + 4 * k, 4);
    double r = nearbyint((double)bf / (double)bs[k]);
    if (r > (double)(INT32_MAX - span)) r = (double)(INT32_MAX - span);
    if (r < (double)(INT32_MIN + span)) r = (double)(INT32_MIN + span);
    bq[k] = (int32_t)r;
  }
  lw_tensor *tw = &c->t[wt];
  tw->scales = ws;
  tw->n_scales = (int)co;
  tw->scale = ws[0];
  tw->zp = 0;
  tw->q_axis = 1;
  int in[3] = {-1, wt, -1}, n_in = 2;
  if (B) {
    char name[512];
    snprintf(name, sizeof name, "%s#i32", B->name);
    const int64_t bd = co;
    in[2] = lw_const_raw(c, name, YRT_I32, 1, &bd, bq, (size_t)co * 4);
    if (in[2] >= 0) {
      c->t[in[2]].scales = bs;
      c->t[in[2]].n_scales = (int)co;
      c->t[in[2]].scale = bs[0];
      bs = NULL;
    }
    n_in = 3;
  }
  free(bs);
  free(bq);
  if (n_in == 3 && in[2] < 0) return c->status;
  if ((in[0] = lw_get(c, n->in[0], 1, YRT_LAYOUT_NHWC)) < 0) return c->status;
  const int to = lw_def(c, n->out[0], 1, YRT_LAYOUT_NHWC);
  if (to < 0) return c->status;
  lw_node *nd = lw_add_node(c, YRT_OP_CONV_TRANSPOSE, in, n_in, &to, 1);
  if (!nd) return c->status;
  set_params(nd, n, W, s, d, p, op);
  return YRT_OK;
}

yrt_status lw_lower_conv_transpose(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  if (n->n_in < 2 || n->n_out < 1 || n->in[0] < 0 || n->in[1] < 0 || n->out[0] < 0)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': op 'ConvTranspose' needs input, weights and an output", n->name);
  const ir_tensor *X = T(c, n->in[0]), *W = T(c, n->in[1]), *O = T(c, n->out[0]);
  if (!W->data || (n->n_in > 2 && n->in[2] >= 0 && !T(c, n->in[2])->data))
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op 'ConvTranspose' with weights or bias computed in the graph",
                  n->name);
  if (X->rank != 4 || O->rank != 4 || X->dims[0] != 1)
    return lw_err(c, YRT_ERR_UNSUPPORTED, "node '%s': op 'ConvTranspose' only 2-D with batch 1", n->name);
  /* geometry made explicit by ir_shape_conv_transpose */
  const ir_attr *s = ir_attr_get(n, "strides"), *d = ir_attr_get(n, "dilations"), *p = ir_attr_get(n, "pads"),
                *op = ir_attr_get(n, "output_padding");
  if (!s || !d || !p || !op || s->n_ints != 2 || d->n_ints != 2 || p->n_ints != 4 || op->n_ints != 2)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': ConvTranspose geometry missing", n->name);
  const char *why = NULL;
  if (lw_node_int8(c, ni, &why)) return lower_i8(c, n, s, d, p, op);
  lw_note_fp32(c, n, why ? why : "ConvTranspose runs in float");
  int xi = lw_get(c, n->in[0], 0, YRT_LAYOUT_NHWC);
  if (xi < 0) return c->status;
  int in[3] = {xi, lw_const(c, n->in[1], 0, YRT_LAYOUT_PLAIN, 4), -1};
  if (in[1] < 0) return c->status;
  int n_in = 2;
  if (n->n_in > 2 && n->in[2] >= 0) {
    if ((in[2] = lw_const(c, n->in[2], 0, YRT_LAYOUT_PLAIN, 1)) < 0) return c->status;
    n_in = 3;
  }
  int to = lw_def(c, n->out[0], 0, YRT_LAYOUT_NHWC);
  if (to < 0) return c->status;
  lw_node *nd = lw_add_node(c, YRT_OP_CONV_TRANSPOSE, in, n_in, &to, 1);
  if (!nd) return c->status;
  set_params(nd, n, W, s, d, p, op);
  return YRT_OK;
}
