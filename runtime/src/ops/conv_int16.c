/* conv_int16.c — YRT_OP_CONV2D with an int16 input (W8A16, yk_conv16.h; ops/conv.c checks and
 * dispatches here): symmetric int16 x (zero point 0), int8 per-channel weights, int32 bias
 * (scale s_x * s_w[c]), int8 output with the int8 conv's requantization and optional LUT, or
 * int16 output (symmetric) after a SiLU / sigmoid / ReLU computed in float (the stem's convs
 * feeding the next int16-input conv), groups 1, dense tensors (no views). Where int8 activations lose the most (the stem over the
 * image), 256x finer input steps for a small cost (docs/accuracy.md). */
#include <stdint.h>
#include <stdlib.h>

#include "mem.h"
#include "conv_paths.h"
#include "op_check.h"

/* The kernel's activation of a CONV2D act for an int16 output, -1 for one it does not compute. */
static int yrt_conv16_act(int32_t act) {
  switch (act) {
    case YRT_UNARY_NONE:
    case YRT_UNARY_IDENTITY: return YK_CONV16_ACT_NONE;
    case YRT_UNARY_RELU: return YK_CONV16_ACT_RELU;
    case YRT_UNARY_SIGMOID: return YK_CONV16_ACT_SIGMOID;
    case YRT_UNARY_SILU: return YK_CONV16_ACT_SILU;
    default: return -1; /* leaky relu: CONV2D records carry no slope */
  }
}

/* The shape and operands conv.c's common checks do not cover (they run after this one). */
yrt_status yrt_conv_check_i16(const yrt_node_check *v) {
  const yrt_node_rec *n = v->n;
  const yrt_tensor_rec *w = yrt_node_in(v, 1), *y = yrt_node_out(v, 0);
  const yrt_tensor_rec *b = (n->n_in > 2 && n->in[2] != YRT_NONE) ? yrt_node_in(v, 2) : NULL;
  if (w->dtype != YRT_I8 || (b && b->dtype != YRT_I32) || (y->dtype != YRT_I8 && y->dtype != YRT_I16))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "an int16-input conv needs i8 w, i32 bias and an i8 or i16 output");
  if (n->n_in > YRT_CONV_IN_WOFFSET)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weight offsets (input 3) on an int16-input conv");
  if (n->p[YRT_CONV_P_GROUPS] != 1)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "an int16-input conv must have groups 1 (got %d)",
                         (int)n->p[YRT_CONV_P_GROUPS]);
  if (w->zero_point != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "int8 weights must be symmetric (zp %d)", (int)w->zero_point);
  if (w->n_scales > 1 && w->q_axis != 0) return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "weight scales must be on axis 0");
  if (y->rank == 4 && (y->dims[3] < 1 || y->dims[3] > YK_CONV16_MAX_COUT))
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "an int16-input conv has at most %d output channels (got %d)",
                         YK_CONV16_MAX_COUT, (int)y->dims[3]);
  const int32_t act = n->p[YRT_CONV_P_ACT];
  if (y->dtype == YRT_I8 && act != YRT_UNARY_NONE && act != YRT_UNARY_IDENTITY)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "an int16-input conv to int8 fuses no activation (act %d; use a LUT)", (int)act);
  /* int16 output: the activation computed in float by the kernel's output stage (no LUT: 65536 values) */
  if (y->dtype == YRT_I16 && yrt_conv16_act(act) < 0)
    return yrt_node_fail(v, YRT_ERR_UNSUPPORTED, "an int16-output conv fuses none, relu, sigmoid or silu (act %d)", (int)act);
  if (y->dtype == YRT_I16 && n->p[YRT_CONV_P_LUT] != -1)
    return yrt_node_fail(v, YRT_ERR_FORMAT, "a LUT on an int16-output conv (its activation is act)");
  /* the kernel's exact int32 blocks hold a full block plus the bias only below 2^30 */
  if (b && b->rank == 1 && y->rank == 4 && b->dims[0] == y->dims[3]) {
    const int32_t *bd = (const int32_t *)yrt_tensor_const_data(v->m, b);
    for (int32_t c = 0; c < b->dims[0]; c++)
      if (bd[c] > YK_CONV16_BIAS_MAX || bd[c] < -YK_CONV16_BIAS_MAX)
        return yrt_node_fail(v, YRT_ERR_FORMAT, "bias[%d] = %d is outside +-%d (int16-input conv)", (int)c, (int)bd[c],
                             YK_CONV16_BIAS_MAX);
  }
  return YRT_OK;
}

typedef struct conv16_ctx {
  const yk_conv16 *c;
  const int16_t *x;
  void *y; /* int8 or int16 */
} conv16_ctx;

static void conv16_rows(const void *ctx, size_t r0, size_t r1) {
  const conv16_ctx *t = ctx;
  yk_conv16_rows(t->c, t->x, t->y, (int)r0, (int)r1);
}

yrt_status yrt_conv_prepare_i16(yrt_session *s, yrt_exec *e, yrt_error *err) {
  yrt_exec_conv *c = yrt_conv_state(e);
  const yrt_model *m = s->model;
  const yrt_node_rec *n = e->node;
  const yrt_tensor_rec *x = &m->tensors[n->in[0]], *w = &m->tensors[n->in[1]], *y = &m->tensors[n->out[0]];
  const yrt_conv_geom *g = &c->g;
  c->lut = n->p[YRT_CONV_P_LUT] >= 0 ? yrt_tensor_const_data(m, &m->tensors[n->p[YRT_CONV_P_LUT]]) : NULL;
  /* a fused LUT carries the conv's own output quantization (its index domain), as in int8 */
  if (c->lut) y = &m->tensors[n->p[YRT_CONV_P_LUT]];
  c->y_zp = y->zero_point;
  const int out16 = y->dtype == YRT_I16;
  c->requant = yrt_alloc(s->alloc, (size_t)g->cout * sizeof(float));
  if (!c->requant)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory preparing conv node '%s'", yrt_model_string(m, n->name));
  const float *ws = yrt_tensor_scales(m, w);
  /* int8 output: the requantization; int16 output: the dequantization (the act runs before s_y) */
  for (int oc = 0; oc < g->cout; oc++)
    c->requant[oc] = out16 ? x->scale * (ws ? ws[oc] : w->scale) : x->scale * (ws ? ws[oc] : w->scale) / y->scale;
  yk_conv16 k0 = (yk_conv16){.n = g->n, .h = g->h, .w = g->w, .cin = g->cin, .oh = g->oh, .ow = g->ow, .cout = g->cout,
                   .kh = g->kh, .kw = g->kw, .sh = g->sh, .sw = g->sw, .pad_t = g->pad_t, .pad_l = g->pad_l,
                   .dh = g->dh, .dw = g->dw, .y_zp = c->y_zp, .weights = e->in[1], .bias = e->in[2],
                   .scale = c->requant, .lut = c->lut, .out16 = out16,
                   .act = out16 ? yrt_conv16_act(n->p[YRT_CONV_P_ACT]) : 0, .y_scale = out16 ? y->scale : 0.0f};
  if (yk_conv16_init(&k0, &s->isa) != 0)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: conv '%s': shape not supported by the int16-input kernel",
                         yrt_model_string(m, n->name));
  /* the struct in the packed block's first 64-byte line(s): yrt_exec's state has no room for it */
  const size_t head = (sizeof(yk_conv16) + 63) / 64 * 64;
  void *mem = yrt_alloc(s->alloc, head + k0.packed_bytes);
  if (!mem)
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory packing conv '%s'", yrt_model_string(m, n->name));
  yk_conv16 *k = mem;
  *k = k0;
  yk_conv16_pack(k, (uint8_t *)mem + head);
  c->c16 = k;
  c->own = 3;
  c->rows_per_task = yrt_par_conv_rows(&s->par, (size_t)(g->n * g->oh), (size_t)g->ow, 0);
  return YRT_OK;
}

yrt_status yrt_conv_run_i16(const yrt_session *s, const yrt_exec *e, yrt_error *err) {
  (void)err;
  const yrt_exec_conv *c = yrt_conv_state(e);
  const conv16_ctx t = {c->c16, e->in[0], e->out};
  yrt_par_ranges(&s->par, (size_t)(c->g.n * c->g.oh), c->rows_per_task, conv16_rows, &t);
  return YRT_OK;
}
