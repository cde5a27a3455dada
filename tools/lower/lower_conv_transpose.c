/* lower_conv_transpose.c — ONNX ConvTranspose -> one float YRT_OP_CONV_TRANSPOSE (NHWC). The
 * weights stay in ONNX order [ci, co / group, kh, kw] (the runtime packs them once); an int8
 * input is dequantized before it and a quantized output rounded after it as the QDQ graph says
 * (lw_fake_quant_outputs). quantize_dynamic leaves ConvTranspose float (it has no integer form),
 * so a dynamically quantized export's prototype upsample arrives here with float weights. */
#include "lower_internal.h"

static const ir_tensor *T(const lw_ctx *c, int t) { return &c->g->tensors[t]; }

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
  lw_note_fp32(c, n, "ConvTranspose runs in float");
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
  return YRT_OK;
}
